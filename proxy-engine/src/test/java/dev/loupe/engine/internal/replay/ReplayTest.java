package dev.loupe.engine.internal.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.ByteArrayInputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code ProxyEngine.replay}: requests Loupe sends itself, over HTTP/1.1, HTTP/2 and HTTP/3 to real
 * in-process origins, checked on both ends: what the origin received (method, path, fields, body
 * SHA-256) and what the new flow records (replayOf, tier, server protocol and connection, bodies).
 * The engine runs in its default mode ({@code --upstream-protocol auto}), where HTTP/3 is only
 * used after Alt-Svc discovery, so a forced HTTP/3 replay must bring up the QUIC pool itself.
 */
@Timeout(120)
class ReplayTest {
  static ProxyFixture proxy;
  static TestOrigin h1;
  static TestOrigin h2;
  static TestOrigin cleartext;
  static ReplayHttp3Origin h3;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start(b -> b.ioThreads(1));
    h1 = TestOrigin.https();
    h2 = TestOrigin.h2AndH1();
    cleartext = TestOrigin.http();
    h3 = new ReplayHttp3Origin(TestPki.shared().originCa());
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {proxy, h1, h2, cleartext, h3}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  private static Flow send(RequestDraft draft, Replayer.Protocol protocol, long replayOf) throws Exception {
    return proxy.engine().replay(draft, protocol, replayOf).toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** A POST whose fields include hop-by-hop ones and stale framing, which must not reach the origin. */
  private static RequestDraft upload(String url, byte[] body) {
    return new RequestDraft("POST", url, "HTTP/1.1", Headers.of(
        "Host", "stale.example:1",
        "Content-Type", "application/octet-stream",
        "X-Replay-Test", "yes",
        "Connection", "keep-alive, X-Hop",
        "X-Hop", "not for the origin",
        "Proxy-Authorization", "Basic c2VjcmV0",
        "Transfer-Encoding", "chunked",
        "Content-Length", "3"), body);
  }

  private static String sha256(Flow flow, boolean response) throws Exception {
    return TestData.sha256((response ? flow.responseBody() : flow.requestBody()).openStream());
  }

  private static void assertReplayFlow(Flow flow, long replayOf, String protocol) {
    assertThat(flow.state()).as("flow %s", flow).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.error()).isNull();
    assertThat(flow.replayOf()).isEqualTo(replayOf);
    assertThat(flow.tier()).isEqualTo(FlowTier.FULL);
    assertThat(flow.clientProtocol()).as("no client leg").isNull();
    assertThat(flow.clientConnection()).isNull();
    assertThat(flow.serverProtocol()).isEqualTo(protocol);
    assertThat(flow.request().httpVersion()).isEqualTo(protocol);
    assertThat(flow.serverConnection()).isNotNull();
    assertThat(proxy.store().get(flow.id())).as("recorded in the store").isSameAs(flow);
    assertThat(flow.timings().totalMs()).isGreaterThan(0);
  }

  @Test
  void http1PostReachesTheOriginWithEndToEndFieldsAndAFixedLength() throws Exception {
    String tag = UUID.randomUUID().toString();
    byte[] body = TestData.bytes(200_000);
    Flow flow = send(upload(h1.url() + "/sha256?t=" + tag, body), Replayer.Protocol.H1, 42);

    TestOrigin.Seen seen = h1.awaitSeen("t=" + tag);
    assertThat(seen.method()).isEqualTo("POST");
    assertThat(seen.uri()).isEqualTo("/sha256?t=" + tag);
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_1_1);
    assertThat(seen.headers().get("host")).isEqualTo(h1.authority());
    assertThat(seen.headers().get("content-length")).isEqualTo("200000");
    assertThat(seen.headers().get("x-replay-test")).isEqualTo("yes");
    assertThat(seen.headers().contains("transfer-encoding")).isFalse();
    assertThat(seen.headers().contains("x-hop")).isFalse();
    assertThat(seen.headers().contains("proxy-authorization")).isFalse();
    assertThat(seen.ending().get(10, TimeUnit.SECONDS).requestBodyLength()).isEqualTo(200_000);

    assertReplayFlow(flow, 42, "HTTP/1.1");
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(new String(flow.responseBody().bytes(), StandardCharsets.UTF_8))
        .as("the origin's SHA-256 of what it received").isEqualTo(TestData.sha256(body) + " " + body.length);
    assertThat(sha256(flow, false)).isEqualTo(TestData.sha256(body));
    assertThat(flow.request().headers().get("content-length")).isEqualTo("200000");
    assertThat(flow.request().headers().contains("x-hop")).isFalse();
    assertThat(flow.serverConnection().tls()).isNotNull();
    assertThat(flow.serverConnection().tls().verified()).isTrue();
    assertThat(flow.http3Status()).isEqualTo("forced off (replay over HTTP/1.1)");

    // The connection went back to the pool: the next replay to the origin reuses it.
    Flow again = send(new RequestDraft("GET", h1.url() + "/bytes/1000?again=" + tag, "HTTP/1.1", Headers.EMPTY, null),
        Replayer.Protocol.H1, flow.id());
    assertReplayFlow(again, flow.id(), "HTTP/1.1");
    assertThat(again.serverConnection().reused()).isTrue();
    assertThat(again.serverConnection().id()).isEqualTo(flow.serverConnection().id());
    assertThat(sha256(again, true)).isEqualTo(TestData.sha256(1000));
    assertThat(h1.awaitSeen("again=" + tag).headers().contains("content-length")).as("a GET without body").isFalse();
  }

  @Test
  void http2ReplayOfGetAndPost() throws Exception {
    String tag = UUID.randomUUID().toString();
    int size = 3 << 20; // beyond the stream and connection windows, and the 1 MiB capture cap (spills)
    Flow get = send(new RequestDraft("GET", h2.url() + "/bytes/" + size + "?t=" + tag, "HTTP/2",
        Headers.of("accept", "*/*", "x-replay-test", "h2"), null), Replayer.Protocol.H2, 7);
    assertReplayFlow(get, 7, "HTTP/2");
    assertThat(get.response().status()).isEqualTo(200);
    assertThat(get.response().httpVersion()).isEqualTo("HTTP/2");
    assertThat(get.responseBody().size()).isEqualTo(size);
    assertThat(sha256(get, true)).as("response body SHA-256").isEqualTo(TestData.sha256(size));
    assertThat(get.serverStreamId()).as("a client-initiated stream").isPositive().matches(id -> id % 2 == 1);
    assertThat(get.serverConnection().tls().alpn()).isEqualTo("h2");
    TestOrigin.Seen seenGet = h2.awaitSeen("/bytes/" + size + "?t=" + tag);
    assertThat(seenGet.protocol()).isEqualTo(TestOrigin.HTTP_2);
    assertThat(seenGet.method()).isEqualTo("GET");
    assertThat(seenGet.headers().get("x-replay-test")).isEqualTo("h2");
    assertThat(seenGet.headers().get("host")).as(":authority").isEqualTo(h2.authority());
    assertThat(seenGet.ending().get(10, TimeUnit.SECONDS).answered()).isTrue();

    byte[] body = TestData.bytes(500_000);
    Flow post = send(upload(h2.url() + "/sha256?t=" + tag, body), Replayer.Protocol.AUTO, 8);
    assertReplayFlow(post, 8, "HTTP/2"); // AUTO: ALPN picked h2
    assertThat(new String(post.responseBody().bytes(), StandardCharsets.UTF_8))
        .isEqualTo(TestData.sha256(body) + " " + body.length);
    TestOrigin.Seen seenPost = h2.awaitSeen("/sha256?t=" + tag);
    assertThat(seenPost.headers().get("content-length")).isEqualTo("500000");
    assertThat(seenPost.headers().contains("x-hop")).isFalse();
    assertThat(seenPost.headers().contains("proxy-authorization")).isFalse();
    assertThat(post.request().headers().contains("host")).as("HTTP/2 records no Host field").isFalse();
    assertThat(post.serverConnection().id()).as("one pooled HTTP/2 connection").isEqualTo(get.serverConnection().id());
  }

  @Test
  void http3ReplayInAutoModeBringsUpQuic() throws Exception {
    String tag = UUID.randomUUID().toString();
    byte[] body = TestData.bytes(300_000);
    Flow post = send(upload(h3.url() + "/sha256?t=" + tag, body), Replayer.Protocol.H3, 9);
    assertReplayFlow(post, 9, "HTTP/3");
    ReplayHttp3Origin.Seen seen = h3.awaitSeen("/sha256?t=" + tag);
    assertThat(seen.method()).isEqualTo("POST");
    assertThat(seen.headers()).containsEntry(":authority", "127.0.0.1:" + h3.port())
        .containsEntry(":scheme", "https").containsEntry(":path", "/sha256?t=" + tag)
        .containsEntry("content-length", "300000").containsEntry("x-replay-test", "yes")
        .doesNotContainKeys("x-hop", "proxy-authorization", "transfer-encoding", "connection", "host");
    assertThat(seen.body().get(10, TimeUnit.SECONDS)).isEqualTo(TestData.sha256(body) + " " + body.length);
    assertThat(new String(post.responseBody().bytes(), StandardCharsets.UTF_8))
        .isEqualTo(TestData.sha256(body) + " " + body.length);
    assertThat(post.serverConnection().tls().alpn()).isEqualTo("h3");
    assertThat(post.serverConnection().tls().verified()).isTrue();
    assertThat(post.serverQuicConnectionId()).matches("[0-9a-f]+");
    assertThat(post.serverStreamId()).isGreaterThanOrEqualTo(0).matches(id -> id % 4 == 0);
    assertThat(post.http3Status()).isEqualTo("forced (replay over HTTP/3)");

    Flow get = send(new RequestDraft("GET", h3.url() + "/bytes/70000?t=" + tag, "HTTP/3", Headers.EMPTY, null),
        Replayer.Protocol.H3, -1);
    assertReplayFlow(get, -1, "HTTP/3");
    assertThat(get.response().status()).isEqualTo(200);
    assertThat(sha256(get, true)).isEqualTo(TestData.sha256(70_000));
    assertThat(get.serverConnection().id()).as("the pooled QUIC connection").isEqualTo(post.serverConnection().id());
    assertThat(proxy.engine().http3UpstreamConnections()).isEqualTo(1);
    assertThat(proxy.engine().config().upstreamProtocol()).as("HTTP/3 not forced on the engine")
        .isEqualTo(EngineConfig.UpstreamProtocol.AUTO);
  }

  @Test
  void composedGzipPostIsEncodedAgainWithItsOwnLength() throws Exception {
    String tag = UUID.randomUUID().toString();
    String text = "hello replay ".repeat(2000) + tag;
    byte[] decoded = text.getBytes(StandardCharsets.UTF_8);
    // A draft holds the decoded body; its Content-Length is whatever the editor left there.
    RequestDraft draft = new RequestDraft("POST", cleartext.url() + "/echo?t=" + tag, "HTTP/1.1", Headers.of(
        "Content-Type", "text/plain; charset=utf-8",
        "Content-Encoding", "gzip",
        "Content-Length", Integer.toString(decoded.length)), decoded);
    Flow flow = send(draft, Replayer.Protocol.AUTO, -1);
    assertReplayFlow(flow, -1, "HTTP/1.1");
    assertThat(flow.http3Status()).as("cleartext: HTTP/3 not considered").isNull();

    byte[] received = flow.responseBody().bytes(); // the origin echoes what it received
    TestOrigin.Seen seen = cleartext.awaitSeen("/echo?t=" + tag);
    assertThat(seen.headers().get("content-encoding")).isEqualTo("gzip");
    assertThat(seen.headers().get("content-length")).isEqualTo(Integer.toString(received.length));
    assertThat(seen.ending().get(10, TimeUnit.SECONDS).requestBodyLength()).isEqualTo(received.length);
    assertThat(received.length).as("compressed").isLessThan(decoded.length / 10);
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(received))) {
      assertThat(in.readAllBytes()).as("valid gzip of the draft body").isEqualTo(decoded);
    }
    assertThat(flow.requestBody().bytes()).as("the flow records the wire body").isEqualTo(received);
    assertThat(flow.request().headers().get("content-length")).isEqualTo(Integer.toString(received.length));
  }

  @Test
  void refusedConnectionEndsAsAFailedFlow() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there now
    }
    Flow flow = send(new RequestDraft("GET", "http://127.0.0.1:" + port + "/nothing", "HTTP/1.1", Headers.EMPTY,
        null), Replayer.Protocol.AUTO, 3);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CONNECT_REFUSED);
    assertThat(flow.error().message()).contains("127.0.0.1:" + port);
    assertThat(flow.replayOf()).isEqualTo(3);
    assertThat(flow.response()).isNull();
    assertThat(proxy.store().get(flow.id())).isSameAs(flow);
  }

  @Test
  void silentOriginTimesOut() throws Exception {
    String tag = UUID.randomUUID().toString();
    try (ProxyFixture impatient = ProxyFixture.start(b -> b.responseTimeout(Duration.ofMillis(300)))) {
      Flow flow = impatient.engine().replay(new RequestDraft("GET", cleartext.url() + "/slow/10000?t=" + tag,
          "HTTP/1.1", Headers.EMPTY, null), Replayer.Protocol.H1, -1).toCompletableFuture().get(30, TimeUnit.SECONDS);
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.TIMEOUT);
      assertThat(flow.error().message()).contains(cleartext.authority());
      assertThat(flow.serverProtocol()).isEqualTo("HTTP/1.1");
      assertThat(impatient.engine().idleUpstreamConnections()).as("the connection is not pooled").isZero();
    }
  }

  @Test
  void invalidRequestsAreRefusedBeforeAnythingIsRecorded() {
    int before = proxy.store().size();
    Replayer replayer = proxy.engine()::replay;
    assertThatThrownBy(() -> replayer.send(new RequestDraft("GET", "ftp://example.test/", "HTTP/1.1",
        Headers.EMPTY, null), Replayer.Protocol.AUTO, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> replayer.send(new RequestDraft("GE T", "http://example.test/", "HTTP/1.1",
        Headers.EMPTY, null), Replayer.Protocol.AUTO, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> replayer.send(new RequestDraft("GET", "http://example.test/", "HTTP/1.1",
        Headers.of("Bad Name", "x"), null), Replayer.Protocol.AUTO, -1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> replayer.send(new RequestDraft("GET", "http://example.test/", "HTTP/1.1",
        Headers.of("X-Split", "a\r\nInjected: yes"), null), Replayer.Protocol.AUTO, -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> replayer.send(new RequestDraft("GET", "http://example.test/", "HTTP/1.1",
        Headers.EMPTY, null), Replayer.Protocol.H3, -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("https");
    assertThat(proxy.store().size()).isEqualTo(before);
  }

  @Test
  void http3IsForcedEvenWhenTheEngineIsForcedToHttp1() throws Exception {
    String tag = UUID.randomUUID().toString();
    try (ProxyFixture h1Engine = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H1))) {
      Flow flow = h1Engine.engine().replay(new RequestDraft("GET", h3.url() + "/bytes/5000?t=" + tag, "HTTP/1.1",
          Headers.EMPTY, null), Replayer.Protocol.H3, 11).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(flow.state()).as("flow %s", flow).isEqualTo(FlowState.COMPLETE);
      assertThat(flow.serverProtocol()).isEqualTo("HTTP/3");
      assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(5000));
      assertThat(h1Engine.engine().http3UpstreamConnections()).isEqualTo(1);
      assertThat(h3.awaitSeen("/bytes/5000?t=" + tag).method()).isEqualTo("GET");
    }
  }

  @Test
  void forcedHttp2ToACleartextOriginIsH2c() throws Exception {
    String tag = UUID.randomUUID().toString();
    try (TestOrigin h2c = TestOrigin.h2c()) {
      Flow flow = send(new RequestDraft("GET", h2c.url() + "/bytes/20000?t=" + tag, "HTTP/1.1", Headers.EMPTY, null),
          Replayer.Protocol.H2, 12);
      assertReplayFlow(flow, 12, "HTTP/2");
      assertThat(sha256(flow, true)).isEqualTo(TestData.sha256(20_000));
      assertThat(h2c.awaitSeen("t=" + tag).protocol()).isEqualTo(TestOrigin.HTTP_2);
      assertThat(flow.serverConnection().tls()).isNull();
    }
  }

  @Test
  void goesThroughTheUpstreamProxy() throws Exception {
    String tag = UUID.randomUUID().toString();
    // Another Loupe as the corporate proxy: it intercepts, so this one trusts its CA too.
    try (ProxyFixture corporate = ProxyFixture.start();
        ProxyFixture chained = ProxyFixture.start(b -> b.trustCa(TestPki.shared().loupeCa().certificate())
            .upstreamProxy(new EngineConfig.UpstreamProxy("127.0.0.1", corporate.port(), null, null)))) {
      Flow flow = chained.engine().replay(new RequestDraft("GET", h2.url() + "/bytes/4000?t=" + tag, "HTTP/2",
          Headers.EMPTY, null), Replayer.Protocol.AUTO, 13).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(flow.state()).as("flow %s", flow).isEqualTo(FlowState.COMPLETE);
      assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(4000));
      assertThat(flow.http3Status()).isEqualTo("off: QUIC cannot go through the upstream proxy");
      assertThat(corporate.awaitFlow("t=" + tag).response().status()).as("the upstream proxy carried it")
          .isEqualTo(200);

      Flow h3Flow = chained.engine().replay(new RequestDraft("GET", h3.url() + "/bytes/10?t=" + tag, "HTTP/3",
          Headers.EMPTY, null), Replayer.Protocol.H3, 14).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(h3Flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(h3Flow.error().kind()).isEqualTo(FlowError.Kind.CONNECT);
      assertThat(h3Flow.error().message()).contains("upstream proxy");
    }
  }

  @Test
  void aPooledConnectionTheOriginDroppedIsReplacedOnce() throws Exception {
    String tag = UUID.randomUUID().toString();
    try (TestOrigin dropping = TestOrigin.http()) {
      Flow first = send(new RequestDraft("GET", dropping.url() + "/drop-next?t=" + tag, "HTTP/1.1", Headers.EMPTY,
          null), Replayer.Protocol.H1, -1);
      assertReplayFlow(first, -1, "HTTP/1.1");
      // The origin closes the pooled connection when this arrives on it, without an answer.
      Flow second = send(new RequestDraft("GET", dropping.url() + "/bytes/100?t=" + tag, "HTTP/1.1", Headers.EMPTY,
          null), Replayer.Protocol.H1, -1);
      assertReplayFlow(second, -1, "HTTP/1.1");
      assertThat(sha256(second, true)).isEqualTo(TestData.sha256(100));
      assertThat(second.serverConnection().reused()).as("sent again on a fresh connection").isFalse();
      assertThat(dropping.seen().stream().filter(s -> s.uri().startsWith("/bytes/100?t=" + tag)).count()).isEqualTo(2);
    }
  }

  @Test
  void originFailuresEndTheFlowWithTheirKind() throws Exception {
    String tag = UUID.randomUUID().toString();
    Flow reset = send(new RequestDraft("GET", cleartext.url() + "/reset?t=" + tag, "HTTP/1.1", Headers.EMPTY, null),
        Replayer.Protocol.H1, -1);
    assertThat(reset.state()).isEqualTo(FlowState.FAILED);
    assertThat(reset.error().kind()).isEqualTo(FlowError.Kind.SERVER_RESET);
    assertThat(reset.response().status()).as("the head that came").isEqualTo(200);
    assertThat(reset.responseBody().size()).isEqualTo(1000);

    Flow h2Reset = send(new RequestDraft("GET", h2.url() + "/reset?t=" + tag, "HTTP/2", Headers.EMPTY, null),
        Replayer.Protocol.H2, -1);
    assertThat(h2Reset.state()).isEqualTo(FlowState.FAILED);
    assertThat(h2Reset.error().kind()).isEqualTo(FlowError.Kind.SERVER_RESET);

    try (TestOrigin untrusted = TestOrigin.untrustedHttps()) {
      Flow tls = send(new RequestDraft("GET", untrusted.url() + "/bytes/1", "HTTP/1.1", Headers.EMPTY, null),
          Replayer.Protocol.AUTO, -1);
      assertThat(tls.state()).isEqualTo(FlowState.FAILED);
      assertThat(tls.error().kind()).isEqualTo(FlowError.Kind.TLS_VERIFY);
    }

    Flow dns = send(new RequestDraft("GET", "http://no-such-host.invalid/", "HTTP/1.1", Headers.EMPTY, null),
        Replayer.Protocol.AUTO, -1);
    assertThat(dns.state()).isEqualTo(FlowState.FAILED);
    assertThat(dns.error().kind()).isEqualTo(FlowError.Kind.DNS);
  }

  @Test
  void headInterimResponsesAndTrailersOnEveryProtocolTheOriginSpeaks() throws Exception {
    String tag = UUID.randomUUID().toString();
    for (TestOrigin origin : new TestOrigin[] {h1, h2}) {
      Replayer.Protocol p = origin == h1 ? Replayer.Protocol.H1 : Replayer.Protocol.H2;
      Flow head = send(new RequestDraft("HEAD", origin.url() + "/bytes/1000?head=" + tag, "HTTP/1.1",
          Headers.EMPTY, null), p, -1);
      assertThat(head.state()).as("%s %s", p, head).isEqualTo(FlowState.COMPLETE);
      assertThat(head.response().headers().get("content-length")).isEqualTo("1000");
      assertThat(head.responseBody().size()).isZero();

      byte[] body = TestData.bytes(10_000);
      Flow expect = send(new RequestDraft("POST", origin.url() + "/sha256?expect=" + tag, "HTTP/1.1",
          Headers.of("Expect", "100-continue"), body), p, -1);
      assertThat(expect.state()).as("%s %s", p, expect).isEqualTo(FlowState.COMPLETE);
      assertThat(expect.informationalResponses()).extracting(r -> r.status()).containsExactly(100);
      assertThat(expect.response().status()).isEqualTo(200);
      assertThat(new String(expect.responseBody().bytes(), StandardCharsets.UTF_8))
          .isEqualTo(TestData.sha256(body) + " " + body.length);

      Flow trailers = send(new RequestDraft("GET", origin.url() + "/trailers?t=" + tag, "HTTP/1.1",
          Headers.of("TE", "trailers"), null), p, -1);
      assertThat(trailers.state()).as("%s %s", p, trailers).isEqualTo(FlowState.COMPLETE);
      assertThat(new String(trailers.responseBody().bytes(), StandardCharsets.UTF_8)).isEqualTo("hello trailers");
      assertThat(trailers.responseTrailers().get("x-checksum")).isEqualTo("abc123");
    }
  }
}
