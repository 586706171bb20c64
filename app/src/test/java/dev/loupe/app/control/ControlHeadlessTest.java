package dev.loupe.app.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loupe --headless --control 127.0.0.1:0} in its own JVM, driven over the control API the way
 * a script would, with real traffic through the proxy to a real origin: breakpoints pause requests
 * (resumed with an edited body, aborted, answered), rules rewrite traffic, flows are replayed and
 * composed.
 */
@Timeout(180)
class ControlHeadlessTest {
  @TempDir static Path tmp;
  static TestOrigin origin;
  static LoupeJvm loupe;
  static ControlClient api;
  static HttpClient client;
  static Path tokenFile;
  static String token;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
    loupe = LoupeJvm.start("--headless", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
        "--confdir", tmp.resolve("conf").toString());
    int proxyPort = loupe.proxyPort();
    Matcher control = loupe.controlLine();
    token = control.group(2);
    tokenFile = Path.of(control.group(3));
    api = new ControlClient(control.group(1), token);
    client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", proxyPort)))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  @AfterAll
  static void stop() throws Exception {
    if (loupe != null) {
      loupe.close();
      assertThat(loupe.stderr()).noneMatch(l -> l.contains("LEAK"));
    }
    if (origin != null) {
      origin.close();
    }
  }

  @BeforeEach
  void clean() {
    assertThat(api.put("/breakpoints", "[]").status()).isEqualTo(200);
    assertThat(api.put("/rules", "[]").status()).isEqualTo(200);
  }

  @Test
  void theTokenIsRandomPrintedAndInAnOwnerOnlyFile() throws Exception {
    assertThat(token).hasSize(43);
    assertThat(tokenFile).isEqualTo(tmp.resolve("conf").resolve("control-token"));
    assertThat(Files.readString(tokenFile).strip()).isEqualTo(token);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile))).isEqualTo("rw-------");
    ControlClient.Reply r = api.withToken(null).get("/flows");
    assertThat(r.status()).isEqualTo(401);
    assertThat(r.json().get("error").asText()).contains("token");
    assertThat(api.withToken("x".repeat(43)).get("/paused").status()).isEqualTo(401);
    assertThat(api.get("/").json().get("proxy").asText()).startsWith("127.0.0.1:");
  }

  @Test
  void aBreakpointPausesARequestThatResumesWithAnEditedBody() throws Exception {
    setBreakpoint("~u /sha256\\?edit");
    String original = "the client's body";
    CompletableFuture<HttpResponse<String>> response = post("/sha256?edit", original);
    JsonNode paused = awaitPaused("/sha256?edit");
    assertThat(paused.get("phase").asText()).isEqualTo("request");
    assertThat(paused.get("request").get("body").asText()).isEqualTo(original);
    assertThat(paused.get("flow").get("paused").asText()).isEqualTo("request");
    long id = paused.get("flowId").asLong();
    assertThat(api.get("/flows/" + id).json().get("paused").asText()).isEqualTo("request");
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("edit"));

    String edited = "edited through the control API, longer than the original";
    ControlClient.Reply resumed = api.post("/paused/" + id + "/resume", Map.of("body", edited,
        "headers", List.of(List.of("Content-Type", "text/plain"), List.of("X-Edited", "yes"))));
    assertThat(resumed.status()).as(resumed.toString()).isEqualTo(200);

    HttpResponse<String> r = response.get(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    byte[] sent = edited.getBytes(StandardCharsets.UTF_8);
    assertThat(r.body()).as("the origin got the edited bytes").isEqualTo(TestData.sha256(sent) + " " + sent.length);
    assertThat(origin.awaitSeen("/sha256?edit").headers().get("X-Edited")).isEqualTo("yes");

    JsonNode flow = awaitComplete(id);
    assertThat(flow.get("tier").asText()).isEqualTo("full");
    assertThat(flow.get("modifiedBy").toString()).contains("breakpoint: request edited");
    assertThat(flow.get("request").get("body").asText()).isEqualTo(edited);
    assertThat(flow.get("originalRequest").get("body").asText()).isEqualTo(original);
    assertThat(api.post("/paused/" + id + "/resume", null).status()).as("released already").isEqualTo(404);
  }

  @Test
  void abortGivesTheClientAnErrorAndTheOriginNothing() throws Exception {
    setBreakpoint("~u /sha256\\?abort");
    CompletableFuture<HttpResponse<String>> response = post("/sha256?abort", "never sent");
    long id = awaitPaused("/sha256?abort").get("flowId").asLong();
    assertThat(api.post("/paused/" + id + "/abort", null).status()).isEqualTo(200);
    assertThatThrownBy(() -> response.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IOException.class);
    assertThat(awaitComplete(id).get("modifiedBy").toString()).contains("breakpoint: aborted");
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("abort"));
  }

  @Test
  void answerRespondsWithoutTheOrigin() throws Exception {
    setBreakpoint("~u /sha256\\?answer");
    CompletableFuture<HttpResponse<String>> response = post("/sha256?answer", "question");
    long id = awaitPaused("/sha256?answer").get("flowId").asLong();
    ControlClient.Reply answered = api.post("/paused/" + id + "/answer", Map.of("status", 418,
        "headers", Map.of("Content-Type", "text/plain", "X-Answer", List.of("1", "2")), "body", "answered by the API\n"));
    assertThat(answered.status()).as(answered.toString()).isEqualTo(200);
    HttpResponse<String> r = response.get(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(418);
    assertThat(r.body()).isEqualTo("answered by the API\n");
    assertThat(r.headers().allValues("X-Answer")).containsExactly("1", "2");
    JsonNode flow = awaitComplete(id);
    assertThat(flow.get("status").asInt()).isEqualTo(418);
    assertThat(flow.get("modifiedBy").toString()).contains("breakpoint: answered");
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("answer"));
  }

  @Test
  void aResponseBreakpointEditsTheResponse() throws Exception {
    ControlClient.Reply bp = api.post("/breakpoints", Map.of("filter", "~u /status/201", "request", false,
        "response", true, "enabled", true));
    assertThat(bp.status()).as(bp.toString()).isEqualTo(201);
    CompletableFuture<HttpResponse<String>> response = client.sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/status/201")).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode paused = awaitPaused("/status/201");
    assertThat(paused.get("phase").asText()).isEqualTo("response");
    assertThat(paused.get("response").get("status").asInt()).isEqualTo(201);
    assertThat(paused.get("response").get("body").asText()).isEqualTo("status 201");
    long id = paused.get("flowId").asLong();
    assertThat(api.post("/paused/" + id + "/resume", Map.of("status", 202, "body", "changed by the API"))
        .status()).isEqualTo(200);
    HttpResponse<String> r = response.get(30, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(202);
    assertThat(r.body()).isEqualTo("changed by the API");
    JsonNode flow = awaitComplete(id);
    assertThat(flow.get("originalResponse").get("status").asInt()).isEqualTo(201);
    assertThat(flow.get("modifiedBy").toString()).contains("breakpoint: response edited");
  }

  @Test
  void badResumeInputIsRefusedAndTheFlowStaysPaused() throws Exception {
    setBreakpoint("~u /sha256\\?bad");
    CompletableFuture<HttpResponse<String>> response = post("/sha256?bad", "body");
    long id = awaitPaused("/sha256?bad").get("flowId").asLong();
    ControlClient.Reply r = api.post("/paused/" + id + "/resume", Map.of("url", "ftp://nowhere/"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("http://");
    r = api.post("/paused/" + id + "/resume", Map.of("bdy", "typo"));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("\"bdy\"");
    r = api.post("/paused/" + id + "/resume", Map.of("headers", List.of(List.of("Bad Name", "x"))));
    assertThat(r.status()).isEqualTo(400);
    assertThat(api.get("/paused/" + id).status()).isEqualTo(200);
    assertThat(api.post("/paused/" + id + "/resume", null).status()).isEqualTo(200);
    assertThat(response.get(30, TimeUnit.SECONDS).body()).isEqualTo(TestData.sha256("body".getBytes()) + " 4");
  }

  @Test
  void rulesSetThroughTheApiRewriteTraffic() throws Exception {
    String rules = """
        [{"id": "tag", "name": "tag requests", "enabled": true, "filter": "~u /headers",
          "action": {"type": "rewrite", "ops": [
            {"side": "REQUEST", "kind": "SET_HEADER", "match": "X-Loupe-Rule", "value": "applied"},
            {"side": "RESPONSE", "kind": "REPLACE_BODY", "match": "x-loupe-rule: applied", "value": "REWRITTEN"}]}}]""";
    ControlClient.Reply put = api.put("/rules", rules);
    assertThat(put.status()).as(put.toString()).isEqualTo(200);
    assertThat(api.get("/rules").json()).isEqualTo(put.json()).isEqualTo(ControlClient.JSON.readTree(rules));
    assertThat(api.get("/rules").json().get(0).get("action").get("ops").get(0).get("match").asText())
        .isEqualTo("X-Loupe-Rule");

    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/headers?rule"))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(origin.awaitSeen("/headers?rule").headers().get("X-Loupe-Rule")).isEqualTo("applied");
    assertThat(r.body()).contains("REWRITTEN").doesNotContain("x-loupe-rule");
    JsonNode flows = api.get("/flows?filter=" + enc("~u /headers\\?rule")).json();
    assertThat(flows).hasSize(1);
    assertThat(flows.get(0).get("modifiedBy").toString()).contains("tag requests");
    assertThat(flows.get(0).get("tier").asText()).isEqualTo("full");

    assertThat(api.post("/rules/tag/enable", Map.of("enabled", false)).status()).isEqualTo(200);
    r = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/headers?off"))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.body()).doesNotContain("REWRITTEN");
    assertThat(api.get("/flows?filter=" + enc("~u /headers\\?off")).json().get(0).get("tier").asText())
        .as("nothing wants it: relay tier").isEqualTo("relay");
  }

  @Test
  void replayAndComposeThroughTheApi() throws Exception {
    byte[] body = "replay me".getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> first = post("/sha256?replay", "replay me").get(30, TimeUnit.SECONDS);
    assertThat(first.body()).isEqualTo(TestData.sha256(body) + " " + body.length);
    JsonNode listed = api.get("/flows?filter=" + enc("~u /sha256\\?replay")).json();
    assertThat(listed).hasSize(1);
    long id = listed.get(0).get("id").asLong();

    ControlClient.Reply replay = api.post("/flows/" + id + "/replay?wait=true", Map.of("protocol", "h1"));
    assertThat(replay.status()).as(replay.toString()).isEqualTo(200);
    JsonNode replayed = replay.json();
    assertThat(replayed.get("replayOf").asLong()).isEqualTo(id);
    assertThat(replayed.get("status").asInt()).isEqualTo(200);
    assertThat(replayed.get("id").asLong()).isNotEqualTo(id);
    assertThat(api.get("/flows/" + replayed.get("id").asLong()).json().get("response").get("body").asText())
        .isEqualTo(first.body());
    assertThat(origin.seen().stream().filter(s -> s.uri().equals("/sha256?replay"))).hasSize(2);

    // without wait: the new flow's id comes back at once; it completes on its own
    ControlClient.Reply composed = api.post("/compose", Map.of("method", "POST",
        "url", origin.url() + "/sha256?composed", "body", "composed", "protocol", "auto"));
    assertThat(composed.status()).as(composed.toString()).isIn(200, 202);
    long composedId = composed.json().get("id").asLong();
    assertThat(composed.json().get("replayOf").isNull()).isTrue();
    JsonNode done = awaitComplete(composedId);
    assertThat(done.get("response").get("body").asText())
        .isEqualTo(TestData.sha256("composed".getBytes(StandardCharsets.UTF_8)) + " 8");
    assertThat(done.get("request").get("method").asText()).isEqualTo("POST");

    assertThat(api.post("/compose", Map.of("url", "gopher://x/")).status()).isEqualTo(400);
    assertThat(api.post("/flows/" + id + "/replay", Map.of("protocol", "h9")).status()).isEqualTo(400);
  }

  // ---- helpers ----

  private static void setBreakpoint(String filter) {
    ControlClient.Reply r = api.put("/breakpoints", List.of(Map.of("filter", filter, "request", true,
        "response", false, "enabled", true)));
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
  }

  private static CompletableFuture<HttpResponse<String>> post(String pathAndQuery, String body) {
    return client.sendAsync(HttpRequest.newBuilder(URI.create(origin.url() + pathAndQuery))
        .timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The paused flow whose URL contains {@code urlPart}, once it shows up in GET /paused. */
  private static JsonNode awaitPaused(String urlPart) {
    JsonNode[] found = new JsonNode[1];
    Awaitility.await("paused " + urlPart).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> {
          for (JsonNode p : api.get("/paused").json()) {
            if (p.get("request").get("url").asText().contains(urlPart)) {
              found[0] = p;
              return true;
            }
          }
          return false;
        });
    return found[0];
  }

  private static JsonNode awaitComplete(long id) {
    JsonNode[] found = new JsonNode[1];
    Awaitility.await("flow " + id + " complete").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
        .until(() -> {
          found[0] = api.get("/flows/" + id).json();
          return !found[0].get("state").asText().equals("in_flight");
        });
    return found[0];
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
