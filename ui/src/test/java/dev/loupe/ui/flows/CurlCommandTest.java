package dev.loupe.ui.flows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * "Copy as cURL" checked by running the command: real requests through the proxy are captured,
 * the generated command is run by bash and real curl against the origin, and the origin must see
 * the same body (SHA-256) and header fields.
 */
class CurlCommandTest {
  private ProxyFixture proxy;
  private TestOrigin origin;

  @BeforeEach
  void start() throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
  }

  @AfterEach
  void stop() {
    proxy.close();
    origin.close();
  }

  @Test
  void binaryPostIsResentByteForByte() throws Exception {
    byte[] body = new byte[70_000];
    new Random(7).nextBytes(body);
    body[0] = '@'; // curl's "read from file" marker must not be taken literally
    body[1] = '\'';
    body[2] = 0; // a shell string cannot hold NUL
    body[3] = '%';
    Flow f = capture(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256"))
        .header("Content-Type", "application/octet-stream")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)) + " " + body.length;

    String cmd = CurlCommand.of(f);
    assertThat(cmd).startsWith("printf '").contains(" | curl ").endsWith("--data-binary @-");
    assertThat(run(cmd).trim()).isEqualTo(expected);
  }

  @Test
  void textBodyQuotesAndHeaderFieldsSurvive() throws Exception {
    String text = "{\"name\": \"O'Brien\", \"note\": \"tab\\there\"}\nline two ünïcødé";
    Flow f = capture(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256?q=a%20b&x='y'"))
        .header("Content-Type", "application/json")
        .header("X-Quote", "it's \"quoted\" $HOME `date`")
        .PUT(HttpRequest.BodyPublishers.ofString(text)).build());
    String cmd = CurlCommand.of(f);
    assertThat(cmd).contains("-X 'PUT'").contains("--data-binary '{");
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)) + " " + bytes.length;
    assertThat(run(cmd).trim()).isEqualTo(expected);
    TestOrigin.Seen seen = origin.seen().get(origin.seen().size() - 1);
    assertThat(seen.method()).isEqualTo("PUT");
    assertThat(seen.uri()).isEqualTo("/sha256?q=a%20b&x='y'");
    assertThat(seen.headers().get("X-Quote")).isEqualTo("it's \"quoted\" $HOME `date`");
    assertThat(seen.headers().get("Content-Type")).isEqualTo("application/json");
    assertThat(seen.headers().get("User-Agent")).as("the client's own User-Agent, not curl's")
        .isEqualTo(f.request().headers().get("user-agent"));
  }

  @Test
  void getWithoutBodyAndHeadUseTheirMethods() throws Exception {
    Flow get = capture(HttpRequest.newBuilder(URI.create(origin.url() + "/headers")).header("X-A", "1").build());
    assertThat(CurlCommand.of(get)).doesNotContain("-X").doesNotContain("--data");
    assertThat(run(CurlCommand.of(get))).contains("x-a: 1");
    Flow head = capture(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/10"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
    assertThat(CurlCommand.of(head)).contains("--head");
    assertThat(run(CurlCommand.of(head))).contains("200");
  }

  private Flow capture(HttpRequest request) throws Exception {
    int before = proxy.store().size();
    HttpResponse<byte[]> r = proxy.client().send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> proxy.store().size() > before
        && proxy.store().snapshot().get(proxy.store().size() - 1).state() != dev.loupe.engine.flow.FlowState.IN_FLIGHT);
    return proxy.store().snapshot().get(proxy.store().size() - 1);
  }

  /** Runs {@code cmd} in bash (as a user pasting it would); returns stdout, fails on a non-zero exit. */
  private static String run(String cmd) throws Exception {
    Process p = new ProcessBuilder("bash").redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write((cmd + " --silent --show-error --max-time 20\n").getBytes(StandardCharsets.UTF_8));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("curl said: %s", text).isZero();
    return text;
  }
}
