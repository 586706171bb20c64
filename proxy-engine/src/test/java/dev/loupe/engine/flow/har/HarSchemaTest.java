package dev.loupe.engine.flow.har;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.har.HarFixtures.Case;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Realistic flows → HAR → the HAR 1.2 schema har-validator uses, plus what that schema leaves out:
 * {@code time} is the sum of the known timings, URLs are absolute, dates are ISO 8601, and every
 * body reads back byte for byte. Set {@code -Dloupe.har.dump=FILE} to keep the HAR (e.g. to run
 * the npm har-validator on it).
 */
@Timeout(60)
class HarSchemaTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir Path spillDir;

  private List<Case> cases;
  private JsonNode har;
  private JsonNode entries;

  @BeforeEach
  void export() throws IOException {
    cases = new HarFixtures(spillDir).all();
    List<Flow> flows = cases.stream().map(Case::flow).toList();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HarWriter.write(flows, out);
    String dump = System.getProperty("loupe.har.dump");
    if (dump != null && !dump.isBlank()) {
      Files.write(Path.of(dump), out.toByteArray());
    }
    har = MAPPER.readTree(out.toByteArray());
    entries = har.path("log").path("entries");
  }

  @Test
  void validatesAgainstTheHar12Schema() {
    assertThat(HarSchema.violations(har)).isEmpty();
  }

  @Test
  void schemaCatchesWhatItShould() {
    // Guards the guard: with format assertions off or a broken $ref, everything would "pass".
    Map<String, java.util.function.Consumer<ObjectNode>> breakages = Map.of(
        "no time", e -> e.remove("time"),
        "date without time", e -> e.put("startedDateTime", "2026-11-30"),
        "bracketed IPv6", e -> e.put("serverIPAddress", "[2001:db8::1]"),
        "relative url", e -> ((ObjectNode) e.get("request")).put("url", "/search?q=x"),
        "status as text", e -> ((ObjectNode) e.get("response")).put("status", "200"),
        "no send timing", e -> ((ObjectNode) e.get("timings")).remove("send"),
        "content without mimeType", e -> ((ObjectNode) e.get("response").get("content")).remove("mimeType"));
    breakages.forEach((name, breakIt) -> {
      JsonNode copy = har.deepCopy();
      breakIt.accept((ObjectNode) copy.get("log").get("entries").get(0));
      assertThat(HarSchema.violations(copy)).as(name).isNotEmpty();
    });
  }

  @Test
  void logHasVersionCreatorAndOneEntryPerFlowButNoPages() {
    JsonNode log = har.get("log");
    assertThat(log.get("version").asText()).isEqualTo("1.2");
    assertThat(log.get("creator").get("name").asText()).isEqualTo("Loupe");
    assertThat(log.get("creator").get("version").asText()).isNotBlank();
    assertThat(log.has("pages")).isFalse();
    assertThat(entries.size()).isEqualTo(cases.size());
  }

  @Test
  void timeIsTheSumOfTheKnownTimingsWithoutSsl() {
    for (JsonNode e : entries) {
      JsonNode t = e.get("timings");
      BigDecimal sum = BigDecimal.ZERO;
      for (String part : List.of("blocked", "dns", "connect", "send", "wait", "receive")) {
        BigDecimal v = t.get(part).decimalValue();
        if (v.compareTo(BigDecimal.valueOf(-1)) != 0) {
          sum = sum.add(v);
        }
      }
      assertThat(e.get("time").doubleValue()).as(url(e)).isCloseTo(sum.doubleValue(), within(0.001));
      for (String required : List.of("send", "wait", "receive")) {
        assertThat(t.get(required).doubleValue()).as(url(e) + " " + required).isGreaterThanOrEqualTo(0);
      }
      double ssl = t.get("ssl").doubleValue();
      if (ssl >= 0) {
        assertThat(t.get("connect").doubleValue()).as("ssl is part of connect").isGreaterThanOrEqualTo(ssl);
      }
    }
  }

  @Test
  void fullTimingsAreMillisecondsFromTheNanoTimeReadings() {
    JsonNode t = entry("get-query-cookies").get("timings");
    assertThat(t.get("blocked").doubleValue()).isEqualTo(0.12);
    assertThat(t.get("dns").doubleValue()).isEqualTo(2.5); // 2.500123 rounds to the microsecond
    assertThat(t.get("connect").doubleValue()).isEqualTo(38.051); // TCP + TLS
    assertThat(t.get("ssl").doubleValue()).isEqualTo(26.001);
    assertThat(t.get("send").doubleValue()).isEqualTo(0.5);
    assertThat(t.get("wait").doubleValue()).isEqualTo(45);
    assertThat(t.get("receive").doubleValue()).isEqualTo(6.5);
    assertThat(entry("get-query-cookies").get("time").doubleValue()).isCloseTo(92.671, within(0.0005));
  }

  @Test
  void urlsAreAbsolute() {
    for (JsonNode e : entries) {
      URI uri = URI.create(url(e));
      assertThat(uri.isAbsolute()).as(url(e)).isTrue();
      assertThat(uri.getScheme()).as(url(e)).isIn("http", "https");
      assertThat(uri.getHost()).as(url(e)).isNotBlank();
    }
    assertThat(url(entry("ipv6"))).isEqualTo("https://[2001:db8::1]/v6");
    assertThat(url(entry("awkward-url"))).isEqualTo("http://legacy.example/a%20b/%7Bx%7D%7Cy?q=caf%C3%A9&r=100%25");
  }

  @Test
  void startedDateTimeIsIso8601WithOffsetAndMilliseconds() {
    for (int i = 0; i < cases.size(); i++) {
      String s = entries.get(i).get("startedDateTime").asText();
      assertThat(s).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d)");
      assertThat(OffsetDateTime.parse(s).toInstant()).isEqualTo(cases.get(i).flow().startedAt());
    }
    assertThat(entries.get(0).get("startedDateTime").asText()).isEqualTo("2026-11-30T02:10:18.123Z");
  }

  @Test
  void everyBodyReadsBackByteForByte() {
    List<String> checked = new ArrayList<>();
    for (int i = 0; i < cases.size(); i++) {
      Case c = cases.get(i);
      JsonNode e = entries.get(i);
      if (c.requestBody() != null) {
        assertThat(sha256(decode(e.get("request").get("postData")))).as(c.name() + " request")
            .isEqualTo(sha256(c.requestBody()));
        checked.add(c.name() + ">");
      }
      if (c.responseContent() != null) {
        assertThat(sha256(decode(e.get("response").get("content")))).as(c.name() + " response")
            .isEqualTo(sha256(c.responseContent()));
        checked.add(c.name() + "<");
      }
    }
    assertThat(checked).contains("post-binary>", "spilled-binary<", "brotli<", "corrupt-gzip<", "gzip<");
  }

  @Test
  void binaryBodiesAreBase64AndTextualOnesText() {
    assertThat(entry("post-binary").get("request").get("postData").get("encoding").asText()).isEqualTo("base64");
    assertThat(entry("post-json").get("request").get("postData").has("encoding")).isFalse();
    assertThat(entry("post-json").get("request").get("postData").get("text").asText())
        .isEqualTo("{\"name\":\"Zo\u00eb\",\"tags\":[\"a\",\"b\"],\"n\":1}");
    JsonNode png = entry("spilled-binary").get("response").get("content");
    assertThat(png.get("encoding").asText()).isEqualTo("base64");
    assertThat(png.get("size").asLong()).isEqualTo(300 * 1024);
    assertThat(png.has("_truncated")).isFalse();
  }

  @Test
  void gzipIsDecodedForDisplayWithSizeAndCompression() {
    Case c = byName("gzip");
    JsonNode response = entry("gzip").get("response");
    JsonNode content = response.get("content");
    assertThat(content.get("text").asText()).isEqualTo(new String(c.responseContent(), StandardCharsets.UTF_8));
    assertThat(content.has("encoding")).isFalse();
    assertThat(content.get("size").asLong()).isEqualTo(c.responseContent().length);
    long bodySize = response.get("bodySize").asLong();
    assertThat(bodySize).isEqualTo(c.flow().responseBody().size()).isLessThan(c.responseContent().length);
    assertThat(content.get("compression").asLong()).isEqualTo(c.responseContent().length - bodySize);
    assertThat(content.get("mimeType").asText()).isEqualTo("application/json; charset=UTF-8");

    assertThat(entry("deflate").get("response").get("content").get("text").asText())
        .isEqualTo(new String(byName("deflate").responseContent(), StandardCharsets.US_ASCII));
  }

  @Test
  void undecodableCodingsStayRawInBase64() {
    for (String name : List.of("brotli", "corrupt-gzip")) {
      JsonNode response = entry(name).get("response");
      JsonNode content = response.get("content");
      assertThat(content.get("encoding").asText()).as(name).isEqualTo("base64");
      assertThat(content.get("size").asLong()).as(name).isEqualTo(response.get("bodySize").asLong());
      assertThat(content.has("compression")).as(name).isFalse();
      assertThat(content.get("_contentEncoding").asText()).as(name).isIn("br", "gzip");
    }
  }

  @Test
  void truncatedBodyIsFlaggedAndKeepsTheCapturedPrefix() {
    JsonNode response = entry("truncated-text").get("response");
    JsonNode content = response.get("content");
    assertThat(content.get("_truncated").asBoolean()).isTrue();
    assertThat(content.get("_capturedSize").asLong()).isEqualTo(1024);
    assertThat(content.get("size").asLong()).isEqualTo(10240);
    assertThat(response.get("bodySize").asLong()).isEqualTo(10240);
    assertThat(content.get("text").asText()).hasSize(1024);
  }

  @Test
  void queryStringAndCookiesAreParsed() {
    JsonNode request = entry("get-query-cookies").get("request");
    assertThat(pairs(request.get("queryString")))
        .containsExactly("q=red shoes", "size=42", "lang=en-GB", "flag=", "tick=\u2713");
    assertThat(pairs(request.get("cookies"))).containsExactly("session=abc123", "theme=dark", "consent=yes");
    JsonNode cookies = entry("get-query-cookies").get("response").get("cookies");
    assertThat(cookies.get(0).get("name").asText()).isEqualTo("sid");
    assertThat(cookies.get(0).get("path").asText()).isEqualTo("/");
    assertThat(cookies.get(0).get("domain").asText()).isEqualTo("shop.example");
    assertThat(cookies.get(0).get("expires").asText()).isEqualTo("2026-10-21T07:28:00.000Z");
    assertThat(cookies.get(0).get("httpOnly").asBoolean()).isTrue();
    assertThat(cookies.get(0).get("secure").asBoolean()).isTrue();
    assertThat(cookies.get(1).get("expires").asText()).startsWith("2026-11-30T03:10:18.");
    assertThat(cookies.get(1).get("httpOnly").asBoolean()).isFalse();

    JsonNode post = entry("post-form").get("request").get("postData");
    assertThat(pairs(post.get("params"))).containsExactly("user=ann lee", "note=50% off&more", "empty=");
  }

  @Test
  void headersSizeCountsHttp1HeadsOnly() {
    JsonNode request = entry("post-json").get("request");
    // "POST /v1/items HTTP/1.1\r\n" (25) + fields + "\r\n"
    long fields = byName("post-json").flow().request().headers().wireSize();
    assertThat(request.get("headersSize").asLong()).isEqualTo(25 + fields + 2);
    assertThat(entry("get-query-cookies").get("request").get("headersSize").asLong()).isEqualTo(-1);
    assertThat(entry("get-query-cookies").get("response").get("headersSize").asLong()).isEqualTo(-1);
    JsonNode response = entry("post-json").get("response");
    long resFields = byName("post-json").flow().response().headers().wireSize();
    assertThat(response.get("headersSize").asLong()).isEqualTo("HTTP/1.1 201 Created\r\n".length() + resFields + 2);
    assertThat(response.get("redirectURL").asText()).isEqualTo("/v1/items/17");
  }

  @Test
  void failedFlowHasAStubResponseAndTheError() {
    JsonNode e = entry("failed-dns");
    JsonNode response = e.get("response");
    assertThat(response.get("status").asInt()).isZero();
    assertThat(response.get("statusText").asText()).isEmpty();
    assertThat(response.get("httpVersion").asText()).isEmpty();
    assertThat(response.get("content").get("mimeType").asText()).isEqualTo("x-unknown");
    assertThat(response.get("content").get("size").asLong()).isZero();
    assertThat(response.get("headersSize").asLong()).isEqualTo(-1);
    assertThat(response.get("bodySize").asLong()).isEqualTo(-1);
    assertThat(e.get("_error").asText()).isEqualTo("DNS: DNS lookup failed for nosuch.test");
    assertThat(e.get("_errorKind").asText()).isEqualTo("DNS");
    assertThat(e.has("serverIPAddress")).isFalse();
    assertThat(e.get("connection").asText()).isEqualTo("40");

    JsonNode reset = entry("reset-mid-body");
    assertThat(reset.get("response").get("status").asInt()).isEqualTo(200);
    assertThat(reset.get("_errorKind").asText()).isEqualTo("SERVER_RESET");
  }

  @Test
  void tunnelIsAConnectEntryWithTheTunnelledByteCounts() {
    JsonNode e = entry("tunnel");
    assertThat(e.get("request").get("method").asText()).isEqualTo("CONNECT");
    assertThat(url(e)).isEqualTo("https://pinned.example:443");
    assertThat(e.get("request").get("bodySize").asLong()).isEqualTo(617);
    assertThat(e.get("response").get("status").asInt()).isEqualTo(200);
    assertThat(e.get("response").get("bodySize").asLong()).isEqualTo(5242);
    assertThat(e.get("response").get("content").get("size").asLong()).isEqualTo(5242);
    assertThat(e.get("_tier").asText()).isEqualTo("TUNNEL");

    JsonNode refused = entry("tunnel-refused");
    assertThat(refused.get("response").get("status").asInt()).isEqualTo(502);
    assertThat(url(refused)).isEqualTo("https://down.example:8443");
    assertThat(refused.get("_errorKind").asText()).isEqualTo("CONNECT_REFUSED");
  }

  @Test
  void webSocketMessagesAreWrittenAsChromeDoes() {
    JsonNode e = entry("websocket");
    assertThat(e.get("_resourceType").asText()).isEqualTo("websocket");
    JsonNode messages = e.get("_webSocketMessages");
    assertThat(messages).hasSize(4);
    JsonNode text = messages.get(0);
    assertThat(text.get("type").asText()).isEqualTo("send");
    assertThat(text.get("opcode").asInt()).isEqualTo(1);
    assertThat(text.get("data").asText()).isEqualTo("hello \u00fcber");
    double expected = HarFixtures.T0.plusMillis(250).getEpochSecond() + 0.373;
    assertThat(text.get("time").doubleValue()).isCloseTo(expected, within(0.000001));
    assertThat(text.get("time").isNumber()).isTrue();
    JsonNode binary = messages.get(1);
    assertThat(binary.get("type").asText()).isEqualTo("receive");
    assertThat(binary.get("opcode").asInt()).isEqualTo(2);
    assertThat(Base64.getDecoder().decode(binary.get("data").asText()))
        .containsExactly(0, 1, 2, 0xFF, 0x80, 0x7F);
    assertThat(messages.get(2).get("_truncated").asBoolean()).isTrue();
    assertThat(messages.get(2).get("_length").asLong()).isEqualTo(1000);
    assertThat(messages.get(3).get("opcode").asInt()).isEqualTo(8);
  }

  @Test
  void serverAddressIsAnIpLiteralWithoutBrackets() {
    assertThat(entry("ipv6").get("serverIPAddress").asText()).isEqualTo("2001:db8::1");
    assertThat(entry("post-json").get("serverIPAddress").asText()).isEqualTo("198.51.100.7");
    assertThat(entry("post-json").get("connection").asText()).isEqualTo("12");
    assertThat(entry("post-json").get("_clientHttpVersion").asText()).isEqualTo("HTTP/1.1");
    assertThat(entry("get-query-cookies").get("_serverHttpVersion").asText()).isEqualTo("HTTP/2");
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private JsonNode entry(String name) {
    for (int i = 0; i < cases.size(); i++) {
      if (cases.get(i).name().equals(name)) {
        return entries.get(i);
      }
    }
    throw new AssertionError("no case " + name);
  }

  private Case byName(String name) {
    return cases.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  private static String url(JsonNode entry) {
    return entry.get("request").get("url").asText();
  }

  private static List<String> pairs(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(p -> out.add(p.get("name").asText() + "=" + p.get("value").asText()));
    return out;
  }

  /** The bytes a {@code postData} or {@code content} object stands for. */
  static byte[] decode(JsonNode body) {
    String text = body.get("text").asText();
    if ("base64".equals(body.path("encoding").asText())) {
      return Base64.getDecoder().decode(text);
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
