package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two real captures of a real local origin through a real headless Loupe ({@code --session}, and
 * {@code --har} for the first), the origin changed in between (a status, a header, a body; one path
 * gone, one new; a query that changes every run), then {@code loupe diff} on them as a user runs it:
 * Markdown and JSON, the matching options, session against HAR, and the exit codes (0, 1, 2).
 */
@Timeout(300)
class SessionDiffEndToEndTest {
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b");

  @TempDir Path tmp;

  /** The origin's behaviour: generation 1 or 2. */
  private final AtomicInteger generation = new AtomicInteger(1);

  private HttpServer origin() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::answer);
    server.start();
    return server;
  }

  private void answer(HttpExchange x) throws IOException {
    int gen = generation.get();
    String path = x.getRequestURI().getPath();
    int status = 200;
    byte[] body;
    x.getResponseHeaders().set("Content-Type", "text/plain");
    switch (path) {
      case "/stable" -> body = "the same every time".getBytes(StandardCharsets.UTF_8);
      case "/status" -> {
        status = gen == 1 ? 200 : 503;
        body = "status".getBytes(StandardCharsets.UTF_8);
      }
      case "/header" -> {
        x.getResponseHeaders().set("X-Version", Integer.toString(gen));
        body = "header".getBytes(StandardCharsets.UTF_8);
      }
      case "/body" -> {
        // gzip on the wire; the diff compares what it decodes to
        x.getResponseHeaders().set("Content-Encoding", "gzip");
        body = gzip(("{\"price\": " + (gen == 1 ? "10" : "12") + "}").getBytes(StandardCharsets.UTF_8));
      }
      default -> {
        body = ("page " + path).getBytes(StandardCharsets.UTF_8);
      }
    }
    x.sendResponseHeaders(status, body.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(body);
    }
  }

  private static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  /** Captures {@code paths} of the origin through a headless Loupe recording into {@code session}. */
  private void capture(HttpServer origin, Path session, Path har, List<String> paths) throws Exception {
    List<String> args = new ArrayList<>(List.of("--headless", "--listen", "127.0.0.1:0", "--confdir",
        tmp.resolve("conf").toString(), "--session", session.toString()));
    if (har != null) {
      args.addAll(List.of("--har", har.toString()));
    }
    try (LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), args)) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, Duration.ofSeconds(60)).group(1));
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).build();
      String base = "http://127.0.0.1:" + origin.getAddress().getPort();
      for (String p : paths) {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(base + p)).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isIn(200, 503);
        loupe.awaitLine(Pattern.compile(Pattern.quote(base + p)), Duration.ofSeconds(30));
      }
      loupe.terminate();
      loupe.awaitExit(Duration.ofSeconds(60)); // 143: ended by SIGTERM, as a JVM does
      assertThat(loupe.stderr()).anyMatch(l -> l.contains("session saved to " + session));
    }
  }

  private static LoupeProcess.Result diff(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("diff"));
    all.addAll(List.of(args));
    return LoupeProcess.run(Duration.ofSeconds(120), all.toArray(String[]::new));
  }

  @Test
  void diffOfTwoRealCapturesFindsTheChangedFlows() throws Exception {
    Path a = tmp.resolve("before.loupe");
    Path aHar = tmp.resolve("before.har");
    Path b = tmp.resolve("after.loupe");
    HttpServer origin = origin();
    try {
      capture(origin, a, aHar, List.of("/stable", "/status", "/header", "/body", "/search?t=1", "/only-before"));
      generation.set(2);
      capture(origin, b, null, List.of("/stable", "/status", "/header", "/body", "/search?t=2", "/only-after"));
    } finally {
      origin.stop(0);
    }
    String base = "http://127.0.0.1:" + origin.getAddress().getPort();

    // Markdown (the default): exit 1, each change named
    LoupeProcess.Result md = diff(a.toString(), b.toString());
    assertThat(md.exitCode()).as(String.join("\n", md.stderr())).isEqualTo(1);
    String text = String.join("\n", md.stdout());
    assertThat(text).startsWith("# Session diff").contains(
        "| Changed | 3 |", "| Removed (only in A) | 2 |", "| Added (only in B) | 2 |", "| Unchanged | 1 |",
        "`GET " + base + "/status` — #", "- status: `200` → `503`",
        "- response header `x-version`: `1` → `2`",
        "- response body: `sha256 ");
    assertThat(text).contains("| GET | " + base + "/only-before | 200 |", "| GET | " + base + "/search?t=1 | 200 |",
        "| GET | " + base + "/only-after | 200 |");
    assertThat(text).as("the Date headers differ but are not compared").doesNotContain("`date`");

    // JSON, query ignored: /search pairs up and is the same
    LoupeProcess.Result json = diff("--json", "--ignore-query", a.toString(), b.toString());
    assertThat(json.exitCode()).isEqualTo(1);
    JsonNode root = new ObjectMapper().readTree(String.join("\n", json.stdout()));
    assertThat(root.path("summary").path("changed").asInt()).isEqualTo(3);
    assertThat(root.path("summary").path("unchanged").asInt()).isEqualTo(2);
    assertThat(root.path("summary").path("removed").asInt()).isEqualTo(1);
    assertThat(root.path("summary").path("added").asInt()).isEqualTo(1);
    List<String> changedUrls = new ArrayList<>();
    for (JsonNode e : root.path("entries")) {
      if (e.path("kind").asText().equals("changed")) {
        changedUrls.add(e.path("a").path("url").asText());
        assertThat(e.path("timingDeltaMs").isNumber()).isTrue();
      }
    }
    assertThat(changedUrls).containsExactlyInAnyOrder(base + "/status", base + "/header", base + "/body");
    JsonNode body = null;
    for (JsonNode e : root.path("entries")) {
      if (e.path("a").path("url").asText().endsWith("/body")) {
        body = e;
      }
    }
    assertThat(body.path("changes")).hasSize(1);
    assertThat(body.path("changes").get(0).path("aspect").asText()).isEqualTo("responseBody");
    assertThat(body.path("changes").get(0).path("before").asText()).endsWith("(13 bytes)"); // {"price": 10}, decoded

    // by path: the origin is the same host here, so the same lines
    assertThat(diff("--json", "--by-path", a.toString(), b.toString()).exitCode()).isEqualTo(1);

    // a capture against itself, and against its own HAR: exit 0
    LoupeProcess.Result same = diff(a.toString(), a.toString());
    assertThat(same.exitCode()).isZero();
    assertThat(String.join("\n", same.stdout())).contains("No differences.");
    LoupeProcess.Result viaHar = diff(a.toString(), aHar.toString());
    assertThat(viaHar.exitCode()).as(String.join("\n", viaHar.stdout()) + String.join("\n", viaHar.stderr())).isZero();
    // the HAR against the other session: the same differences
    LoupeProcess.Result harVsSession = diff("--json", aHar.toString(), b.toString());
    assertThat(harVsSession.exitCode()).isEqualTo(1);
    assertThat(new ObjectMapper().readTree(String.join("\n", harVsSession.stdout())).path("summary"))
        .isEqualTo(new ObjectMapper().readTree(String.join("\n", diff("--json", a.toString(), b.toString()).stdout()))
            .path("summary"));

    // trouble: exit 2 with the file named
    Path missing = tmp.resolve("nope.loupe");
    LoupeProcess.Result gone = diff(a.toString(), missing.toString());
    assertThat(gone.exitCode()).isEqualTo(2);
    assertThat(gone.stderr()).containsExactly("loupe: diff: " + missing + ": no such file");
    Path cut = tmp.resolve("cut.loupe");
    byte[] bytes = Files.readAllBytes(a);
    Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length / 2));
    LoupeProcess.Result damaged = diff(cut.toString(), b.toString());
    assertThat(damaged.exitCode()).isEqualTo(2);
    assertThat(String.join("\n", damaged.stderr())).contains(cut.toString());
    assertThat(damaged.stdout()).isEmpty();
  }
}
