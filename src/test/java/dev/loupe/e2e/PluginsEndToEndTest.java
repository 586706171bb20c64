package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14's plugins, end to end: the real headless Loupe (the packaged jar when the build made
 * one, see {@link LoupeProcess#startPackaged}) in reverse mode with a {@code --confdir} whose
 * {@code plugins/} holds the example jars as built ({@link PluginJars}) and whose {@code scripts/}
 * holds single-file scripts; real traffic over HTTP/1.1 and HTTP/2 (JDK HttpClient, TLS, ALPN) and
 * HTTP/3 ({@link Http3TestClient}, QUIC), to a real HTTP/1.1 origin that records what it got.
 *
 * <ul>
 *   <li>add-header (options from settings.json): the header arrives at the origin on the flows its
 *       filter matches, which take the full tier; other flows stay on the relay tier;
 *   <li>flow-log: a JSON line per finished flow, with its tier and its notes;
 *   <li>jwt-view: loaded as a content view (its decoding is JwtViewTest's);
 *   <li>a script edited while Loupe runs changes the next flow; edited into a compile error, it keeps
 *       running its previous version and says why, once, on stderr;
 *   <li>a throwing and a hanging plugin: the flow goes on unchanged, the failure is on the flow;
 *   <li>a script that never compiled is listed (control API) with its error;
 *   <li>with only the observing plugin, every flow stays on the relay tier.
 * </ul>
 */
@Timeout(600)
class PluginsEndToEndTest {
  static final Duration START = Duration.ofSeconds(120);
  static final Duration WAIT = Duration.ofSeconds(60);
  static final String TIME = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}";
  static final String H3_NAME = "h3.loupe.test";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path tmp;
  static TestOrigin origin;

  @BeforeAll
  static void startOrigin() throws Exception {
    origin = TestOrigin.http();
  }

  @AfterAll
  static void stopOrigin() {
    origin.close();
  }

  static String stamp(String version) {
    return """
        import dev.loupe.spi.*;
        import java.util.concurrent.CompletionStage;

        /** Stamps the flows it matches with the script's version. */
        public class Stamp implements Plugin {
          public String version() { return "VERSION"; }
          public String interceptFilter() { return "~u stamp-me"; }
          public CompletionStage<?> request(RequestHook hook) {
            if (hook.editable()) { // flows outside the filter are only observed
              hook.setHeader("X-Script-Stamp", "VERSION");
            }
            return null;
          }
        }
        """.replace("VERSION", version);
  }

  static final String THROWS = """
      public class Throws implements dev.loupe.spi.Plugin {
        public String name() { return "thrower"; }
        public String interceptFilter() { return "~u throw-me"; }
        public java.util.concurrent.CompletionStage<?> request(dev.loupe.spi.RequestHook hook) {
          if (hook.editable()) {
            throw new IllegalStateException("boom from a plugin");
          }
          return null;
        }
      }
      """;

  static final String HANGS = """
      public class Hangs implements dev.loupe.spi.Plugin {
        public String name() { return "hanger"; }
        public String interceptFilter() { return "~u hang-me"; }
        public java.util.concurrent.CompletionStage<?> request(dev.loupe.spi.RequestHook hook) {
          if (!hook.editable()) {
            return null;
          }
          try {
            Thread.sleep(600_000);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return null;
        }
      }
      """;

  /** A Loupe in reverse mode to the origin; returns it with the port it listens on. */
  record Running(LoupeProcess loupe, int port, X509Certificate ca) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      loupe.terminate();
      loupe.awaitExit(Duration.ofSeconds(60));
      loupe.close();
    }
  }

  static Running start(Path conf, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--headless", "--listen", "127.0.0.1:0", "--confdir", conf.toString(),
        "--mode", "reverse:" + origin.url()));
    args.addAll(List.of(extra));
    LoupeProcess loupe = LoupeProcess.startPackaged(List.of("-Xmx256m"), args);
    try {
      int port = Integer.parseInt(loupe.awaitLine(Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+) "),
          START).group(1));
      Path caPem = Path.of(loupe.awaitLine(Pattern.compile("^CA certificate: (.+)$"), START).group(1).trim());
      X509Certificate ca;
      try (InputStream in = Files.newInputStream(caPem)) {
        ca = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
      }
      return new Running(loupe, port, ca);
    } catch (Throwable t) {
      loupe.close();
      throw t;
    }
  }

  /** GETs {@code path} over HTTP/1.1 or HTTP/2 (TLS), or HTTP/3; returns the status. */
  static int get(Running r, String protocol, String path) throws Exception {
    if (protocol.equals("h3")) {
      try (Http3TestClient c = new Http3TestClient(new InetSocketAddress("127.0.0.1", r.port()), H3_NAME, r.ca())) {
        return c.send("GET", path, H3_NAME + ":" + r.port(), 0).get(WAIT.toSeconds(), TimeUnit.SECONDS).status();
      }
    }
    HttpClient client = HttpClient.newBuilder()
        .version(protocol.equals("h2") ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1)
        .sslContext(TestPki.trusting(r.ca()))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
    HttpResponse<String> res = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + r.port() + path))
        .timeout(WAIT).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(res.version()).isEqualTo(protocol.equals("h2") ? HttpClient.Version.HTTP_2 : HttpClient.Version.HTTP_1_1);
    return res.statusCode();
  }

  /** Waits for Loupe's per-flow line for {@code path}: {@code ... 200 SIZE TIME proto/h1 TIER}. */
  static void awaitFlowLine(Running r, String path, String protocol, String tier) throws InterruptedException {
    r.loupe().awaitLine(Pattern.compile("^" + TIME + " GET " + Pattern.quote(origin.url() + path) + " 200 \\S+ \\S+ "
        + protocol + "/h1 " + tier + "$"), WAIT);
  }

  static List<JsonNode> jsonLines(Path file) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    if (Files.exists(file)) {
      for (String l : Files.readAllLines(file)) {
        out.add(JSON.readTree(l));
      }
    }
    return out;
  }

  static JsonNode awaitJsonLine(Path file, String urlPart) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      for (JsonNode n : jsonLines(file)) {
        if (n.get("url").asText().contains(urlPart)) {
          return n;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no JSON line for " + urlPart + " in " + jsonLines(file));
      }
      Thread.sleep(50);
    }
  }

  static void await(String what, BooleanSupplier ok) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!ok.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(50);
    }
  }

  @Test
  void examplePluginsScriptsAndFaultsOverHttp1Http2AndHttp3() throws Exception {
    Path conf = tmp.resolve("all");
    for (String name : PluginJars.EXAMPLES) {
      PluginJars.copyInto(name, conf.resolve("plugins"));
    }
    Path flows = conf.resolve("flows.jsonl");
    Files.writeString(conf.resolve("settings.json"), """
        {"plugins": {
          "add-header": {"header": "X-Loupe-Plugin: added by a plugin", "filter": "~u add-me"},
          "flow-log": {"path": "FLOWS"}}}
        """.replace("FLOWS", flows.toString()));
    Path scripts = Files.createDirectories(conf.resolve("scripts"));
    Path stamp = scripts.resolve("Stamp.java");
    Files.writeString(stamp, stamp("v1"));
    Files.writeString(scripts.resolve("Throws.java"), THROWS);
    Files.writeString(scripts.resolve("Hangs.java"), HANGS);
    Files.writeString(scripts.resolve("Broken.java"), "public class Broken implements dev.loupe.spi.Plugin { int x = ; }");

    try (Running r = start(conf, "--plugin-timeout", "2", "--control", "127.0.0.1:0")) {
      LoupeProcess loupe = r.loupe();
      // One line per loaded plugin at start.
      Path jars = conf.resolve("plugins").toAbsolutePath();
      loupe.awaitLine(Pattern.compile("^Plugin add-header \\S+ \\(jar:" + Pattern.quote(
          jars.resolve("loupe-plugin-add-header.jar").toString()) + "\\): hooks configure, request; changes flows"
          + " matching ~u add-me$"), START);
      loupe.awaitLine(Pattern.compile("^Plugin flow-log \\S+ \\(jar:.*loupe-plugin-flow-log\\.jar\\): hooks configure,"
          + " done, response, error; observes$"), START);
      loupe.awaitLine(Pattern.compile("^Content view JWT \\(jar:.*loupe-plugin-jwt-view\\.jar\\)$"), START);
      loupe.awaitLine(Pattern.compile("^Plugin Stamp v1 \\(script:" + Pattern.quote(stamp.toAbsolutePath().toString())
          + "\\): hooks request; changes flows matching ~u stamp-me$"), START);
      loupe.awaitLine(Pattern.compile("^Plugin Broken - \\(script:.*Broken\\.java\\): no hooks; observes; switched off;"
          + " error: Broken\\.java:1:\\d+: illegal start of expression$"), START);
      assertThat(loupe.stderr()).filteredOn(l -> l.contains("Broken.java")).singleElement().asString()
          .startsWith("loupe: script ").contains("not loaded: Broken.java:1:");

      for (String proto : List.of("h1", "h2", "h3")) {
        // add-header: the header arrives on matching flows (full tier), not on the others (relay tier).
        String added = "/headers?add-me=" + proto;
        assertThat(get(r, proto, added)).isEqualTo(200);
        assertThat(origin.awaitSeen("add-me=" + proto).headers().get("x-loupe-plugin")).isEqualTo("added by a plugin");
        awaitFlowLine(r, added, proto, "full");
        String plain = "/headers?plain=" + proto;
        assertThat(get(r, proto, plain)).isEqualTo(200);
        assertThat(origin.awaitSeen("plain=" + proto).headers().contains("x-loupe-plugin")).isFalse();
        awaitFlowLine(r, plain, proto, "relay");

        // flow-log: a JSON line per flow, with its tier.
        assertThat(awaitJsonLine(flows, "add-me=" + proto).get("tier").asText()).isEqualTo("full");
        JsonNode plainLine = awaitJsonLine(flows, "plain=" + proto);
        assertThat(plainLine.get("tier").asText()).isEqualTo("relay");
        assertThat(plainLine.get("status").asInt()).isEqualTo(200);
        assertThat(plainLine.get("clientProtocol").asText()).isNotEmpty();
        assertThat(plainLine.get("notes")).as("no plugin failed on it").isEmpty();

        // The script as it is now.
        assertThat(get(r, proto, "/headers?stamp-me=v1-" + proto)).isEqualTo(200);
        assertThat(origin.awaitSeen("stamp-me=v1-" + proto).headers().get("x-script-stamp")).isEqualTo("v1");

        // A throwing and a hanging plugin: the flow goes on unchanged; the failure is on the flow.
        assertThat(get(r, proto, "/status/200?throw-me=" + proto)).isEqualTo(200);
        assertThat(awaitJsonLine(flows, "throw-me=" + proto).get("notes").toString())
            .contains("plugin thrower, hook request: IllegalStateException (boom from a plugin)");
        long t0 = System.nanoTime();
        assertThat(get(r, proto, "/status/200?hang-me=" + proto)).isEqualTo(200);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("held no longer than the hook timeout, roughly")
            .isLessThan(Duration.ofSeconds(30));
        assertThat(awaitJsonLine(flows, "hang-me=" + proto).get("notes").toString())
            .contains("plugin hanger, hook request: TimeoutException (did not return within 2000 ms)");
      }
      assertThat(loupe.stderr()).anyMatch(l -> l.equals(
          "loupe: plugin thrower, hook request: IllegalStateException (boom from a plugin)"));

      // The script edited while Loupe runs: the next flow has the new version.
      Files.writeString(stamp, stamp("v2"));
      loupe.awaitLine(Pattern.compile("^Reloaded Plugin Stamp v2 \\(script:"), WAIT);
      for (String proto : List.of("h1", "h2", "h3")) {
        assertThat(get(r, proto, "/headers?stamp-me=v2-" + proto)).isEqualTo(200);
        assertThat(origin.awaitSeen("stamp-me=v2-" + proto).headers().get("x-script-stamp")).isEqualTo("v2");
      }
      // Edited into a compile error: one line on stderr, and v2 keeps running.
      Files.writeString(stamp, stamp("v3").replace("return null;", "return null"));
      await("the compile error on stderr", () -> loupe.stderr().stream().anyMatch(l -> l.contains("Stamp.java:")));
      assertThat(loupe.stderr()).filteredOn(l -> l.contains("Stamp.java:")).singleElement().asString()
          .contains("';' expected").endsWith("(still running the previous version)");
      assertThat(get(r, "h2", "/headers?stamp-me=broken")).isEqualTo(200);
      assertThat(origin.awaitSeen("stamp-me=broken").headers().get("x-script-stamp")).isEqualTo("v2");

      // The control API lists them all, the broken script with its error.
      Matcher control = loupe.awaitLine(Pattern.compile("^Control API on http://(\\S+) \\(token: (\\S+),"), WAIT);
      HttpResponse<String> list = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://" + control.group(1) + "/plugins"))
              .header("Authorization", "Bearer " + control.group(2)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(list.statusCode()).isEqualTo(200);
      JsonNode plugins = JSON.readTree(list.body()).get("plugins");
      List<String> names = new ArrayList<>();
      plugins.forEach(p -> names.add(p.get("name").asText()));
      assertThat(names).containsExactlyInAnyOrder("add-header", "flow-log", "Broken", "hanger", "Stamp", "thrower");
      for (JsonNode p : plugins) {
        switch (p.get("name").asText()) {
          case "Broken" -> {
            assertThat(p.get("enabled").asBoolean()).isFalse();
            assertThat(p.get("lastError").asText()).startsWith("Broken.java:1:");
          }
          case "Stamp" -> assertThat(p.get("lastError").asText()).contains("';' expected");
          case "hanger" -> assertThat(p.get("errors").asLong()).as(p.toString()).isEqualTo(3);
          case "thrower" -> assertThat(p.get("errors").asLong()).as(p.toString()).isEqualTo(3);
          default -> assertThat(p.get("errors").asLong()).as(p.toString()).isZero();
        }
      }
      assertThat(JSON.readTree(list.body()).get("contentViews").toString()).isEqualTo("[\"JWT\"]");
    }
  }

  @Test
  void withOnlyAnObservingPluginEveryFlowStaysOnTheRelayTier() throws Exception {
    Path conf = tmp.resolve("observer");
    PluginJars.copyInto("flow-log", conf.resolve("plugins"));
    Path flows = conf.resolve("observed.jsonl");
    try (Running r = start(conf, "--set", "flow-log.path=" + flows)) {
      r.loupe().awaitLine(Pattern.compile("^Plugin flow-log .*; observes$"), START);
      for (String proto : List.of("h1", "h2", "h3")) {
        for (int i = 0; i < 3; i++) {
          String path = "/bytes/" + (1000 + i) + "?observed=" + proto + i;
          assertThat(get(r, proto, path)).isEqualTo(200);
          awaitFlowLine(r, path, proto, "relay");
          JsonNode line = awaitJsonLine(flows, "observed=" + proto + i);
          assertThat(line.get("tier").asText()).isEqualTo("relay");
          assertThat(line.get("responseBodyBytes").asLong()).isEqualTo(1000 + i);
        }
      }
      assertThat(jsonLines(flows)).hasSize(9);
      assertThat(r.loupe().stdout()).noneMatch(l -> l.endsWith(" full"));
    }
  }
}
