package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/2 on the client leg bridged to an HTTP/1.1 origin (one that offers only {@code http/1.1} by
 * ALPN, so the server leg stays HTTP/1.1 whatever Loupe offers it): the JDK client with
 * {@code HTTP_2} through the proxy, and {@link Http2TestClient} for what the JDK client cannot do
 * (RST_STREAM, a small window, trailers, watching the interim 100).
 */
@Timeout(600)
class Http2ClientLegTest {
  static ProxyFixture proxy;
  static TestOrigin origin;
  static HttpClient client;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.h1Only();
    client = proxy.clientBuilder().version(HttpClient.Version.HTTP_2).build();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    origin.close();
  }

  static Stream<Integer> sizes() {
    return Stream.of(0, 1, 16383, 16385, 1 << 20, 64 << 20);
  }

  /** A flow bridged from an HTTP/2 client stream to HTTP/1.1. */
  private static void assertBridged(Flow flow) {
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/1.1");
    assertThat(flow.request().httpVersion()).isEqualTo("HTTP/2");
    assertThat(flow.clientStreamId()).as("client stream id").isPositive().isOdd();
    assertThat(flow.serverStreamId()).as("no stream on an HTTP/1.1 server leg").isEqualTo(-1);
    assertThat(flow.clientConnection().tls()).isNotNull();
    assertThat(flow.clientConnection().tls().alpn()).isEqualTo("h2");
  }

  // ---- bodies --------------------------------------------------------------------------------

  @ParameterizedTest(name = "GET {0} bytes")
  @MethodSource("sizes")
  void getByteExact(int size) throws Exception {
    String target = "/bytes/" + size + "?t=get";
    String url = origin.url() + target;
    HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(size));

    Flow flow = proxy.awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertBridged(flow);
    assertThat(flow.request().url()).isEqualTo(url);
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.responseBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(size));
    assertThat(origin.awaitSeen(target).protocol()).isEqualTo(TestOrigin.HTTP_1_1);
  }

  @ParameterizedTest(name = "POST {0} bytes")
  @MethodSource("sizes")
  void postByteExact(int size) throws Exception {
    String target = "/sha256?t=post-" + size + "-bytes";
    String url = origin.url() + target;
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url))
            .POST(size == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(size)), size))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.sha256(size) + " " + size);

    Flow flow = proxy.awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertBridged(flow);
    assertThat(flow.requestBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.requestBody().openStream())).isEqualTo(TestData.sha256(size));
    TestOrigin.Seen seen = origin.awaitSeen(target);
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_1_1);
    assertThat(seen.ending().get(15, TimeUnit.SECONDS).requestBodyLength()).isEqualTo(size);
  }

  @Test
  void postOfUnknownLengthArrivesChunked() throws Exception {
    int n = 200_003;
    String url = origin.url() + "/sha256?t=post-unknown-length";
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(n))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.body()).isEqualTo(TestData.sha256(n) + " " + n);
    TestOrigin.Seen seen = origin.awaitSeen("t=post-unknown-length");
    assertThat(seen.headers().get("transfer-encoding")).isEqualToIgnoringCase("chunked");
    assertThat(seen.headers().contains("content-length")).isFalse();
    assertThat(seen.headers().get("host")).isEqualTo(URI.create(url).getRawAuthority());
    // The flow records the HTTP/2 request as sent: no transfer coding, no host made from :authority.
    Flow flow = proxy.awaitFlow("t=post-unknown-length");
    assertThat(flow.request().headers().contains("transfer-encoding")).isFalse();
    assertThat(flow.request().headers().contains("host")).isFalse();
    assertThat(flow.request().authority()).isEqualTo(URI.create(url).getRawAuthority());
    assertThat(flow.requestBody().size()).isEqualTo(n);
  }

  // ---- multiplexing --------------------------------------------------------------------------

  @Test
  void hundredConcurrentStreamsOnOneConnection() throws Exception {
    // A fresh client, warmed up by one request so that the other 100 find its connection (the JDK
    // client opens one connection per request until the first one has negotiated h2).
    HttpClient c = proxy.clientBuilder().version(HttpClient.Version.HTTP_2).build();
    HttpResponse<String> warm = c.send(HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?t=multi-warm"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(warm.version()).isEqualTo(HttpClient.Version.HTTP_2);
    long connection = proxy.awaitFlow("t=multi-warm").clientConnection().id();

    int streams = 100;
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      int n = 50_000 + 997 * i;
      if (i % 2 == 0) {
        answers.add(c.sendAsync(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/" + n + "?t=multi-" + i))
                .build(), HttpResponse.BodyHandlers.ofByteArray())
            .thenApply(r -> {
              assertThat(r.statusCode()).isEqualTo(200);
              assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
              return TestData.sha256(r.body()) + " " + r.body().length;
            }));
      } else {
        answers.add(c.sendAsync(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256?t=multi-" + i))
                .POST(HttpRequest.BodyPublishers.ofByteArray(TestData.bytes(n))).build(),
            HttpResponse.BodyHandlers.ofString()).thenApply(HttpResponse::body));
      }
    }
    for (int i = 0; i < streams; i++) {
      int n = 50_000 + 997 * i;
      assertThat(answers.get(i).get(120, TimeUnit.SECONDS)).as("stream %d", i)
          .isEqualTo(TestData.sha256(n) + " " + n);
    }

    List<Flow> flows = proxy.awaitFlows(streams, f -> f.request() != null && f.request().url().contains("t=multi-")
        && !f.request().url().contains("t=multi-warm"));
    assertThat(flows).hasSize(streams);
    Set<Integer> ids = new HashSet<>();
    for (Flow f : flows) {
      assertThat(f.state()).as("%s", f).isEqualTo(FlowState.COMPLETE);
      assertBridged(f);
      assertThat(f.clientConnection().id()).as("client connection of %s", f).isEqualTo(connection);
      ids.add(f.clientStreamId());
    }
    assertThat(ids).as("distinct stream ids").hasSize(streams);
  }

  // ---- cancel ----------------------------------------------------------------------------------

  @Test
  void clientCancelEndsTheFlowAndClosesTheOriginConnection() throws Exception {
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.open();
      s.cancelAfter(256 * 1024);
      s.headers(h2.request("GET", "/bytes/" + (64 << 20) + "?t=cancel-streaming"), true);
      assertThatThrownBy(() -> s.await(60)).hasRootCauseMessage("stream cancelled by this client");
      assertThat(s.length()).isGreaterThanOrEqualTo(256 * 1024).isLessThan(64 << 20);

      Flow flow = proxy.awaitFlow("t=cancel-streaming");
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
      assertBridged(flow);
      assertThat(flow.response().status()).as("the response had started").isEqualTo(200);

      // The origin's HTTP/1.1 connection is closed before it could write the whole response: the
      // only way to cancel an HTTP/1.1 request.
      TestOrigin.Ending ending = origin.awaitSeen("t=cancel-streaming").ending().get(30, TimeUnit.SECONDS);
      assertThat(ending.outcome()).as("origin side of the cancelled stream").isEqualTo(TestOrigin.Outcome.CLOSED);

      // Only that stream went: the connection still carries new streams.
      Http2TestClient.Stream next = h2.send("GET", "/bytes/1000?t=after-cancel").await(30);
      assertThat(next.status()).isEqualTo(200);
      assertThat(next.sha256()).isEqualTo(TestData.sha256(1000));
      assertThat(h2.goAwayErrorCodes()).isEmpty();
    }
  }

  @Test
  void clientCancelBeforeTheResponseEndsTheFlow() throws Exception {
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.send("GET", "/slow/60000?t=cancel-waiting");
      TestOrigin.Seen seen = origin.awaitSeen("t=cancel-waiting");
      s.reset(Http2Error.CANCEL);

      Flow flow = proxy.awaitFlow("t=cancel-waiting");
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
      assertThat(seen.ending().get(30, TimeUnit.SECONDS).outcome()).isEqualTo(TestOrigin.Outcome.CLOSED);
      assertThat(h2.goAwayErrorCodes()).isEmpty();
    }
  }

  @Test
  void clientConnectionLossAbortsEveryStream() throws Exception {
    Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin);
    List<TestOrigin.Seen> seen = new ArrayList<>();
    try (h2) {
      for (int i = 0; i < 3; i++) {
        h2.send("GET", "/slow/60000?t=connection-lost-" + i);
      }
      for (int i = 0; i < 3; i++) {
        seen.add(origin.awaitSeen("t=connection-lost-" + i));
      }
    }
    List<Flow> flows = proxy.awaitFlows(3, f -> f.request() != null && f.request().url().contains("t=connection-lost-"));
    assertThat(flows).allSatisfy(f -> {
      assertThat(f.state()).isEqualTo(FlowState.FAILED);
      assertThat(f.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
    });
    for (TestOrigin.Seen s : seen) {
      assertThat(s.ending().get(30, TimeUnit.SECONDS).outcome()).as("%s", s).isEqualTo(TestOrigin.Outcome.CLOSED);
    }
  }

  @Test
  void goAwayFromTheClientLetsStreamsInFlightFinish() throws Exception {
    int n = 8 << 20;
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.send("GET", "/bytes/" + n + "?t=goaway-in-flight");
      s.response.get(30, TimeUnit.SECONDS);
      h2.connection().writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR))
          .sync();
      s.await(60);
      assertThat(s.sha256()).isEqualTo(TestData.sha256(n));
    }
    Flow flow = proxy.awaitFlow("t=goaway-in-flight");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
  }

  // ---- flow control ----------------------------------------------------------------------------

  @Test
  void smallClientWindowDownloads64MiB() throws Exception {
    int n = 64 << 20;
    Http2Settings settings = Http2Settings.defaultSettings().initialWindowSize(16 * 1024);
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin, settings)) {
      Http2TestClient.Stream s = h2.send("GET", "/bytes/" + n + "?t=small-window").await(300);
      assertThat(s.status()).isEqualTo(200);
      assertThat(s.length()).isEqualTo(n);
      assertThat(s.sha256()).isEqualTo(TestData.sha256(n));
      assertThat(h2.goAwayErrorCodes()).as("no FLOW_CONTROL_ERROR or other GOAWAY").isEmpty();
    }
    Flow flow = proxy.awaitFlow("t=small-window");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.responseBody().size()).isEqualTo(n);
  }

  // ---- trailers --------------------------------------------------------------------------------

  @Test
  void requestTrailersReachTheOriginAsChunkedTrailers() throws Exception {
    int n = 100_000;
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.open();
      s.headers(h2.request("POST", "/trailers-echo?t=request-trailers").set("te", "trailers")
          .set("content-type", "application/octet-stream"), false);
      s.body(n, true);
      s.trailers(new io.netty.handler.codec.http2.DefaultHttp2Headers()
          .set("x-body-sha256", TestData.sha256(n)).set("x-note", "sent after the body"));
      s.await(30);

      assertThat(s.status()).isEqualTo(200);
      assertThat(s.text()).isEqualTo(TestData.sha256(n) + " " + n);
      Http2Headers trailers = s.trailers();
      assertThat(trailers).as("trailing HEADERS frame").isNotNull();
      assertThat(trailers.get("x-body-sha256")).hasToString(TestData.sha256(n));
      assertThat(trailers.get("x-note")).hasToString("sent after the body");
    }
    TestOrigin.Seen seen = origin.awaitSeen("t=request-trailers");
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_1_1);
    assertThat(seen.headers().get("transfer-encoding")).as("trailers need chunked coding")
        .isEqualToIgnoringCase("chunked");
    TestOrigin.Ending ending = seen.ending().get(15, TimeUnit.SECONDS);
    assertThat(ending.requestBodyLength()).isEqualTo(n);
    assertThat(ending.requestTrailers().get("x-body-sha256")).isEqualTo(TestData.sha256(n));
    assertThat(ending.requestTrailers().get("x-note")).isEqualTo("sent after the body");

    Flow flow = proxy.awaitFlow("t=request-trailers");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.requestTrailers().get("x-body-sha256")).isEqualTo(TestData.sha256(n));
    assertThat(flow.responseTrailers().get("x-note")).isEqualTo("sent after the body");
  }

  @Test
  void responseTrailersReachTheClientAsTrailingHeaders() throws Exception {
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.open();
      s.headers(h2.request("GET", "/trailers?t=response-trailers").set("te", "trailers"), true);
      s.await(30);
      assertThat(s.status()).isEqualTo(200);
      assertThat(s.text()).isEqualTo("hello trailers");
      assertThat(s.responseHeaders().contains("transfer-encoding")).as("connection-specific field").isFalse();
      assertThat(s.trailers()).as("trailing HEADERS frame").isNotNull();
      assertThat(s.trailers().get("x-checksum")).hasToString("abc123");
    }
    Flow flow = proxy.awaitFlow("t=response-trailers");
    assertThat(flow.responseTrailers().get("x-checksum")).isEqualTo("abc123");
    assertThat(origin.awaitSeen("t=response-trailers").headers().get("te")).isEqualTo("trailers");
  }

  // ---- body-less responses and 100-continue ------------------------------------------------

  @Test
  void headOverHttp2() throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/5000?t=head"))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-length")).hasValue("5000");
    assertThat(r.body()).isEmpty();

    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.send("HEAD", "/bytes/5000?t=head-frames").await(30);
      assertThat(s.status()).isEqualTo(200);
      assertThat(s.length()).as("no body bytes for HEAD").isZero();
      assertThat(s.dataFrames.get()).as("HEADERS with END_STREAM, no DATA frame").isZero();
    }
    Flow flow = proxy.awaitFlow("t=head-frames");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.responseBody().size()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {204, 304})
  void bodilessStatusOverHttp2(int status) throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(
        URI.create(origin.url() + "/status/" + status + "?t=status-" + status)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.body()).isEmpty();
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.send("GET", "/status/" + status + "?t=frames-" + status).await(30);
      assertThat(s.status()).isEqualTo(status);
      assertThat(s.length()).isZero();
      assertThat(s.dataFrames.get()).as("HEADERS with END_STREAM, no DATA frame").isZero();
    }
    Flow flow = proxy.awaitFlow("t=status-" + status);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.response().status()).isEqualTo(status);
  }

  @Test
  void expectContinueInterimIsAHeadersFrameBeforeTheBody() throws Exception {
    int n = 65_537;
    try (Http2TestClient h2 = Http2TestClient.viaProxy(proxy, origin)) {
      Http2TestClient.Stream s = h2.open();
      s.headers(h2.request("POST", "/continue?t=continue-frames").set("expect", "100-continue")
          .setInt("content-length", n), false);
      Http2Headers interim = s.interim.get(30, TimeUnit.SECONDS);
      assertThat(interim.status()).hasToString("100");
      assertThat(s.response).as("no final response before the body").isNotDone();
      s.body(n, false);
      s.await(30);
      assertThat(s.status()).isEqualTo(200);
      assertThat(s.text()).isEqualTo(TestData.sha256(n) + " " + n);
      assertThat(s.informational).hasSize(1);
    }
    Flow flow = proxy.awaitFlow("t=continue-frames");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.informationalResponses()).extracting(ResponseHead::status).containsExactly(100);
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.requestBody().size()).isEqualTo(n);
  }

  @Test
  void expectContinueWithTheJdkClient() throws Exception {
    int n = 65_537;
    String url = origin.url() + "/continue?t=continue-jdk";
    HttpResponse<String> r = client.sendAsync(HttpRequest.newBuilder(URI.create(url)).expectContinue(true)
            .POST(HttpRequest.BodyPublishers.ofByteArray(TestData.bytes(n))).build(),
        HttpResponse.BodyHandlers.ofString()).get(60, TimeUnit.SECONDS);
    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.sha256(n) + " " + n);
    Flow flow = proxy.awaitFlow("t=continue-jdk");
    assertThat(flow.informationalResponses()).extracting(ResponseHead::status).containsExactly(100);
  }

  // ---- WebSocket ---------------------------------------------------------------------------

  @Test
  void webSocketFallsBackToHttp1() throws Exception {
    // The JDK's WebSocket client opens its handshake over HTTP/1.1 even from an HTTP_2 client, so
    // Loupe must not push that TLS connection to h2.
    URI uri = URI.create("wss://127.0.0.1:" + origin.port() + "/ws?t=ws-fallback");
    WebSocketTest.Recorder rec = new WebSocketTest.Recorder();
    WebSocket ws = client.newWebSocketBuilder().buildAsync(uri, rec).get(20, TimeUnit.SECONDS);
    ws.sendText("over h1", true).get(20, TimeUnit.SECONDS);
    assertThat(rec.next()).isEqualTo("over h1");
    ws.sendClose(1000, "bye").get(20, TimeUnit.SECONDS);
    assertThat(rec.closed.get(20, TimeUnit.SECONDS)).isEqualTo("1000 bye");

    Flow flow = proxy.awaitFlow("t=ws-fallback");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.isWebSocket()).isTrue();
    assertThat(flow.response().status()).isEqualTo(101);
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/1.1");
    assertThat(flow.clientStreamId()).isEqualTo(-1);
    assertThat(flow.webSocketMessages()).isNotEmpty();
  }
}
