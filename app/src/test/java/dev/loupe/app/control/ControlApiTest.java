package dev.loupe.app.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control API over real HTTP on a real {@link ControlServer}, in front of a real flow store and
 * intercept service (no proxy: the traffic side runs in {@link ControlHeadlessTest}): the token,
 * errors, and the rule and breakpoint lists.
 */
@Timeout(60)
class ControlApiTest {
  @TempDir Path tmp;
  RecordingStore store;
  InterceptService intercept;
  ControlServer server;
  ControlClient api;
  String token;

  @BeforeEach
  void start() throws Exception {
    store = new RecordingStore();
    intercept = InterceptService.create();
    Replayer none = (request, protocol, replayOf) -> {
      throw new UnsupportedOperationException("no proxy in this test");
    };
    token = ControlToken.generate();
    server = ControlServer.start(new InetSocketAddress("127.0.0.1", 0), token,
        new ControlApi(store, intercept, none, () -> "127.0.0.1:1"));
    api = new ControlClient("127.0.0.1:" + server.address().getPort(), token);
  }

  @AfterEach
  void stop() {
    server.close();
    intercept.close();
  }

  @Test
  void everyRequestNeedsTheToken() {
    for (ControlClient wrong : List.of(api.withToken(null), api.withToken("nope"), api.withToken(token + "x"))) {
      ControlClient.Reply r = wrong.get("/flows");
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.json().get("error").asText()).contains("Authorization: Bearer");
      assertThat(r.raw().headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"loupe\"");
      assertThat(wrong.put("/rules", "[]").status()).isEqualTo(401); // no change without it either
      assertThat(wrong.get("/nosuch").status()).as("401 before 404: paths are not probed").isEqualTo(401);
    }
    assertThat(api.get("/flows").status()).isEqualTo(200);
    assertThat(api.get("/").json().get("proxy").asText()).isEqualTo("127.0.0.1:1");
  }

  @Test
  void unknownPathsAndMethodsAndBadInputAreJsonErrors() {
    ControlClient.Reply r = api.get("/nosuch");
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.raw().headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
    assertThat(r.json().get("error").asText()).contains("/nosuch");
    assertThat(api.get("/flows/42").status()).isEqualTo(404);
    assertThat(api.get("/flows/abc").status()).isEqualTo(404);
    assertThat(api.post("/paused/42/resume", null).json().get("error").asText()).isEqualTo("flow 42 is not paused");

    r = api.delete("/flows");
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.raw().headers().firstValue("Allow")).hasValue("GET");

    r = api.put("/rules", "[{");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).startsWith("not valid JSON");
    r = api.put("/rules", "{}");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("must be a JSON array");
    r = api.put("/rules", "[null]");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("entry 1 must be a JSON object");
    r = api.put("/rules", """
        [{"name": "bad", "filter": "~d (", "action": {"type": "block", "mode": "RESPOND", "status": 403}}]""");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("\"bad\"").contains("filter");
    r = api.post("/rules", """
        {"name": "regex", "action": {"type": "rewrite", "ops": [
          {"side": "REQUEST", "kind": "REPLACE_BODY", "match": "(", "value": "x"}]}}""");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("\"regex\"").contains("invalid regex");
    r = api.post("/rules", """
        {"name": "what", "action": {"type": "teleport"}}""");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).contains("teleport");
    r = api.get("/flows?filter=" + java.net.URLEncoder.encode("~q (", StandardCharsets.UTF_8));
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).startsWith("bad filter");
    assertThat(intercept.rules().entries()).as("nothing bad got in").isEmpty();
  }

  @Test
  void rulesRoundTripAndEditing() {
    String rules = """
        [ {"id": "r1", "name": "tag", "enabled": true, "filter": "~d example.com",
           "action": {"type": "rewrite", "ops": [
             {"side": "REQUEST", "kind": "SET_HEADER", "match": "X-Tag", "value": "loupe"},
             {"side": "RESPONSE", "kind": "SET_STATUS", "match": "", "value": "418"}]}},
          {"id": "r2", "name": "slow", "enabled": false, "filter": "~u /big",
           "action": {"type": "throttle", "bytesPerSecond": 65536, "latencyMillis": 100}},
          {"id": "r3", "name": "nope", "enabled": true, "filter": "",
           "action": {"type": "block", "mode": "RESET", "status": 403}} ]""";
    ControlClient.Reply put = api.put("/rules", rules);
    assertThat(put.status()).as(put.toString()).isEqualTo(200);
    JsonNode got = api.get("/rules").json();
    assertThat(got).isEqualTo(put.json());
    assertThat(ids(got)).containsExactly("r1", "r2", "r3");
    assertThat(got.get(0).get("action").get("ops").get(1).get("value").asText()).isEqualTo("418");
    assertThat(intercept.rules().get("r2").enabled()).isFalse();
    // the same JSON the engine's own export writes, so a file exported from the window loads here
    assertThat(got).isEqualTo(parse(intercept.rules().toJson()));

    assertThat(ids(api.post("/rules/r3/move", Map.of("index", 0)).json())).containsExactly("r3", "r1", "r2");
    assertThat(api.post("/rules/r2/enable", Map.of("enabled", true)).status()).isEqualTo(200);
    assertThat(intercept.rules().get("r2").enabled()).isTrue();
    assertThat(api.post("/rules/r2/enable", Map.of("enabled", "yes")).status()).isEqualTo(400);
    assertThat(api.post("/rules/r2/move", Map.of("index", -1)).status()).isEqualTo(400);

    ControlClient.Reply added = api.post("/rules", """
        {"name": "mock", "filter": "~u /api", "enabled": true, "action": {"type": "mapRemote", "url": "http://127.0.0.1:9/v2", "keepPath": true}}""");
    assertThat(added.status()).as(added.toString()).isEqualTo(201);
    String id = added.json().get("id").asText();
    assertThat(id).isNotBlank();
    assertThat(ids(api.get("/rules").json())).containsExactly("r3", "r1", "r2", id);
    assertThat(api.post("/rules", Map.of("id", "r1", "action", Map.of("type", "block"))).status()).isEqualTo(409);

    ControlClient.Reply updated = api.put("/rules/r1", """
        {"name": "tag2", "enabled": true, "filter": "~d example.org", "action": {"type": "block", "mode": "CLOSE"}}""");
    assertThat(updated.status()).as(updated.toString()).isEqualTo(200);
    assertThat(intercept.rules().get("r1").name()).isEqualTo("tag2");
    assertThat(api.get("/rules/r1").json().get("filter").asText()).isEqualTo("~d example.org");

    assertThat(api.delete("/rules/r3").status()).isEqualTo(204);
    assertThat(api.delete("/rules/r3").status()).isEqualTo(404);
    assertThat(ids(api.get("/rules").json())).containsExactly("r1", "r2", id);
    assertThat(api.put("/rules", "[]").json()).isEmpty();
    assertThat(intercept.rules().entries()).isEmpty();
  }

  @Test
  void breakpointsRoundTripAndEditing() {
    ControlClient.Reply added = api.post("/breakpoints", Map.of("filter", "~m POST", "request", true,
        "response", false));
    assertThat(added.status()).as(added.toString()).isEqualTo(201);
    String id = added.json().get("id").asText();
    assertThat(intercept.breakpoints().get(id).request()).isTrue();
    assertThat(intercept.breakpoints().get(id).enabled()).as("enabled unless it says otherwise").isTrue();
    assertThat(api.post("/breakpoints", Map.of("filter", "~m GET", "request", false, "response", false))
        .json().get("error").asText()).contains("pauses requests, responses or both");

    ControlClient.Reply put = api.put("/breakpoints", List.of(
        Map.of("id", "a", "filter", "~d a.test", "request", true, "response", true, "enabled", true),
        Map.of("id", "b", "filter", "", "request", false, "response", true, "enabled", false)));
    assertThat(put.status()).isEqualTo(200);
    assertThat(api.get("/breakpoints").json()).isEqualTo(put.json());
    assertThat(ids(put.json())).containsExactly("a", "b");
    assertThat(intercept.breakpoints().get(id)).as("PUT replaced the list").isNull();
    assertThat(ids(api.post("/breakpoints/b/move", Map.of("index", 0)).json())).containsExactly("b", "a");
    api.post("/breakpoints/b/enable", Map.of("enabled", true));
    assertThat(intercept.breakpoints().get("b").enabled()).isTrue();
    assertThat(api.delete("/breakpoints/a").status()).isEqualTo(204);
    assertThat(ids(api.get("/breakpoints").json())).containsExactly("b");
    assertThat(api.put("/breakpoints", List.of(Map.of("id", "x", "filter", "~d (", "request", true)))
        .status()).isEqualTo(400);
    assertThat(ids(api.get("/breakpoints").json())).as("a bad list changes nothing").containsExactly("b");
  }

  @Test
  void flowsListFiltersAndPagesAndShowsBodies() {
    RecordedFlow a = flow("GET", "/a", 200, "hello".getBytes(StandardCharsets.UTF_8));
    RecordedFlow b = flow("POST", "/b", 404, new byte[] {(byte) 0xff, 0, 1});
    RecordedFlow c = flow("GET", "/c", 500, new byte[0]);
    assertThat(ids(api.get("/flows").json())).containsExactly("" + a.id(), "" + b.id(), "" + c.id());
    assertThat(ids(api.get("/flows?since=" + a.id()).json())).containsExactly("" + b.id(), "" + c.id());
    assertThat(ids(api.get("/flows?limit=1&since=" + a.id()).json())).containsExactly("" + b.id());
    assertThat(ids(api.get("/flows?filter=" + enc("status>=400 & ~m GET")).json())).containsExactly("" + c.id());
    JsonNode summary = api.get("/flows?filter=" + enc("~u /b")).json().get(0);
    assertThat(summary.get("method").asText()).isEqualTo("POST");
    assertThat(summary.get("url").asText()).isEqualTo("http://origin.test/b");
    assertThat(summary.get("status").asInt()).isEqualTo(404);
    assertThat(summary.get("tier").asText()).isEqualTo("relay");
    assertThat(summary.get("paused").isNull()).isTrue();
    assertThat(summary.get("replayOf").isNull()).isTrue();
    assertThat(summary.get("modifiedBy")).isEmpty();

    JsonNode da = api.get("/flows/" + a.id()).json();
    assertThat(da.get("response").get("body").asText()).isEqualTo("hello");
    assertThat(da.get("request").get("headers").get(0).get(0).asText()).isEqualTo("Host");
    assertThat(da.has("originalRequest")).isFalse();
    JsonNode db = api.get("/flows/" + b.id()).json();
    assertThat(db.get("response").has("body")).isFalse();
    assertThat(java.util.Base64.getDecoder().decode(db.get("response").get("bodyBase64").asText()))
        .containsExactly(0xff, 0, 1);
    assertThat(api.get("/paused").json()).isEmpty();
  }

  @Test
  void tokenFileIsOwnerOnlyAndTokenFilesAreChecked() throws Exception {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      String t = ControlToken.generate();
      assertThat(t).hasSize(43).matches("[A-Za-z0-9_-]+"); // 256 bits
      assertThat(seen.add(t)).isTrue();
    }
    Path saved = ControlToken.save(tmp, token);
    assertThat(saved).isEqualTo(tmp.resolve("control-token"));
    assertThat(Files.readString(saved).strip()).isEqualTo(token);
    if (Files.getFileStore(saved).supportsFileAttributeView("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(saved))).isEqualTo("rw-------");
    }
    assertThat(ControlToken.read(Files.writeString(tmp.resolve("t"), "  0123456789abcdefXYZ \n")))
        .isEqualTo("0123456789abcdefXYZ");
    assertThatThrownBy(() -> ControlToken.read(Files.writeString(tmp.resolve("short"), "abc")))
        .hasMessageContaining("short").hasMessageContaining("at least 16");
    assertThatThrownBy(() -> ControlToken.read(Files.writeString(tmp.resolve("space"), "0123456789 abcdefgh")))
        .hasMessageContaining("without spaces");
    assertThatThrownBy(() -> ControlToken.read(tmp.resolve("missing"))).hasMessageContaining("cannot read");
  }

  private RecordedFlow flow(String method, String path, int status, byte[] responseBody) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
    f.request(new RequestHead(method, "http", "origin.test", 80, path, "HTTP/1.1",
        Headers.of("Host", "origin.test", "Accept", "*/*")));
    f.requestBody().complete();
    f.response(new ResponseHead(status, "", "HTTP/1.1", Headers.of("Content-Length", "" + responseBody.length)));
    f.responseBody().append(ByteBuffer.wrap(responseBody));
    f.responseBody().complete();
    store.add(f);
    f.complete();
    store.completed(f);
    return f;
  }

  private static List<String> ids(JsonNode array) {
    return java.util.stream.StreamSupport.stream(array.spliterator(), false).map(n -> n.get("id").asText()).toList();
  }

  private static String enc(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static JsonNode parse(String json) {
    try {
      return ControlClient.JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
