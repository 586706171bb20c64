package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
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
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 7, breakpoints: a request or response stopped at a breakpoint, edited, and released, checked
 * byte for byte at the origin ({@code /sha256} answers the SHA-256 of what it received) and at the
 * client, over HTTP/1.1 and HTTP/2 (JDK client through the proxy) and HTTP/3 (reverse mode, Netty's
 * HTTP/3 client); abort; answer now; a paused HTTP/2 stream while 50 others on the same connection
 * complete.
 */
@Timeout(300)
class InterceptBreakpointTest {
  private final List<AutoCloseable> open = new ArrayList<>();

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
    H1(HttpClient.Version.HTTP_1_1, "HTTP/1.1"),
    H2(HttpClient.Version.HTTP_2, "HTTP/2");

    final HttpClient.Version version;
    final String wire;

    Proto(HttpClient.Version version, String wire) {
      this.version = version;
      this.wire = wire;
    }
  }

  static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }

  /** What {@code /sha256} answers for {@code body}. */
  static String shaAnswer(byte[] body) throws Exception {
    return sha256(body) + " " + body.length;
  }

  private PausedFlow awaitPaused(ProxyFixture proxy) {
    return await().atMost(20, TimeUnit.SECONDS).until(() -> proxy.intercept().pausedFlows().stream()
        .findFirst().orElse(null), p -> p != null);
  }

  private Flow awaitDone(ProxyFixture proxy, PausedFlow p) {
    return await().atMost(20, TimeUnit.SECONDS).until(() -> p.flow(), f -> f.state() != FlowState.IN_FLIGHT);
  }

  private HttpClient client(ProxyFixture proxy, Proto proto) {
    return proxy.clientBuilder().version(proto.version).build();
  }

  private TestOrigin origin(Proto proto) throws Exception {
    return open(proto == Proto.H1 ? TestOrigin.http() : TestOrigin.h2AndH1());
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void requestHeadersAndBodyEditedAtABreakpointReachTheOriginByteForByte(Proto proto) throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = origin(proto);
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /sha256 & ~m POST", true, false, true));
    byte[] sent = TestData.bytes(100_000);
    CompletableFuture<HttpResponse<String>> response = client(proxy, proto).sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/sha256")).header("X-Before", "1")
            .POST(HttpRequest.BodyPublishers.ofByteArray(sent)).build(), HttpResponse.BodyHandlers.ofString());

    PausedFlow p = awaitPaused(proxy);
    assertThat(p.phase()).isEqualTo(Flow.Paused.REQUEST);
    assertThat(p.flow().paused()).isEqualTo(Flow.Paused.REQUEST);
    assertThat(p.flow().tier()).isEqualTo(FlowTier.FULL);
    assertThat(p.request().body()).isEqualTo(sent);
    assertThat(origin.seen()).isEmpty(); // held before the origin

    byte[] edited = "edited \u00e9 body\n".repeat(1000).getBytes(StandardCharsets.UTF_8);
    assertThat(p.resume(p.request().withHeaders(p.request().headers().without("X-Before").with("X-Edited", "yes"))
        .withBody(edited))).isTrue();
    assertThat(p.resume()).isFalse(); // only one release counts

    HttpResponse<String> r = response.get(20, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(shaAnswer(edited));
    TestOrigin.Seen seen = origin.awaitSeen("/sha256");
    assertThat(seen.headers().get("X-Edited")).isEqualTo("yes");
    assertThat(seen.headers().get("X-Before")).isNull();
    assertThat(seen.headers().get("Content-Length")).isEqualTo(String.valueOf(edited.length));

    Flow f = awaitDone(proxy, p);
    assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(f.paused()).isNull();
    assertThat(f.clientProtocol()).isEqualTo(proto.wire);
    assertThat(f.modifiedBy()).containsExactly("breakpoint: request edited");
    assertThat(f.originalRequestBody().bytes()).isEqualTo(sent);
    assertThat(f.originalRequest().headers().get("X-Before")).isEqualTo("1");
    assertThat(f.requestBody().bytes()).isEqualTo(edited);
    assertThat(f.request().headers().get("X-Edited")).isEqualTo("yes");
    assertThat(proxy.intercept().pausedFlows()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void aResponseEditedAtABreakpointReachesTheClientWithItsLengthFixed(Proto proto) throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = origin(proto);
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /bytes/", false, true, true));
    CompletableFuture<HttpResponse<byte[]>> response = client(proxy, proto).sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/300000")).build(),
        HttpResponse.BodyHandlers.ofByteArray());

    PausedFlow p = awaitPaused(proxy);
    assertThat(p.phase()).isEqualTo(Flow.Paused.RESPONSE);
    assertThat(p.response().status()).isEqualTo(200);
    assertThat(p.response().body()).isEqualTo(TestData.bytes(300_000));
    assertThat(origin.awaitSeen("/bytes/300000").ending().get(10, TimeUnit.SECONDS).answered()).isTrue();

    byte[] edited = "{\"edited\": true}".getBytes(StandardCharsets.UTF_8);
    p.resume(p.response().withStatus(203).withHeaders(p.response().headers().with("Content-Type", "application/json"))
        .withBody(edited));

    HttpResponse<byte[]> r = response.get(20, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(203);
    assertThat(r.body()).isEqualTo(edited);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    if (proto == Proto.H1) {
      assertThat(r.headers().firstValue("content-length")).hasValue(String.valueOf(edited.length));
    }
    Flow f = awaitDone(proxy, p);
    assertThat(f.modifiedBy()).containsExactly("breakpoint: response edited");
    assertThat(f.response().status()).isEqualTo(203);
    assertThat(f.responseBody().bytes()).isEqualTo(edited);
    assertThat(f.originalResponse().status()).isEqualTo(200);
    assertThat(sha256(f.originalResponseBody().bytes())).isEqualTo(sha256(TestData.bytes(300_000)));
  }

  @Test
  void aResponseResumedUnchangedIsByteForByteWhatTheOriginSentGzipIncluded() throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = open(TestOrigin.http());
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /bytes/", false, true, true));
    CompletableFuture<HttpResponse<byte[]>> response = client(proxy, Proto.H1).sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/70000?chunked=1")).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    PausedFlow p = awaitPaused(proxy);
    p.resume();
    HttpResponse<byte[]> r = response.get(20, TimeUnit.SECONDS);
    assertThat(sha256(r.body())).isEqualTo(sha256(TestData.bytes(70_000)));
    Flow f = awaitDone(proxy, p);
    assertThat(f.modifiedBy()).isEmpty();
    assertThat(f.originalResponse()).isNull();
    assertThat(f.tier()).isEqualTo(FlowTier.FULL);
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void abortGivesTheClientAnErrorAndTheOriginNothing(Proto proto) throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = origin(proto);
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /status/", true, false, true));
    HttpClient client = client(proxy, proto);
    // A POST: the JDK client retries an idempotent request once on a broken connection.
    CompletableFuture<HttpResponse<String>> response = client.sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/status/204")).POST(HttpRequest.BodyPublishers.ofString("x"))
            .build(), HttpResponse.BodyHandlers.ofString());
    PausedFlow p = awaitPaused(proxy);
    assertThat(p.abort()).isTrue();
    assertThatThrownBy(() -> response.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(java.io.IOException.class);
    Flow f = awaitDone(proxy, p);
    assertThat(f.state()).isEqualTo(FlowState.FAILED);
    assertThat(f.error().kind()).isEqualTo(FlowError.Kind.ABORTED);
    assertThat(f.modifiedBy()).containsExactly("breakpoint: aborted");
    assertThat(origin.seen()).isEmpty();
    // The proxy goes on serving: the same client, a path no breakpoint wants.
    assertThat(client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/10")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(Proto.class)
  void answerNowRespondsWithoutContactingTheOrigin(Proto proto) throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = origin(proto);
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~m PUT", true, true, true));
    CompletableFuture<HttpResponse<String>> response = client(proxy, proto).sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/sha256"))
            .PUT(HttpRequest.BodyPublishers.ofString("x".repeat(5000))).build(), HttpResponse.BodyHandlers.ofString());
    PausedFlow p = awaitPaused(proxy);
    p.answer(ResponseDraft.text(418, "answered by Loupe\n"));
    // The answer goes through the response side too: the response breakpoint stops it there.
    PausedFlow atResponse = await().atMost(20, TimeUnit.SECONDS)
        .until(() -> proxy.intercept().paused(p.flow().id()), q -> q != null && q != p);
    assertThat(atResponse.phase()).isEqualTo(Flow.Paused.RESPONSE);
    atResponse.resume();
    HttpResponse<String> r = response.get(20, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(418);
    assertThat(r.body()).isEqualTo("answered by Loupe\n");
    Flow f = awaitDone(proxy, p);
    assertThat(f.response().status()).isEqualTo(418);
    assertThat(new String(f.responseBody().bytes(), StandardCharsets.UTF_8)).isEqualTo("answered by Loupe\n");
    assertThat(f.serverConnection()).isNull();
    assertThat(f.modifiedBy()).containsExactly("breakpoint: answered");
    assertThat(origin.seen()).isEmpty();
  }

  @Test
  void aPausedHttp2StreamDoesNotHoldUpFiftyOthersOnTheSameConnection() throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = open(TestOrigin.h2AndH1());
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u hold", true, false, true));
    HttpClient client = client(proxy, Proto.H2);
    // Warm the connection so every request shares it.
    assertThat(client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/1")).build(),
        HttpResponse.BodyHandlers.ofString()).version()).isEqualTo(HttpClient.Version.HTTP_2);
    CompletableFuture<HttpResponse<byte[]>> held = client.sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/5?hold=1")).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    PausedFlow p = awaitPaused(proxy);
    List<CompletableFuture<HttpResponse<byte[]>>> others = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      others.add(client.sendAsync(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/" + (20_000 + i))).build(),
          HttpResponse.BodyHandlers.ofByteArray()));
    }
    for (int i = 0; i < 50; i++) {
      HttpResponse<byte[]> r = others.get(i).get(30, TimeUnit.SECONDS);
      assertThat(sha256(r.body())).isEqualTo(sha256(TestData.bytes(20_000 + i)));
    }
    assertThat(held).isNotDone();
    assertThat(p.flow().paused()).isEqualTo(Flow.Paused.REQUEST);
    long connection = p.flow().clientConnection().id();
    assertThat(proxy.store().snapshot()).filteredOn(f -> f.request().path().startsWith("/bytes/2"))
        .hasSize(50).allSatisfy(f -> {
          assertThat(f.clientConnection().id()).isEqualTo(connection);
          assertThat(f.tier()).isEqualTo(FlowTier.RELAY);
        });
    p.resume();
    assertThat(held.get(20, TimeUnit.SECONDS).body()).isEqualTo(TestData.bytes(5));
  }

  @Test
  void aPauseTimesOutAndResumesUnchangedWhenATimeoutIsSet() throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = open(TestOrigin.http());
    proxy.intercept().pauseTimeout(Duration.ofMillis(300));
    proxy.intercept().breakpoints().add(new Breakpoint(null, "", true, false, true));
    HttpResponse<String> r = client(proxy, Proto.H1).send(
        HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/3")).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    Flow f = proxy.awaitFlow("/bytes/3");
    assertThat(f.modifiedBy()).containsExactly("breakpoint: timed out after 300 ms, resumed unchanged");
    proxy.intercept().pauseTimeout(Duration.ZERO);
  }

  @Test
  void releaseAllResumesEveryPausedFlowAndAClientThatLeavesEndsItsPause() throws Exception {
    ProxyFixture proxy = open(ProxyFixture.start());
    TestOrigin origin = open(TestOrigin.http());
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /bytes/", true, false, true));
    HttpClient client = client(proxy, Proto.H1);
    CompletableFuture<HttpResponse<byte[]>> a = client.sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/7")).build(), HttpResponse.BodyHandlers.ofByteArray());
    CompletableFuture<HttpResponse<byte[]>> b = client.sendAsync(
        HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/8")).build(), HttpResponse.BodyHandlers.ofByteArray());
    await().atMost(20, TimeUnit.SECONDS).until(() -> proxy.intercept().pausedFlows().size() == 2);
    assertThat(proxy.intercept().releaseAll()).isEqualTo(2);
    assertThat(a.get(20, TimeUnit.SECONDS).body()).hasSize(7);
    assertThat(b.get(20, TimeUnit.SECONDS).body()).hasSize(8);

    try (java.net.Socket s = proxy.socket()) {
      s.getOutputStream().write(("GET " + origin.url() + "/bytes/9 HTTP/1.1\r\nHost: " + origin.authority()
          + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      await().atMost(20, TimeUnit.SECONDS).until(() -> proxy.intercept().pausedFlows().size() == 1);
    }
    await().atMost(20, TimeUnit.SECONDS).until(() -> proxy.intercept().pausedFlows().isEmpty());
    Flow left = proxy.store().snapshot().stream().filter(f -> f.request().path().equals("/bytes/9")).findFirst()
        .orElseThrow();
    await().atMost(20, TimeUnit.SECONDS).until(() -> left.state() == FlowState.FAILED);
    assertThat(left.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
    assertThat(left.paused()).isNull();
  }

  @Test
  void http3RequestAndResponseEditsInReverseMode() throws Exception {
    TestOrigin origin = open(TestOrigin.http());
    ProxyFixture proxy = open(ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(origin.url()))));
    assertThat(proxy.engine().http3Problem()).isNull();
    Http3TestClient client = open(new Http3TestClient(proxy.engine().http3Address(), Http3ReverseModeTest.NAME,
        TestPki.shared().loupeCa().certificate()));
    String authority = Http3ReverseModeTest.NAME + ":" + proxy.port();
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /sha256", true, false, true));
    proxy.intercept().breakpoints().add(new Breakpoint(null, "~u /bytes/", false, true, true));

    CompletableFuture<Http3TestClient.Response> post = client.send("POST", "/sha256", authority, 50_000);
    PausedFlow p = awaitPaused(proxy);
    assertThat(p.flow().clientProtocol()).isEqualTo("HTTP/3");
    assertThat(p.request().body()).isEqualTo(TestData.bytes(50_000));
    byte[] edited = "an HTTP/3 body, edited".getBytes(StandardCharsets.UTF_8);
    p.resume(p.request().withBody(edited));
    Http3TestClient.Response r = post.get(20, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.sha256()).isEqualTo(sha256(shaAnswer(edited).getBytes(StandardCharsets.US_ASCII)));
    awaitDone(proxy, p);

    CompletableFuture<Http3TestClient.Response> get = client.send("GET", "/bytes/40000", authority, 0);
    PausedFlow q = awaitPaused(proxy);
    assertThat(q.phase()).isEqualTo(Flow.Paused.RESPONSE);
    byte[] body = "replaced".getBytes(StandardCharsets.UTF_8);
    q.resume(q.response().withStatus(202).withBody(body));
    Http3TestClient.Response g = get.get(20, TimeUnit.SECONDS);
    assertThat(g.status()).isEqualTo(202);
    assertThat(g.length()).isEqualTo(body.length);
    assertThat(g.sha256()).isEqualTo(sha256(body));
    assertThat(g.headers().get("content-length").toString()).isEqualTo(String.valueOf(body.length));
  }
}
