package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 6, client leg: in reverse mode Loupe also listens for QUIC on the TCP listener's port
 * number, and every HTTP/3 request stream runs through the same exchange as HTTP/1.1 and HTTP/2 to
 * an HTTP/1.1 origin (cleartext) or an HTTP/2 origin (TLS, ALPN h2 only).
 *
 * <p>The client is Netty's HTTP/3 client ({@link Http3TestClient}) on its own loop, verifying the
 * certificate Loupe presents over QUIC against the Loupe CA with hostname checking on. Bodies are
 * checked by SHA-256 and length, up to 64 MiB each way (a single large write must not stall).
 */
@Timeout(600)
class Http3ReverseModeTest {
  static TestOrigin h1Origin;
  static TestOrigin h2Origin;
  static ProxyFixture toH1;
  static ProxyFixture toH2;
  static Http3TestClient h1Client;
  static Http3TestClient h2Client;
  /**
   * The name clients ask for. Not "localhost": Netty's QUIC client sends no SNI for a name without
   * a dot (nor for IP literals), and then gets the certificate for the reverse target's host.
   */
  static final String NAME = "h3.loupe.test";

  @BeforeAll
  static void start() throws Exception {
    h1Origin = TestOrigin.http();
    h2Origin = TestOrigin.h2Only();
    toH1 = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(h1Origin.url())));
    toH2 = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(h2Origin.url())));
    h1Client = client(toH1, NAME);
    h2Client = client(toH2, NAME);
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {h1Client, h2Client, toH1, toH2, h1Origin, h2Origin}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  private static Http3TestClient client(ProxyFixture proxy, String sni) throws Exception {
    assertThat(proxy.engine().http3Problem()).isNull();
    return new Http3TestClient(proxy.engine().http3Address(), sni, TestPki.shared().loupeCa().certificate());
  }

  enum Origin {
    H1("HTTP/1.1"),
    H2("HTTP/2");

    final String protocol;

    Origin(String protocol) {
      this.protocol = protocol;
    }

    ProxyFixture proxy() {
      return this == H1 ? toH1 : toH2;
    }

    /** The shared client; a new one when the last went idle past QUIC's idle timeout. */
    Http3TestClient client() throws Exception {
      Http3TestClient c = this == H1 ? h1Client : h2Client;
      if (c.connection().isActive()) {
        return c;
      }
      c.close();
      c = Http3ReverseModeTest.client(proxy(), NAME);
      if (this == H1) {
        h1Client = c;
      } else {
        h2Client = c;
      }
      return c;
    }

    TestOrigin origin() {
      return this == H1 ? h1Origin : h2Origin;
    }
  }

  static Stream<Arguments> bodies() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (Origin o : Origin.values()) {
      for (String method : new String[] {"GET", "POST"}) {
        for (long size : new long[] {0, 1, 16 * 1024 - 1, 16 * 1024 + 1, 1 << 20, 64L << 20}) {
          b.add(Arguments.of(o, method, size));
        }
      }
    }
    return b.build();
  }

  private static String authority(Origin o) {
    return NAME + ":" + o.proxy().port();
  }

  private static String tag() {
    return UUID.randomUUID().toString();
  }

  @ParameterizedTest(name = "{1} {2} bytes, HTTP/3 client to {0} origin")
  @MethodSource("bodies")
  void bodiesAreByteExact(Origin o, String method, long size) throws Exception {
    String tag = tag();
    long started = System.nanoTime();
    Http3TestClient.Response r = method.equals("GET")
        ? o.client().send("GET", "/bytes/" + size + "?t=" + tag, authority(o), 0).get(120, TimeUnit.SECONDS)
        : o.client().send("POST", "/echo?t=" + tag, authority(o), size).get(120, TimeUnit.SECONDS);
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.length()).as("body length").isEqualTo(size);
    assertThat(r.sha256()).as("body SHA-256").isEqualTo(TestData.sha256(size));
    assertThat(r.headers().get("alt-svc")).as("no Alt-Svc on HTTP/3 itself").isNull();
    if (size == 64L << 20) {
      assertThat(ms).as("64 MiB through QUIC in reasonable time (ms)").isLessThan(60_000);
    }

    Flow flow = o.proxy().awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/3");
    assertThat(flow.serverProtocol()).isEqualTo(o.protocol);
    assertThat(flow.request().httpVersion()).isEqualTo("HTTP/3");
    assertThat(flow.request().method()).isEqualTo(method);
    assertThat(flow.clientStreamId()).as("client-initiated bidirectional stream id").isGreaterThanOrEqualTo(0)
        .matches(id -> id % 4 == 0);
    assertThat(flow.clientQuicConnectionId()).isNotBlank().matches("[0-9a-f]+");
    assertThat(flow.clientConnection().remoteAddress().getPort())
        .isEqualTo(((InetSocketAddress) o.client().connection().localSocketAddress()).getPort());
    assertThat(flow.clientConnection().tls()).isNotNull();
    assertThat(flow.clientConnection().tls().alpn()).isEqualTo("h3");
    assertThat(flow.clientConnection().tls().sni()).as("the SNI the client sent").isEqualTo(NAME);
    assertThat(flow.response().status()).isEqualTo(200);
    if (method.equals("POST")) {
      assertThat(flow.requestBody().size()).isEqualTo(size);
    }
    assertThat(flow.responseBody().size()).isEqualTo(size);

    TestOrigin.Seen seen = o.origin().awaitSeen("t=" + tag);
    assertThat(seen.protocol()).isEqualTo(o.protocol);
    TestOrigin.Ending ending = seen.ending().get(10, TimeUnit.SECONDS);
    assertThat(ending.answered()).isTrue();
    assertThat(ending.requestBodyLength()).isEqualTo(method.equals("POST") ? size : 0);
    if (method.equals("GET") && o == Origin.H1) {
      // HEADERS then FIN became one bodiless request, not a chunked one with an empty body.
      assertThat(seen.headers().get("transfer-encoding")).isNull();
      assertThat(seen.headers().get("content-length")).isNull();
    }
  }

  @ParameterizedTest(name = "HEAD to {0} origin")
  @MethodSource("origins")
  void head(Origin o) throws Exception {
    String tag = tag();
    Http3TestClient.Response r = o.client().send("HEAD", "/bytes/1000?t=" + tag, authority(o), 0)
        .get(30, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.length()).isZero();
    assertThat(r.headers().get("content-length")).hasToString("1000");
    Flow flow = o.proxy().awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.request().method()).isEqualTo("HEAD");
  }

  static Stream<Origin> origins() {
    return Stream.of(Origin.values());
  }

  @ParameterizedTest(name = "response trailers from {0} origin")
  @MethodSource("origins")
  void responseTrailers(Origin o) throws Exception {
    String tag = tag();
    Http3TestClient.Response r = o.client().send("GET", "/trailers?t=" + tag, authority(o), 0)
        .get(30, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.length()).isEqualTo("hello trailers".length());
    assertThat(r.trailers()).as("trailing HEADERS frame").isNotNull();
    assertThat(r.trailers().get("x-checksum")).hasToString("abc123");
    assertThat(o.proxy().awaitFlow(tag).responseTrailers().get("x-checksum")).isEqualTo("abc123");
  }

  @ParameterizedTest(name = "100 concurrent streams on one QUIC connection to {0} origin")
  @MethodSource("origins")
  void hundredConcurrentStreams(Origin o) throws Exception {
    String tag = tag();
    try (Http3TestClient c = client(o.proxy(), NAME)) {
      List<CompletableFuture<Http3TestClient.Response>> all = new ArrayList<>();
      List<Long> sizes = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        long size = 20_000L + i * 997L;
        sizes.add(size);
        all.add(i % 2 == 0
            ? c.send("GET", "/bytes/" + size + "?t=" + tag + "&i=" + i, authority(o), 0)
            : c.send("POST", "/echo?t=" + tag + "&i=" + i, authority(o), size));
      }
      for (int i = 0; i < 100; i++) {
        Http3TestClient.Response r = all.get(i).get(120, TimeUnit.SECONDS);
        assertThat(r.status()).as("stream " + i).isEqualTo(200);
        assertThat(r.sha256()).as("stream " + i).isEqualTo(TestData.sha256(sizes.get(i)));
      }
      List<Flow> flows = o.proxy().awaitFlows(100, f -> f.request() != null && f.request().url().contains(tag));
      Set<Long> connections = new HashSet<>();
      Set<Integer> streams = new HashSet<>();
      for (Flow f : flows) {
        assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
        connections.add(f.clientConnection().id());
        streams.add(f.clientStreamId());
      }
      assertThat(connections).as("one client connection").hasSize(1);
      assertThat(streams).as("a stream each").hasSize(100);
    }
  }

  /**
   * Three rounds, each after an 8 MiB download on the same connection: a cancel can find the
   * stream blocked by its own flow-control credit or by the connection's.
   */
  @ParameterizedTest(name = "client cancels mid-response from {0} origin")
  @MethodSource("origins")
  void clientCancelsMidResponse(Origin o) throws Exception {
    for (int round = 0; round < 3; round++) {
      Http3TestClient.Response before = o.client().send("GET", "/bytes/" + (8 << 20), authority(o), 0)
          .get(60, TimeUnit.SECONDS);
      assertThat(before.sha256()).isEqualTo(TestData.sha256(8 << 20));
      cancelOnce(o);
    }
  }

  private void cancelOnce(Origin o) throws Exception {
    String tag = tag();
    AtomicBoolean cancelled = new AtomicBoolean();
    long[] received = new long[1];
    CompletableFuture<Http3TestClient.Response> r = o.client().send("GET", "/bytes/" + (256L << 20) + "?t=" + tag,
        authority(o), 0, Map.of(), (QuicStreamChannel s) -> {
          received[0]++;
          if (received[0] == 20 && cancelled.compareAndSet(false, true)) {
            Http3TestClient.cancel(s);
          }
        });
    await().atMost(Duration.ofSeconds(30)).untilTrue(cancelled);
    assertThatThrownBy(() -> r.get(30, TimeUnit.SECONDS)).hasMessageContaining("stream");

    Flow flow = o.proxy().awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
    assertThat(flow.error().message()).contains("cancelled the HTTP/3 stream");
    assertThat(flow.responseBody().size()).isLessThan(256L << 20);

    TestOrigin.Ending ending = o.origin().awaitSeen("t=" + tag).ending().get(30, TimeUnit.SECONDS);
    assertThat(ending.answered()).as("the origin saw the request aborted").isFalse();
    assertThat(ending.outcome()).isEqualTo(o == Origin.H1 ? TestOrigin.Outcome.CLOSED : TestOrigin.Outcome.RESET);

    // The connection carries on.
    Http3TestClient.Response next = o.client().send("GET", "/bytes/10?t=" + tag(), authority(o), 0)
        .get(30, TimeUnit.SECONDS);
    assertThat(next.sha256()).isEqualTo(TestData.sha256(10));
  }

  /**
   * The client resets its stream mid-upload (RESET_STREAM H3_REQUEST_CANCELLED): the origin must
   * see the request cut off, never a complete shorter body.
   */
  @ParameterizedTest(name = "client cancels mid-upload to {0} origin")
  @MethodSource("origins")
  void clientCancelsMidUpload(Origin o) throws Exception {
    String tag = tag();
    long size = 256L << 20;
    CompletableFuture<QuicStreamChannel> stream = new CompletableFuture<>();
    CompletableFuture<Http3TestClient.Response> r = o.client().send("POST", "/sha256?t=" + tag, authority(o), size,
        Map.of(), s -> {}, stream);
    await().atMost(Duration.ofSeconds(30)).until(() -> o.proxy().store().snapshot().stream()
        .anyMatch(f -> f.request() != null && f.request().url().contains(tag) && f.requestBody().size() > (1 << 20)));
    QuicStreamChannel s = stream.get(10, TimeUnit.SECONDS);
    s.eventLoop().execute(() -> Http3TestClient.cancel(s));
    assertThatThrownBy(() -> r.get(30, TimeUnit.SECONDS)).isNotNull();

    Flow flow = o.proxy().awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
    assertThat(flow.error().message()).contains("cancelled the HTTP/3 stream");
    TestOrigin.Ending ending = o.origin().awaitSeen("t=" + tag).ending().get(30, TimeUnit.SECONDS);
    assertThat(ending.requestEnded()).as("the origin never saw the request end").isFalse();
    assertThat(ending.answered()).isFalse();
    assertThat(ending.requestBodyLength()).isLessThan(size);
  }

  /**
   * {@code Expect: 100-continue} from an HTTP/3 client: the origin's {@code 100} comes back as an
   * interim HEADERS frame, and only then does the client send its body (it never would without it).
   */
  @ParameterizedTest(name = "Expect: 100-continue to {0} origin")
  @MethodSource("origins")
  void expectContinue(Origin o) throws Exception {
    String tag = tag();
    long size = (1 << 20) + 1;
    Http3TestClient.Response r = o.client().send("POST", "/sha256?t=" + tag, authority(o), size,
        Map.of("expect", "100-continue"), s -> {}).get(60, TimeUnit.SECONDS);
    assertThat(r.interim()).as("interim heads").extracting(h -> h.status().toString()).containsExactly("100");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.sha256()).as("the origin's digest of the body")
        .isEqualTo(TestData.sha256((TestData.sha256(size) + " " + size).getBytes(java.nio.charset.StandardCharsets.UTF_8)));

    Flow flow = o.proxy().awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.informationalResponses()).extracting(h -> h.status()).containsExactly(100);
    assertThat(flow.requestBody().size()).isEqualTo(size);
    TestOrigin.Seen seen = o.origin().awaitSeen("t=" + tag);
    assertThat(seen.headers().get("expect")).as("the expectation reached the origin, which answered it")
        .isEqualTo("100-continue");
    assertThat(seen.ending().get(30, TimeUnit.SECONDS).requestBodyLength()).isEqualTo(size);
  }

  /** A {@code 103 Early Hints} from the origin reaches the HTTP/3 client before the final response. */
  @ParameterizedTest(name = "103 Early Hints from {0} origin")
  @MethodSource("origins")
  void earlyHints(Origin o) throws Exception {
    String tag = tag();
    Http3TestClient.Response r = o.client().send("GET", "/early-hints?t=" + tag, authority(o), 0)
        .get(30, TimeUnit.SECONDS);
    assertThat(r.interim()).as("interim heads").singleElement().satisfies(h -> {
      assertThat(h.status()).hasToString("103");
      assertThat(h.get("link")).hasToString("</style.css>; rel=preload");
    });
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.sha256()).isEqualTo(TestData.sha256("early hints".getBytes(java.nio.charset.StandardCharsets.UTF_8)));

    Flow flow = o.proxy().awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.informationalResponses()).singleElement().satisfies(h -> {
      assertThat(h.status()).isEqualTo(103);
      assertThat(h.headers().get("link")).isEqualTo("</style.css>; rel=preload");
    });
    assertThat(flow.response().status()).isEqualTo(200);
  }

  @Test
  void tcpResponsesAdvertiseTheQuicListener() throws Exception {
    int port = toH1.port();
    assertThat(toH1.engine().http3Address().getPort()).as("UDP port = TCP port").isEqualTo(port);
    for (HttpClient.Version v : new HttpClient.Version[] {HttpClient.Version.HTTP_2, HttpClient.Version.HTTP_1_1}) {
      HttpClient jdk = HttpClient.newBuilder().version(v)
          .sslContext(TestPki.shared().clientTrustingLoupe()).connectTimeout(Duration.ofSeconds(10)).build();
      String tag = tag();
      HttpResponse<String> r = jdk.send(HttpRequest.newBuilder(
              URI.create("https://localhost:" + port + "/bytes/10?t=" + tag)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("alt-svc")).as(v.name()).hasValue("h3=\":" + port + "\"; ma=86400");
      Flow flow = toH1.awaitFlow(tag);
      assertThat(flow.clientProtocol()).isEqualTo(v == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1");
    }
  }

  @Test
  void certificateIsVerifiedWithHostnameChecking() throws Exception {
    // Minted for whatever name the client asks for, and it passes the client's hostname check.
    try (Http3TestClient c = client(toH1, "h3.example.test")) {
      Http3TestClient.Response r = c.send("GET", "/bytes/5", "h3.example.test", 0).get(30, TimeUnit.SECONDS);
      assertThat(r.sha256()).isEqualTo(TestData.sha256(5));
    }
    // No SNI (an IP literal): the certificate for the reverse target's host, 127.0.0.1 here, which
    // passes the check against the address.
    try (Http3TestClient c = client(toH1, "127.0.0.1")) {
      Http3TestClient.Response r = c.send("GET", "/bytes/6?nosni", "127.0.0.1", 0).get(30, TimeUnit.SECONDS);
      assertThat(r.sha256()).isEqualTo(TestData.sha256(6));
      assertThat(toH1.awaitFlow("nosni").clientConnection().tls().sni()).isNull();
    }
    // Hostname checking is on: a name the certificate does not carry is refused. (Without SNI,
    // which "localhost" does not send, Loupe presents the 127.0.0.1 certificate.)
    assertThatThrownBy(() -> client(toH1, "localhost").close()).hasStackTraceContaining("CERTIFICATE_VERIFY_FAILED");
    // A client that does not trust the Loupe CA refuses the handshake.
    assertThatThrownBy(() -> new Http3TestClient(toH1.engine().http3Address(), NAME,
        TestPki.shared().untrustedCa().certificate()).close()).hasStackTraceContaining("CERTIFICATE_VERIFY_FAILED");
  }

  @Test
  void shutdownSendsGoAwayAndClosesConnections() throws Exception {
    TestOrigin origin = TestOrigin.http();
    ProxyFixture proxy = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(origin.url())));
    try (Http3TestClient c = client(proxy, NAME)) {
      assertThat(c.send("GET", "/bytes/3", NAME, 0).get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
      assertThat(proxy.engine().http3ClientConnections()).isEqualTo(1);
      proxy.close();
      assertThat(c.connection().closeFuture().await(10, TimeUnit.SECONDS)).as("QUIC connection closed").isTrue();
      assertThat(c.goAwayReceived()).as("GOAWAY before CONNECTION_CLOSE").isTrue();
    } finally {
      origin.close();
    }
  }
}
