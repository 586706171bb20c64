package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 7, rules: every rule type through the real proxy over HTTP/1.1 and HTTP/2 (JDK client) and,
 * where the protocol allows, HTTP/3 (reverse mode); what the origin received and what the client
 * got are compared byte for byte; throttle accuracy; rules recorded on the flow in order; the tier
 * test (a rule on one host leaves the others on the relay tier).
 */
@Timeout(300)
class InterceptRulesTest {
  private final List<AutoCloseable> open = new ArrayList<>();
  @TempDir
  Path dir;

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private <T extends AutoCloseable> T open(T c) {
    open.add(c);
    return c;
  }

  enum Proto {
    H1(HttpClient.Version.HTTP_1_1), H2(HttpClient.Version.HTTP_2);

    final HttpClient.Version version;

    Proto(HttpClient.Version version) {
      this.version = version;
    }
  }

  private ProxyFixture proxy;
  private TestOrigin origin;
  private HttpClient client;

  private void start(Proto proto) throws Exception {
    proxy = open(ProxyFixture.start());
    origin = open(proto == Proto.H1 ? TestOrigin.http() : TestOrigin.h2AndH1());
    client = proxy.clientBuilder().version(proto.version).build();
  }

  private static Rule rule(String name, String filter, RuleAction action) {
    return new Rule(null, name, true, filter, action);
  }

  private HttpResponse<byte[]> get(String path) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(origin.url() + path)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private HttpResponse<String> post(String path, byte[] body) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(origin.url() + path))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void mapLocalAnswersFromAFileOrADirectoryWithoutTheOrigin(Proto proto) throws Exception {
    start(proto);
    byte[] file = TestData.bytes(200_000);
    Files.write(dir.resolve("data.bin"), file);
    Files.createDirectories(dir.resolve("site/js"));
    Files.writeString(dir.resolve("site/js/app.js"), "console.log('local');\n");
    Files.writeString(dir.resolve("site/index.html"), "<h1>local</h1>\n");
    proxy.intercept().rules().add(rule("one file", "~u /bytes/1$", new RuleAction.MapLocal(
        dir.resolve("data.bin").toString(), "")));
    proxy.intercept().rules().add(rule("a site", "~u /static/", new RuleAction.MapLocal(
        dir.resolve("site").toString(), "/static")));

    HttpResponse<byte[]> r = get("/bytes/1");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(file);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/octet-stream");

    HttpResponse<byte[]> js = get("/static/js/app.js");
    assertThat(new String(js.body(), StandardCharsets.UTF_8)).isEqualTo("console.log('local');\n");
    assertThat(js.headers().firstValue("content-type")).hasValue("text/javascript; charset=utf-8");
    assertThat(new String(get("/static/").body(), StandardCharsets.UTF_8)).isEqualTo("<h1>local</h1>\n");
    assertThat(get("/static/missing.css").statusCode()).isEqualTo(404);
    assertThat(origin.seen()).isEmpty();

    Flow f = proxy.awaitFlow("/bytes/1");
    assertThat(f.tier()).isEqualTo(FlowTier.FULL);
    assertThat(f.modifiedBy()).containsExactly("rule \"one file\"");
    assertThat(f.responseBody().bytes()).isEqualTo(file);
    assertThat(f.serverConnection()).isNull();
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void mapRemoteSendsTheRequestElsewhereKeepingOrReplacingThePath(Proto proto) throws Exception {
    start(proto);
    TestOrigin other = open(proto == Proto.H1 ? TestOrigin.http() : TestOrigin.h2AndH1());
    proxy.intercept().rules().add(rule("to other", "~u /bytes/", new RuleAction.MapRemote(other.url(), true)));
    proxy.intercept().rules().add(rule("to status", "~u /sha256", new RuleAction.MapRemote(
        other.url() + "/status/201", false)));

    HttpResponse<byte[]> r = get("/bytes/1234?x=1");
    assertThat(r.body()).isEqualTo(TestData.bytes(1234));
    TestOrigin.Seen seen = other.awaitSeen("/bytes/1234?x=1");
    assertThat(seen.headers().get("host") != null ? seen.headers().get("host") : "").isIn(other.authority(), "");
    assertThat(post("/sha256", "abc".getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(201);
    other.awaitSeen("/status/201");
    assertThat(origin.seen()).isEmpty();
    Flow f = proxy.awaitFlow("/bytes/1234");
    assertThat(f.request().port()).isEqualTo(other.port());
    assertThat(f.originalRequest().port()).isEqualTo(origin.port());
    assertThat(f.modifiedBy()).containsExactly("rule \"to other\"");
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void rewriteChangesHeadersUrlQueryBodyAndStatusOnBothSides(Proto proto) throws Exception {
    start(proto);
    proxy.intercept().rules().add(rule("request side", "~u /sha256 | ~u /headers", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Set", "set by loupe"),
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.ADD_HEADER, "X-Added", "1"),
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REMOVE_HEADER, "X-Secret", ""),
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REPLACE_BODY, "cat", "dog")))));
    proxy.intercept().rules().add(rule("url", "~u /old", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REPLACE_URL, "/old/(\\d+)", "/bytes/$1"),
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.REPLACE_QUERY, "a=1", "a=2")))));
    proxy.intercept().rules().add(rule("response side", "~u /bytes/", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.ADD_HEADER, "X-Response", "added"),
        new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_STATUS, "", "299")))));

    byte[] body = "a cat sat on the cat mat".getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> sha = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256"))
        .header("X-Secret", "s3cret").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(sha.body()).isEqualTo(InterceptBreakpointTest.shaAnswer(
        "a dog sat on the dog mat".getBytes(StandardCharsets.UTF_8)));
    TestOrigin.Seen seen = origin.awaitSeen("/sha256");
    assertThat(seen.headers().get("X-Set")).isEqualTo("set by loupe");
    assertThat(seen.headers().get("X-Added")).isEqualTo("1");
    assertThat(seen.headers().get("X-Secret")).isNull();

    HttpResponse<byte[]> moved = get("/old/321?a=1&b=2");
    assertThat(moved.statusCode()).isEqualTo(299);
    assertThat(moved.body()).isEqualTo(TestData.bytes(321));
    assertThat(moved.headers().firstValue("x-response")).hasValue("added");
    origin.awaitSeen("/bytes/321?a=2&b=2");
    Flow f = proxy.awaitFlow("/bytes/321");
    assertThat(f.modifiedBy()).containsExactly("rule \"url\"", "rule \"response side\"");
    assertThat(f.originalRequest().target()).isEqualTo("/old/321?a=1&b=2");
    assertThat(f.originalResponse().status()).isEqualTo(200);
    assertThat(f.response().status()).isEqualTo(299);
    java.io.ByteArrayOutputStream har = new java.io.ByteArrayOutputStream();
    dev.loupe.engine.flow.har.HarWriter.write(List.of(f), har);
    com.fasterxml.jackson.databind.JsonNode entry = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(har.toByteArray()).path("log").path("entries").get(0);
    assertThat(entry.path("_tier").asText()).isEqualTo("FULL");
    assertThat(entry.path("_modifiedBy")).extracting(com.fasterxml.jackson.databind.JsonNode::asText)
        .containsExactly("rule \"url\"", "rule \"response side\"");
    assertThat(entry.path("response").path("status").asInt()).isEqualTo(299);
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void blockAnswersClosesOrResets(Proto proto) throws Exception {
    start(proto);
    proxy.intercept().rules().add(rule("451", "~u /status/200", new RuleAction.Block(RuleAction.Block.Mode.RESPOND, 451)));
    proxy.intercept().rules().add(rule("close", "~u /status/201", new RuleAction.Block(RuleAction.Block.Mode.CLOSE, 0)));
    proxy.intercept().rules().add(rule("reset", "~u /status/202", new RuleAction.Block(RuleAction.Block.Mode.RESET, 0)));
    HttpResponse<byte[]> blocked = get("/status/200");
    assertThat(blocked.statusCode()).isEqualTo(451);
    assertThat(new String(blocked.body(), StandardCharsets.UTF_8)).contains("Blocked by Loupe rule \"451\"");
    assertThatThrownBy(() -> post("/status/201", new byte[1])).isInstanceOf(java.io.IOException.class);
    assertThatThrownBy(() -> post("/status/202", new byte[1])).isInstanceOf(java.io.IOException.class);
    assertThat(origin.seen()).isEmpty();
    Flow closed = proxy.awaitFlow("/status/201");
    assertThat(closed.error().kind()).isEqualTo(FlowError.Kind.ABORTED);
    assertThat(closed.error().message()).contains("blocked by rule \"close\"");
    assertThat(get("/bytes/5").body()).isEqualTo(TestData.bytes(5)); // everyone else is served
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void throttleHoldsA1MiBBodyTo256KiBPerSecond(Proto proto) throws Exception {
    start(proto);
    proxy.intercept().rules().add(rule("slow", "~u /bytes/", new RuleAction.Throttle(256 * 1024, 0)));
    get("/bytes/1"); // connection set up outside the measurement
    long start = System.nanoTime();
    HttpResponse<byte[]> r = get("/bytes/1048576");
    double seconds = (System.nanoTime() - start) / 1e9;
    assertThat(r.body()).isEqualTo(TestData.bytes(1 << 20));
    assertThat(seconds).as("seconds for 1 MiB at 256 KiB/s").isBetween(3.6, 4.4);

    proxy.intercept().rules().clear();
    proxy.intercept().rules().add(rule("upload", "~u /sha256", new RuleAction.Throttle(256 * 1024, 0)));
    byte[] up = TestData.bytes(512 * 1024);
    start = System.nanoTime();
    assertThat(post("/sha256", up).body()).isEqualTo(InterceptBreakpointTest.shaAnswer(up));
    seconds = (System.nanoTime() - start) / 1e9;
    assertThat(seconds).as("seconds to upload 512 KiB at 256 KiB/s (and answer)").isBetween(1.8, 2.4);

    proxy.intercept().rules().clear();
    proxy.intercept().rules().add(rule("latency", "~u /bytes/", new RuleAction.Throttle(0, 300)));
    start = System.nanoTime();
    get("/bytes/10");
    assertThat((System.nanoTime() - start) / 1e6).as("ms with 300 ms each way").isGreaterThanOrEqualTo(600);
  }

  @Test
  void aThrottledUploadLongerThanTheResponseTimeoutStillGetsItsAnswer() throws Exception {
    proxy = open(ProxyFixture.start(b -> b.responseTimeout(java.time.Duration.ofSeconds(1))));
    origin = open(TestOrigin.http());
    client = proxy.clientBuilder().version(HttpClient.Version.HTTP_1_1).build();
    proxy.intercept().rules().add(rule("slow upload", "~u /sha256", new RuleAction.Throttle(64 * 1024, 0)));
    byte[] up = TestData.bytes(160 * 1024); // 2.5 s at 64 KiB/s: the timeout counts from the last byte sent
    assertThat(post("/sha256", up).body()).isEqualTo(InterceptBreakpointTest.shaAnswer(up));
    assertThat(proxy.awaitFlow("/sha256").error()).isNull();
  }

  @Test
  void aRuleOnOneHostLeavesOtherHostsOnTheRelayTier() throws Exception {
    start(Proto.H1);
    proxy.intercept().rules().add(rule("only localhost", "~d localhost", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-Rule", "1")))));
    proxy.intercept().rules().add(rule("a response rule", "~d localhost & ~c 200", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.RESPONSE, RewriteOp.Kind.SET_HEADER, "X-Seen", "1")))));
    HttpResponse<byte[]> other = client.send(HttpRequest.newBuilder(URI.create(origin.url("127.0.0.1") + "/bytes/100"))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    HttpResponse<byte[]> ruled = client.send(HttpRequest.newBuilder(URI.create(origin.url("localhost") + "/bytes/101"))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(other.body()).isEqualTo(TestData.bytes(100));
    assertThat(ruled.body()).isEqualTo(TestData.bytes(101));
    assertThat(ruled.headers().firstValue("x-seen")).hasValue("1");
    assertThat(other.headers().firstValue("x-seen")).isEmpty();
    assertThat(proxy.awaitFlow("/bytes/100").tier()).isEqualTo(FlowTier.RELAY);
    assertThat(proxy.awaitFlow("/bytes/100").modifiedBy()).isEmpty();
    assertThat(proxy.awaitFlow("/bytes/101").tier()).isEqualTo(FlowTier.FULL);
    assertThat(origin.awaitSeen("/bytes/101").headers().get("X-Rule")).isEqualTo("1");
    assertThat(origin.awaitSeen("/bytes/100").headers().get("X-Rule")).isNull();

    proxy.intercept().rules().enable(proxy.intercept().rules().entries().get(0).id(), false);
    proxy.intercept().rules().active(false);
    client.send(HttpRequest.newBuilder(URI.create(origin.url("localhost") + "/bytes/102")).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(proxy.awaitFlow("/bytes/102").tier()).isEqualTo(FlowTier.RELAY); // rules switched off
  }

  @Test
  void http3RulesInReverseMode() throws Exception {
    origin = open(TestOrigin.http());
    proxy = open(ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(origin.url()))));
    Http3TestClient h3 = open(new Http3TestClient(proxy.engine().http3Address(), Http3ReverseModeTest.NAME,
        TestPki.shared().loupeCa().certificate()));
    String authority = Http3ReverseModeTest.NAME + ":" + proxy.port();
    Files.writeString(dir.resolve("local.json"), "{\"local\":true}");
    proxy.intercept().rules().add(rule("local", "~u /local", new RuleAction.MapLocal(dir.resolve("local.json").toString(), "")));
    proxy.intercept().rules().add(rule("block", "~u /status/", new RuleAction.Block(RuleAction.Block.Mode.RESPOND, 403)));
    proxy.intercept().rules().add(rule("rewrite", "~u /sha256", new RuleAction.Rewrite(List.of(
        new RewriteOp(RewriteOp.Side.REQUEST, RewriteOp.Kind.SET_HEADER, "X-H3", "yes")))));
    proxy.intercept().rules().add(rule("slow", "~u /bytes/", new RuleAction.Throttle(256 * 1024, 0)));

    Http3TestClient.Response local = h3.send("GET", "/local", authority, 0).get(20, TimeUnit.SECONDS);
    assertThat(local.status()).isEqualTo(200);
    assertThat(local.sha256()).isEqualTo(InterceptBreakpointTest.sha256("{\"local\":true}".getBytes(StandardCharsets.UTF_8)));
    assertThat(h3.send("GET", "/status/200", authority, 0).get(20, TimeUnit.SECONDS).status()).isEqualTo(403);
    Http3TestClient.Response sha = h3.send("POST", "/sha256", authority, 10_000).get(20, TimeUnit.SECONDS);
    assertThat(sha.sha256()).isEqualTo(InterceptBreakpointTest.sha256(
        InterceptBreakpointTest.shaAnswer(TestData.bytes(10_000)).getBytes(StandardCharsets.US_ASCII)));
    assertThat(origin.awaitSeen("/sha256").headers().get("X-H3")).isEqualTo("yes");

    long start = System.nanoTime();
    Http3TestClient.Response big = h3.send("GET", "/bytes/1048576", authority, 0).get(30, TimeUnit.SECONDS);
    double seconds = (System.nanoTime() - start) / 1e9;
    assertThat(big.sha256()).isEqualTo(InterceptBreakpointTest.sha256(TestData.bytes(1 << 20)));
    assertThat(seconds).as("seconds for 1 MiB at 256 KiB/s over HTTP/3").isBetween(3.6, 4.4);
    assertThat(origin.seen()).extracting(TestOrigin.Seen::uri).doesNotContain("/local", "/status/200");
  }
}
