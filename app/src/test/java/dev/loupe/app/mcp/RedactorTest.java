package dev.loupe.app.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RedactorTest {
  static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode json(String s) throws Exception {
    return JSON.readTree(s.replace('\'', '"'));
  }

  @Test
  void controlApiMessagesLoseCredentialsButKeepTheirShape() throws Exception {
    JsonNode flow = json("{'request': {'url': 'https://api.test/v1?q=cats&api_key=K1&access_token=T1#frag',"
        + " 'headers': [['Authorization', 'Bearer T2'], ['Cookie', 'sid=S1'], ['X-Api-Key', 'K2'],"
        + " ['Accept', 'text/html'], ['Proxy-Authorization', 'Basic QQ==']],"
        + " 'body': '{\\'user\\': \\'me\\', \\'password\\': \\'P1\\', \\'nested\\': {\\'client_secret\\': \\'C1\\'}}'},"
        + " 'response': {'headers': [['Set-Cookie', 'sid=S2; HttpOnly'], ['Content-Type', 'text/plain']],"
        + " 'body': 'grant_type=password&username=me&password=P2'}}");
    String out = Redactor.ON.redact(flow).toString();
    assertThat(out).doesNotContain("K1").doesNotContain("T1").doesNotContain("T2").doesNotContain("S1")
        .doesNotContain("K2").doesNotContain("QQ==").doesNotContain("P1").doesNotContain("C1").doesNotContain("S2")
        .doesNotContain("P2");
    JsonNode r = Redactor.ON.redact(flow);
    assertThat(r.at("/request/url").asText()).isEqualTo("https://api.test/v1?q=cats&api_key=[REDACTED]"
        + "&access_token=[REDACTED]#frag");
    assertThat(r.at("/request/headers/0/1").asText()).isEqualTo("Bearer [REDACTED]");
    assertThat(r.at("/request/headers/3/1").asText()).isEqualTo("text/html");
    assertThat(r.at("/request/headers/4/1").asText()).isEqualTo("Basic [REDACTED]");
    assertThat(json(r.at("/request/body").asText()).get("user").asText()).isEqualTo("me");
    assertThat(r.at("/response/body").asText()).isEqualTo("grant_type=password&username=me&password=[REDACTED]");
    assertThat(r.at("/response/headers/1/1").asText()).isEqualTo("text/plain");
    assertThat(flow.at("/request/headers/0/1").asText()).as("the input is not changed").isEqualTo("Bearer T2");
    assertThat(Redactor.OFF.redact(flow)).isSameAs(flow);
  }

  @Test
  void harEntriesLoseCredentials() throws Exception {
    JsonNode har = json("{'log': {'entries': [{'request': {'url': 'http://x/?token=T1',"
        + " 'headers': [{'name': 'authorization', 'value': 'Bearer T2'}, {'name': 'Accept', 'value': '*/*'}],"
        + " 'cookies': [{'name': 'theme', 'value': 'C1'}],"
        + " 'queryString': [{'name': 'token', 'value': 'T1'}, {'name': 'page', 'value': '2'}],"
        + " 'postData': {'mimeType': 'application/json', 'text': '{\\'apiKey\\': \\'K1\\'}'}},"
        + " 'response': {'headers': [{'name': 'Set-Cookie', 'value': 'a=S1'}], 'content': {'text': 'plain'}}}]}}");
    JsonNode r = Redactor.ON.redact(har);
    assertThat(r.toString()).doesNotContain("T1").doesNotContain("T2").doesNotContain("C1").doesNotContain("K1")
        .doesNotContain("S1").contains("*/*").contains("\"page\",\"value\":\"2\"").contains("plain");
  }

  @Test
  void redactedValuesSentBackGetTheirRealValues() throws Exception {
    ArrayNode original = (ArrayNode) json("[['Authorization', 'Bearer T'], ['Cookie', 'a=1'], ['Cookie', 'b=2']]");
    ArrayNode sent = (ArrayNode) json("[['Authorization', 'Bearer [REDACTED]'], ['Cookie', '[REDACTED]'],"
        + " ['Cookie', '[REDACTED]'], ['X-New', 'v']]");
    assertThat(Redactor.restoreHeaders(sent, original).toString())
        .isEqualTo("[[\"Authorization\",\"Bearer T\"],[\"Cookie\",\"a=1\"],[\"Cookie\",\"b=2\"],[\"X-New\",\"v\"]]");
    assertThat(Redactor.restoreUrl("http://x/p?api_key=[REDACTED]&q=new", "http://x/p?q=old&api_key=K%2F1"))
        .isEqualTo("http://x/p?api_key=K%2F1&q=new");
    assertThat(Redactor.restoreUrl("http://x/p?q=1", "http://x/p?api_key=K")).isEqualTo("http://x/p?q=1");
  }

  @Test
  void ordinaryNamesAreLeftAlone() {
    assertThat(Redactor.secretHeader("Content-Type")).isFalse();
    assertThat(Redactor.secretHeader("Content-Security-Policy")).isFalse();
    assertThat(Redactor.secretHeader("X-Amz-Security-Token")).isTrue();
    assertThat(Redactor.secretName("page")).isFalse();
    assertThat(Redactor.secretName("monkey")).isFalse();
    assertThat(Redactor.secretName("refresh_token")).isTrue();
    assertThat(Redactor.ON.redactBody("just some text = with spaces")).isEqualTo("just some text = with spaces");
  }
}
