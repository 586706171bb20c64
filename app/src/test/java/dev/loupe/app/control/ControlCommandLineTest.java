package dev.loupe.app.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.app.CliRun;
import dev.loupe.testing.TestOrigin;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The options around the control API: {@code --control}, {@code --control-token-file},
 * {@code --rules} and {@code --pause-timeout}. Bad values exit 2 naming the problem (in-process,
 * before anything starts); good ones are checked on a real headless run in its own JVM.
 */
@Timeout(120)
class ControlCommandLineTest {
  @TempDir Path tmp;

  private CliRun run(String... args) {
    return CliRun.of(args);
  }

  private String conf() {
    return tmp.resolve("conf").toString();
  }

  @Test
  void controlMustBeLoopbackUnlessAllowRemote() {
    CliRun r = run("--headless", "--listen", "127.0.0.1:0", "--control", "0.0.0.0:0", "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --control 0.0.0.0:0 is not a loopback address").contains("--allow-remote");
    assertThat(r.err().lines().count()).isEqualTo(1);
    r = run("--headless", "--listen", "127.0.0.1:0", "--control", "nonsense", "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --control: ");
    assertThat(tmp.resolve("conf")).as("nothing was created").doesNotExist();
  }

  @Test
  void tokenFileGoesWithControlAndMustHoldAToken() throws Exception {
    Path shortToken = Files.writeString(tmp.resolve("short-token"), "abc\n");
    CliRun r = run("--headless", "--listen", "127.0.0.1:0", "--control-token-file", shortToken.toString(),
        "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --control-token-file goes with --control");
    r = run("--headless", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--control-token-file",
        shortToken.toString(), "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --control-token-file: " + shortToken).contains("at least 16");
  }

  @Test
  void aBadRulesFileIsAUsageErrorNamingTheProblem() throws Exception {
    Path notJson = Files.writeString(tmp.resolve("not.json"), "{ rules: ");
    CliRun r = run("--headless", "--listen", "127.0.0.1:0", "--rules", notJson.toString(), "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --rules: " + notJson + ": not valid JSON");

    Path badFilter = Files.writeString(tmp.resolve("bad-filter.json"), """
        [{"name": "broken", "filter": "~d (", "action": {"type": "block"}}]""");
    r = run("--headless", "--listen", "127.0.0.1:0", "--rules", badFilter.toString(), "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --rules: " + badFilter + ": \"broken\": bad filter");

    Path badAction = Files.writeString(tmp.resolve("bad-action.json"), """
        [{"name": "slow", "action": {"type": "throttle", "bytesPerSecond": 10}}]""");
    r = run("--headless", "--listen", "127.0.0.1:0", "--rules", badAction.toString(), "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("\"slow\"").contains("at least 64 bytes/s");

    Path object = Files.writeString(tmp.resolve("object.json"), "{}");
    r = run("--headless", "--listen", "127.0.0.1:0", "--rules", object.toString(), "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("must be a JSON array");

    r = run("--headless", "--listen", "127.0.0.1:0", "--rules", tmp.resolve("missing.json").toString(),
        "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --rules: cannot read " + tmp.resolve("missing.json"));

    Path fine = Files.writeString(tmp.resolve("fine.json"), "[]");
    r = run("--listen", "127.0.0.1:0", "--rules", fine.toString(), "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --rules is for --headless");
    assertThat(tmp.resolve("conf").resolve("ca-cert.pem")).as("nothing was created").doesNotExist();
  }

  @Test
  void pauseTimeoutIsZeroOrPositive() {
    CliRun r = run("--headless", "--listen", "127.0.0.1:0", "--pause-timeout", "-1", "--confdir", conf());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --pause-timeout");
    assertThat(run("--headless", "--pause-timeout", "soon").code()).isEqualTo(2);
  }

  @Test
  void helpListsTheOptions() {
    assertThat(run("--help").out()).contains("--control", "--control-token-file", "--rules", "--pause-timeout");
  }

  /**
   * A real run with all four: the API takes the token from the file, the rules from {@code --rules}
   * apply to traffic, and a flow left paused is resumed unchanged after {@code --pause-timeout} (2 s).
   */
  @Test
  void headlessRunWithTokenFileRulesAndPauseTimeout() throws Exception {
    String token = "my-own-token-0123456789";
    Path tokenFile = Files.writeString(tmp.resolve("token"), token + "\n");
    String rules = """
        [ {"id": "from-file", "name": "from the rules file", "enabled": true, "filter": "~u /headers",
           "action": {"type": "rewrite", "ops": [
             {"side": "REQUEST", "kind": "ADD_HEADER", "match": "X-From-File", "value": "1"}]}} ]""";
    Path rulesFile = Files.writeString(tmp.resolve("rules.json"), rules);
    try (TestOrigin origin = TestOrigin.http();
         LoupeJvm loupe = LoupeJvm.start("--headless", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
             "--control-token-file", tokenFile.toString(), "--rules", rulesFile.toString(),
             "--pause-timeout", "2", "--confdir", conf())) {
      int proxyPort = loupe.proxyPort();
      Matcher control = loupe.controlLine();
      assertThat(control.group(2)).isEqualTo(token);
      assertThat(Files.readString(tmp.resolve("conf").resolve("control-token")).strip()).isEqualTo(token);
      ControlClient api = new ControlClient(control.group(1), token);
      assertThat(api.get("/rules").json()).isEqualTo(ControlClient.JSON.readTree(rules));
      assertThat(api.get("/").json().get("pauseTimeoutSeconds").asInt()).isEqualTo(2);

      HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
          .version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/headers"))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.body()).contains("x-from-file: 1");

      assertThat(api.post("/breakpoints", Map.of("filter", "~u /status/200", "request", true, "response", false,
          "enabled", true)).status()).isEqualTo(201);
      long start = System.nanoTime();
      CompletableFuture<HttpResponse<String>> paused = client.sendAsync(HttpRequest.newBuilder(
          URI.create(origin.url() + "/status/200")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      Awaitility.await("paused").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
          .until(() -> api.get("/paused").json().size() == 1);
      assertThat(paused).isNotDone();
      HttpResponse<String> released = paused.get(20, TimeUnit.SECONDS);
      assertThat(released.statusCode()).isEqualTo(200);
      assertThat(released.body()).isEqualTo("status 200");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1950));
      JsonNode flow = api.get("/flows?filter=" + java.net.URLEncoder.encode("~u /status/200", "UTF-8")).json().get(0);
      assertThat(flow.get("modifiedBy").toString()).contains("timed out");
      assertThat(api.get("/paused").json()).isEmpty();
      List<String> stderr = loupe.stderr();
      assertThat(stderr).noneMatch(l -> l.contains("LEAK"));
    }
  }
}
