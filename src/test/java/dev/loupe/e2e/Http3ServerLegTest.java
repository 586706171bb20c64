package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestPki;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 6, server leg forced with {@code --upstream-protocol h3}: HTTP/1.1 and HTTP/2 clients (the
 * JDK client through Loupe as an explicit proxy, intercepting TLS) reach an HTTP/3 origin
 * ({@link Http3TestOrigin}) over QUIC, its certificate verified against the origin CA with the host
 * name checked; requests share one pooled QUIC connection as multiplexed streams. Bodies are
 * checked by SHA-256 and length.
 */
@Timeout(600)
class Http3ServerLegTest {
  static Http3TestOrigin origin;
  static Http3TestOrigin untrusted;
  static ProxyFixture proxy;

  @BeforeAll
  static void start() throws Exception {
    origin = new Http3TestOrigin(TestPki.shared().originCa());
    untrusted = new Http3TestOrigin(TestPki.shared().untrustedCa());
    // One I/O thread: every client connection shares the loop, so the pool has one QUIC connection.
    proxy = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H3).ioThreads(1));
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {proxy, origin, untrusted}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  static Stream<Arguments> bodies() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (HttpClient.Version v : new HttpClient.Version[] {HttpClient.Version.HTTP_1_1, HttpClient.Version.HTTP_2}) {
      for (String method : new String[] {"GET", "POST"}) {
        for (long size : new long[] {0, 1, 16 * 1024 - 1, 16 * 1024 + 1, 1 << 20, 64L << 20}) {
          b.add(Arguments.of(v, method, size));
        }
      }
    }
    return b.build();
  }

  private static HttpClient client(HttpClient.Version v) {
    return proxy.clientBuilder().version(v).build();
  }

  @ParameterizedTest(name = "{0} client, {1} {2} bytes, HTTP/3 origin")
  @MethodSource("bodies")
  void bodiesAreByteExact(HttpClient.Version v, String method, long size) throws Exception {
    String tag = UUID.randomUUID().toString();
    HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(method.equals("GET")
        ? origin.url() + "/bytes/" + size + "?t=" + tag : origin.url() + "/sha256?t=" + tag));
    if (method.equals("POST")) {
      rb.POST(size == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.fromPublisher(
          HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(size)), size));
    }
    HttpResponse<InputStream> r = client(v).send(rb.build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    try (InputStream in = r.body()) {
      if (method.equals("GET")) {
        assertThat(TestData.sha256(in)).as("response body SHA-256").isEqualTo(TestData.sha256(size));
      } else {
        // The origin's digest of what reached it. (Not an echo: the JDK client reads no response
        // before its upload ends, so an echo larger than the buffers on the way deadlocks.)
        assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
            .as("request body SHA-256 and length at the origin").isEqualTo(TestData.sha256(size) + " " + size);
      }
    }

    Flow flow = proxy.awaitFlow(tag);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.clientProtocol()).isEqualTo(v == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1");
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/3");
    assertThat(flow.response().httpVersion()).isEqualTo("HTTP/3");
    assertThat(flow.serverStreamId()).as("client-initiated bidirectional stream").isGreaterThanOrEqualTo(0)
        .matches(id -> id % 4 == 0);
    assertThat(flow.serverConnection().tls()).isNotNull();
    assertThat(flow.serverConnection().tls().alpn()).isEqualTo("h3");
    assertThat(flow.serverConnection().tls().verified()).isTrue();
    assertThat(flow.serverConnection().tls().peerCertificates()).isNotEmpty();
    if (method.equals("GET")) {
      assertThat(flow.responseBody().size()).isEqualTo(size);
    } else {
      assertThat(flow.requestBody().size()).isEqualTo(size);
    }

    Http3TestOrigin.Seen seen = origin.awaitSeen("t=" + tag);
    Http3TestOrigin.Ending ending = seen.ending().get(30, TimeUnit.SECONDS);
    assertThat(ending.answered()).isTrue();
    assertThat(ending.requestBodyLength()).isEqualTo(method.equals("POST") ? size : 0);
    assertThat(seen.headers()).containsEntry(":authority", "127.0.0.1:" + origin.port())
        .containsEntry(":scheme", "https");
  }

  @Test
  void headAndTrailers() throws Exception {
    HttpClient c = client(HttpClient.Version.HTTP_2);
    HttpResponse<String> head = c.send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/1000?head"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("content-length")).hasValue("1000");

    HttpResponse<String> t = c.send(HttpRequest.newBuilder(URI.create(origin.url() + "/trailers?x")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(t.body()).isEqualTo("hello trailers");
    assertThat(proxy.awaitFlow("/trailers?x").responseTrailers().get("x-checksum")).isEqualTo("abc123");
  }

  @Test
  void hundredConcurrentRequestsShareOnePooledQuicConnection() throws Exception {
    String tag = UUID.randomUUID().toString();
    int before = origin.connections();
    HttpClient c = client(HttpClient.Version.HTTP_2);
    List<CompletableFuture<HttpResponse<InputStream>>> all = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      long size = 20_000L + i * 997L;
      sizes.add(size);
      all.add(c.sendAsync(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/" + size + "?t=" + tag
          + "&i=" + i)).build(), HttpResponse.BodyHandlers.ofInputStream()));
    }
    for (int i = 0; i < 100; i++) {
      HttpResponse<InputStream> r = all.get(i).get(120, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(200);
      try (InputStream in = r.body()) {
        assertThat(TestData.sha256(in)).as("request " + i).isEqualTo(TestData.sha256(sizes.get(i)));
      }
    }
    List<Flow> flows = proxy.awaitFlows(100, f -> f.request() != null && f.request().url().contains(tag));
    assertThat(flows).allSatisfy(f -> assertThat(f.serverProtocol()).isEqualTo("HTTP/3"));
    assertThat(flows.stream().map(f -> f.serverConnection().id()).distinct()).as("one QUIC connection").hasSize(1);
    assertThat(flows.stream().map(Flow::serverQuicConnectionId).distinct()).as("its QUIC connection id on every flow")
        .singleElement().asString().matches("[0-9a-f]+");
    assertThat(flows.stream().map(Flow::serverStreamId).distinct()).as("a stream each").hasSize(100);
    assertThat(origin.connections() - before).as("no new QUIC connection for the burst").isLessThanOrEqualTo(1);
    assertThat(proxy.engine().http3UpstreamConnections()).isEqualTo(1);
  }

  /**
   * HTTP/3 on both legs: Netty's HTTP/3 client to Loupe's reverse-mode QUIC listener, forwarded
   * over QUIC to the HTTP/3 origin. Full duplex (an echo streams back while the upload goes on),
   * and a cancel by the client resets the origin's stream.
   */
  @Test
  void http3ClientToHttp3OriginInReverseMode() throws Exception {
    try (ProxyFixture reverse = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H3)
            .reverse(EngineConfig.Reverse.parse(origin.url())));
        Http3TestClient c = new Http3TestClient(reverse.engine().http3Address(), "h3.loupe.test",
            TestPki.shared().loupeCa().certificate())) {
      String authority = "h3.loupe.test:" + reverse.port();
      for (long size : new long[] {0, 1 << 20, 16L << 20}) {
        String tag = UUID.randomUUID().toString();
        Http3TestClient.Response get = c.send("GET", "/bytes/" + size + "?t=" + tag, authority, 0)
            .get(120, TimeUnit.SECONDS);
        assertThat(get.sha256()).as("GET " + size).isEqualTo(TestData.sha256(size));
        Http3TestClient.Response echo = c.send("POST", "/echo?t=" + tag, authority, size).get(120, TimeUnit.SECONDS);
        assertThat(echo.length()).isEqualTo(size);
        assertThat(echo.sha256()).as("echo " + size).isEqualTo(TestData.sha256(size));
        List<Flow> flows = reverse.awaitFlows(2, f -> f.request() != null && f.request().url().contains(tag));
        assertThat(flows).allSatisfy(f -> {
          assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
          assertThat(f.clientProtocol()).isEqualTo("HTTP/3");
          assertThat(f.serverProtocol()).isEqualTo("HTTP/3");
        });
      }

      String tag = UUID.randomUUID().toString();
      java.util.concurrent.atomic.AtomicInteger chunks = new java.util.concurrent.atomic.AtomicInteger();
      CompletableFuture<Http3TestClient.Response> r = c.send("GET", "/bytes/" + (256L << 20) + "?t=" + tag,
          authority, 0, java.util.Map.of(), s -> {
            if (chunks.incrementAndGet() == 20) {
              Http3TestClient.cancel(s);
            }
          });
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> r.get(30, TimeUnit.SECONDS));
      Flow flow = reverse.awaitFlow(tag);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
      Http3TestOrigin.Ending ending = origin.awaitSeen("t=" + tag).ending().get(30, TimeUnit.SECONDS);
      assertThat(ending.answered()).as("the origin's stream was cut off").isFalse();
    }
  }

  /** An origin allowing 8 concurrent streams: the other requests wait for its stream credit. */
  @Test
  void requestsBeyondTheOriginsStreamLimitWait() throws Exception {
    try (Http3TestOrigin narrow = new Http3TestOrigin(TestPki.shared().originCa(), 8)) {
      String tag = UUID.randomUUID().toString();
      HttpClient c = client(HttpClient.Version.HTTP_2);
      List<CompletableFuture<HttpResponse<InputStream>>> all = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        all.add(c.sendAsync(HttpRequest.newBuilder(URI.create(narrow.url() + "/bytes/" + (100_000 + i) + "?t=" + tag
            + "&i=" + i)).build(), HttpResponse.BodyHandlers.ofInputStream()));
      }
      for (int i = 0; i < 40; i++) {
        HttpResponse<InputStream> r = all.get(i).get(120, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as("request " + i).isEqualTo(200);
        try (InputStream in = r.body()) {
          assertThat(TestData.sha256(in)).as("request " + i).isEqualTo(TestData.sha256(100_000 + i));
        }
      }
      assertThat(narrow.connections()).as("all on one QUIC connection").isEqualTo(1);
      assertThat(proxy.awaitFlows(40, f -> f.request() != null && f.request().url().contains(tag)))
          .allSatisfy(f -> assertThat(f.state()).isEqualTo(FlowState.COMPLETE));
    }
  }

  /**
   * 1xx from the HTTP/3 origin before its final response: {@code 103 Early Hints}, and the
   * {@code 100} it answers {@code Expect: 100-continue} with (the client sends its body only after
   * it). An HTTP/1.1 client read by hand (interim heads on the wire) and an HTTP/2 client (interim
   * HEADERS frames); the flow records them.
   */
  @Test
  void interimResponsesFromTheHttp3OriginReachTheClient() throws Exception {
    String authority = "127.0.0.1:" + origin.port();
    long size = 100_000;
    String hintsH1 = UUID.randomUUID().toString();
    String continueH1 = UUID.randomUUID().toString();
    try (java.net.Socket raw = proxy.socket()) {
      RawHttp.Reader plain = new RawHttp.Reader(raw.getInputStream());
      RawHttp.write(raw.getOutputStream(), "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
      assertThat(plain.read("CONNECT").status()).isEqualTo(200);
      javax.net.ssl.SSLSocket tls = (javax.net.ssl.SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
          .createSocket(raw, "127.0.0.1", origin.port(), true);
      javax.net.ssl.SSLParameters params = tls.getSSLParameters();
      params.setApplicationProtocols(new String[] {"http/1.1"});
      tls.setSSLParameters(params);
      tls.startHandshake();
      RawHttp.Reader in = new RawHttp.Reader(new java.io.BufferedInputStream(tls.getInputStream()));
      java.io.OutputStream out = tls.getOutputStream();

      RawHttp.write(out, "GET /early-hints?t=" + hintsH1 + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
      List<RawHttp.Response> interim = new ArrayList<>();
      RawHttp.Response hints = in.readFinal("GET", interim);
      assertThat(interim).as("interim responses on the wire").singleElement().satisfies(r -> {
        assertThat(r.status()).isEqualTo(103);
        assertThat(r.header("link")).isEqualTo("</style.css>; rel=preload");
      });
      assertThat(hints.status()).isEqualTo(200);
      assertThat(hints.bodyText()).isEqualTo("early hints");

      RawHttp.write(out, "POST /sha256?t=" + continueH1 + " HTTP/1.1\r\nHost: " + authority
          + "\r\nContent-Length: " + size + "\r\nExpect: 100-continue\r\n\r\n");
      assertThat(in.read("POST").status()).as("100 before the body is sent").isEqualTo(100);
      try (InputStream body = TestData.stream(size)) {
        body.transferTo(out);
      }
      out.flush();
      RawHttp.Response done = in.read("POST");
      assertThat(done.status()).isEqualTo(200);
      assertThat(done.bodyText()).isEqualTo(TestData.sha256(size) + " " + size);
    }

    String hintsH2 = UUID.randomUUID().toString();
    String continueH2 = UUID.randomUUID().toString();
    try (Http2TestClient h2 = Http2TestClient.connect(proxy.address(), "127.0.0.1", origin.port(),
        TestPki.shared().loupeCa().certificate(), io.netty.handler.codec.http2.Http2Settings.defaultSettings())) {
      Http2TestClient.Stream hints = h2.send("GET", "/early-hints?t=" + hintsH2).await(30);
      assertThat(hints.informational).as("interim HEADERS frames").singleElement().satisfies(h -> {
        assertThat(h.status()).hasToString("103");
        assertThat(h.get("link")).hasToString("</style.css>; rel=preload");
      });
      assertThat(hints.status()).isEqualTo(200);
      assertThat(hints.text()).isEqualTo("early hints");

      Http2TestClient.Stream up = h2.open();
      up.headers(h2.request("POST", "/sha256?t=" + continueH2).set("expect", "100-continue")
          .setLong("content-length", size), false);
      assertThat(up.interim.get(30, TimeUnit.SECONDS).status()).as("100 before the body is sent").hasToString("100");
      up.body(size, false);
      up.await(30);
      assertThat(up.status()).isEqualTo(200);
      assertThat(up.text()).isEqualTo(TestData.sha256(size) + " " + size);
    }

    for (String t : new String[] {hintsH1, hintsH2}) {
      Flow f = proxy.awaitFlow(t);
      assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
      assertThat(f.serverProtocol()).isEqualTo("HTTP/3");
      assertThat(f.informationalResponses()).singleElement().satisfies(h -> {
        assertThat(h.status()).isEqualTo(103);
        assertThat(h.headers().get("link")).isEqualTo("</style.css>; rel=preload");
      });
    }
    for (String t : new String[] {continueH1, continueH2}) {
      Flow f = proxy.awaitFlow(t);
      assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
      assertThat(f.serverProtocol()).isEqualTo("HTTP/3");
      assertThat(f.informationalResponses()).extracting(h -> h.status()).containsExactly(100);
      assertThat(f.requestBody().size()).isEqualTo(size);
      assertThat(origin.awaitSeen("t=" + t).ending().get(30, TimeUnit.SECONDS).requestBodyLength()).isEqualTo(size);
    }
  }

  /**
   * An origin that vanishes without a word (no CONNECTION_CLOSE: it stops answering, its port
   * goes) is cleaned up by the idle timer: the pooled QUIC connection closes after the pool idle
   * timeout (a request sent meanwhile fails with it), its pool entry goes with it, and a request to
   * the origin started again on the same port gets a new connection.
   */
  @Test
  void vanishedOriginIsCleanedUpByTheIdleTimer() throws Exception {
    Http3TestOrigin gone = new Http3TestOrigin(TestPki.shared().originCa());
    int port = gone.port();
    try (gone; ProxyFixture p = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H3).ioThreads(1)
        .poolIdleTimeout(java.time.Duration.ofSeconds(1)))) {
      HttpClient c = p.clientBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<InputStream> before = c.send(HttpRequest.newBuilder(URI.create(gone.url() + "/bytes/1000?before"))
          .build(), HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = before.body()) {
        assertThat(TestData.sha256(in)).isEqualTo(TestData.sha256(1000));
      }
      assertThat(p.engine().http3UpstreamConnections()).isEqualTo(1);
      assertThat(p.engine().http3UpstreamOrigins()).isEqualTo(1);

      gone.vanish();
      // A request sent to it now is not left hanging: its stream dies with the connection (or a
      // new handshake times out), and the client gets a 502.
      long started = System.nanoTime();
      HttpResponse<String> lost = c.send(HttpRequest.newBuilder(URI.create(gone.url() + "/bytes/10?lost")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(lost.statusCode()).isEqualTo(502);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(20_000);
      assertThat(p.awaitFlow("lost").state()).isEqualTo(FlowState.FAILED);
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> {
        assertThat(p.engine().http3UpstreamConnections()).as("QUIC connections").isZero();
        assertThat(p.engine().http3UpstreamOrigins()).as("pool entries").isZero();
      });

      try (Http3TestOrigin back = new Http3TestOrigin(TestPki.shared().originCa(), 256, port)) {
        String tag = UUID.randomUUID().toString();
        HttpResponse<InputStream> after = c.send(HttpRequest.newBuilder(URI.create(back.url() + "/bytes/100000?t="
            + tag)).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(after.statusCode()).isEqualTo(200);
        try (InputStream in = after.body()) {
          assertThat(TestData.sha256(in)).isEqualTo(TestData.sha256(100_000));
        }
        Flow f = p.awaitFlow(tag);
        assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
        assertThat(f.serverProtocol()).isEqualTo("HTTP/3");
        assertThat(f.serverConnection().reused()).as("a new QUIC connection").isFalse();
        assertThat(back.connections()).isEqualTo(1);
        assertThat(p.engine().http3UpstreamConnections()).isEqualTo(1);
        assertThat(p.engine().http3UpstreamOrigins()).isEqualTo(1);
      }
    }
  }

  @Test
  void untrustedOriginCertificateIsRefused() throws Exception {
    HttpResponse<String> r = client(HttpClient.Version.HTTP_1_1).send(
        HttpRequest.newBuilder(URI.create(untrusted.url() + "/bytes/10?untrusted")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(502);
    Flow flow = proxy.awaitFlow("untrusted");
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.TLS_VERIFY);
    assertThat(untrusted.seen()).isEmpty();
  }
}
