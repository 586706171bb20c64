package dev.loupe.plugins.flowlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.spi.Plugin;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flow-log plugin on a real proxy: a JSON line per finished flow (answered and failed), valid
 * JSON read back with Jackson, the file the owner's only, and every flow left on the relay tier.
 */
@Timeout(120)
class FlowLogPluginTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static TestOrigin origin;

  @TempDir
  Path dir;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
  }

  @AfterAll
  static void stop() {
    origin.close();
  }

  @Test
  void isFoundByServiceLoader() {
    assertThat(ServiceLoader.load(Plugin.class).stream().map(ServiceLoader.Provider::type))
        .contains(FlowLogPlugin.class);
  }

  @Test
  void writesAJsonLinePerFinishedFlowAndKeepsTheRelayTier() throws Exception {
    Path file = dir.resolve("logs/flows.jsonl");
    try (ProxyFixture p = ProxyFixture.start()) {
      p.engine().plugins().add(new FlowLogPlugin(), "test", Map.of("path", file.toString()));
      HttpRequest post = HttpRequest.newBuilder(URI.create(origin.url() + "/sha256?t=post"))
          .header("X-Quote", "a \"quoted\" \\ value")
          .POST(HttpRequest.BodyPublishers.ofString("hello")).build();
      assertThat(p.client().send(post, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      HttpRequest get = HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/1000?t=get")).build();
      assertThat(p.client().send(get, HttpResponse.BodyHandlers.ofByteArray()).body()).hasSize(1000);
      HttpRequest fails = HttpRequest.newBuilder(URI.create("http://127.0.0.1:1/nothing-listens?t=fail")).build();
      assertThat(p.client().send(fails, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(502);

      List<JsonNode> lines = awaitLines(file, 3);
      JsonNode postLine = find(lines, "t=post");
      assertThat(postLine.get("method").asText()).isEqualTo("POST");
      assertThat(postLine.get("status").asInt()).isEqualTo(200);
      assertThat(postLine.get("requestBodyBytes").asLong()).isEqualTo(5);
      assertThat(postLine.get("tier").asText()).isEqualTo("relay");
      assertThat(postLine.get("error").isNull()).isTrue();
      assertThat(postLine.get("requestHeaders").toString()).contains("[\"X-Quote\",\"a \\\"quoted\\\" \\\\ value\"]");
      assertThat(find(lines, "t=get").get("responseBodyBytes").asLong()).isEqualTo(1000);
      JsonNode failLine = find(lines, "t=fail");
      assertThat(failLine.get("error").get("kind").asText()).isNotEmpty();
      assertThat(failLine.get("status").isNull() || failLine.get("status").asInt() == 502).isTrue();
      assertThat(lines).extracting(l -> l.get("id").asLong()).doesNotHaveDuplicates();

      assertThat(p.awaitFlow("t=post").tier()).isEqualTo(FlowTier.RELAY);
      assertThat(p.awaitFlow("t=get").tier()).isEqualTo(FlowTier.RELAY);
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    }
  }

  @Test
  void withoutHeadersTheLinesLeaveThemOut() throws Exception {
    Path file = dir.resolve("flows.jsonl");
    try (ProxyFixture p = ProxyFixture.start()) {
      p.engine().plugins().add(new FlowLogPlugin(), "test", Map.of("path", file.toString(), "headers", "false"));
      HttpRequest get = HttpRequest.newBuilder(URI.create(origin.url() + "/status/204?t=noheaders")).build();
      assertThat(p.client().send(get, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(204);
      JsonNode line = awaitLines(file, 1).get(0);
      assertThat(line.has("requestHeaders")).isFalse();
      assertThat(line.get("status").asInt()).isEqualTo(204);
    }
  }

  @Test
  void escapesControlCharacters() {
    StringBuilder sb = new StringBuilder();
    FlowJson.string(sb, "a\u0001b\nc\u2028");
    assertThat(sb.toString()).isEqualTo("\"a\\u0001b\\nc\\u2028\"");
  }

  private static JsonNode find(List<JsonNode> lines, String urlPart) {
    return lines.stream().filter(l -> l.get("url").asText().contains(urlPart)).findFirst()
        .orElseThrow(() -> new AssertionError("no line for " + urlPart + " in " + lines));
  }

  private static List<JsonNode> awaitLines(Path file, int n) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      List<JsonNode> out = new ArrayList<>();
      if (Files.exists(file)) {
        for (String l : Files.readAllLines(file)) {
          out.add(JSON.readTree(l));
        }
      }
      if (out.size() >= n || System.nanoTime() > deadline) {
        assertThat(out).hasSize(n);
        return out;
      }
      Thread.sleep(20);
    }
  }
}
