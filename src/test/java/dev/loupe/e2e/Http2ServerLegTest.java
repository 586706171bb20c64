package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.EngineConfig.UpstreamProtocol;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * HTTP/2 on the server leg: h2 client → h2 origin (ALPN, {@code --upstream-protocol auto}), and an
 * HTTP/1.1 client → h2 origin ({@code --upstream-protocol h2}; h2c prior knowledge to a cleartext
 * origin). Byte-exact bodies, multiplexing and the origin's stream limit, cancel as RST_STREAM at
 * the origin, trailers both ways, body-less responses, 100-continue, GOAWAY, and the option itself.
 */
@Timeout(600)
class Http2ServerLegTest {
  /** Regular mode, {@code --upstream-protocol auto}. */
  static ProxyFixture auto;
  /** {@code --upstream-protocol h2}. */
  static ProxyFixture forcedH2;
  /** {@code --upstream-protocol h1}. */
  static ProxyFixture forcedH1;
  /** Offers h2 only. */
  static TestOrigin h2Origin;
  /** Offers h2 and http/1.1. */
  static TestOrigin bothOrigin;
  /** Cleartext, h2 by prior knowledge or HTTP/1.1. */
  static TestOrigin h2cOrigin;
  static HttpClient h2Client;
  static HttpClient h1Client;

  @BeforeAll
  static void start() throws Exception {
    auto = ProxyFixture.start();
    forcedH2 = ProxyFixture.start(b -> b.upstreamProtocol(UpstreamProtocol.H2));
    forcedH1 = ProxyFixture.start(b -> b.upstreamProtocol(UpstreamProtocol.H1));
    h2Origin = TestOrigin.h2Only();
    bothOrigin = TestOrigin.h2AndH1();
    h2cOrigin = TestOrigin.h2c();
    h2Client = auto.clientBuilder().version(HttpClient.Version.HTTP_2).build();
    h1Client = forcedH2.client();
  }

  @AfterAll
  static void stop() {
    auto.close();
    forcedH2.close();
    forcedH1.close();
    h2Origin.close();
    bothOrigin.close();
    h2cOrigin.close();
  }

  /** The two bridges onto an h2 origin. */
  enum Bridge {
    /** h2 client → h2 origin, auto. */
    H2_TO_H2("HTTP/2"),
    /** HTTP/1.1 client → h2 origin, forced h2. */
    H1_TO_H2("HTTP/1.1");

    final String clientProtocol;

    Bridge(String clientProtocol) {
      this.clientProtocol = clientProtocol;
    }

    HttpClient client() {
      return this == H2_TO_H2 ? h2Client : h1Client;
    }

    ProxyFixture proxy() {
      return this == H2_TO_H2 ? auto : forcedH2;
    }
  }

  static Stream<Arguments> cases() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (Bridge bridge : Bridge.values()) {
      for (int size : new int[] {0, 1, 16383, 16385, 1 << 20, 64 << 20}) {
        b.add(Arguments.of(bridge, size));
      }
    }
    return b.build();
  }

  private static void assertOnH2Origin(Flow flow, Bridge bridge) {
    assertThat(flow.clientProtocol()).isEqualTo(bridge.clientProtocol);
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverStreamId()).as("server stream id").isPositive().isOdd();
    assertThat(flow.serverConnection().tls().alpn()).isEqualTo("h2");
    if (bridge == Bridge.H2_TO_H2) {
      assertThat(flow.clientStreamId()).isPositive().isOdd();
    } else {
      assertThat(flow.clientStreamId()).isEqualTo(-1);
    }
  }

  // ---- bodies --------------------------------------------------------------------------------

  @ParameterizedTest(name = "GET {0} {1} bytes")
  @MethodSource("cases")
  void getByteExact(Bridge bridge, int size) throws Exception {
    String target = "/bytes/" + size + "?t=get-" + bridge;
    HttpResponse<InputStream> r = bridge.client().send(HttpRequest.newBuilder(URI.create(h2Origin.url() + target))
        .build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(size));

    Flow flow = bridge.proxy().awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertOnH2Origin(flow, bridge);
    assertThat(flow.responseBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(size));
    TestOrigin.Seen seen = h2Origin.awaitSeen(target);
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_2);
    assertThat(seen.stream()).isEqualTo(flow.serverStreamId());
  }

  @ParameterizedTest(name = "POST {0} {1} bytes")
  @MethodSource("cases")
  void postByteExact(Bridge bridge, int size) throws Exception {
    String target = "/sha256?t=post-" + bridge + "-" + size + "-bytes";
    HttpResponse<String> r = bridge.client().send(HttpRequest.newBuilder(URI.create(h2Origin.url() + target))
            .POST(size == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(size)), size))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.sha256(size) + " " + size);

    Flow flow = bridge.proxy().awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertOnH2Origin(flow, bridge);
    assertThat(flow.requestBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.requestBody().openStream())).isEqualTo(TestData.sha256(size));
    TestOrigin.Ending ending = h2Origin.awaitSeen(target).ending().get(15, TimeUnit.SECONDS);
    assertThat(ending.requestBodyLength()).isEqualTo(size);
  }

  // ---- the option ----------------------------------------------------------------------------

  @Test
  void autoUsesH2OnlyWhenTheClientDid() throws Exception {
    String t1 = "/status/200?t=auto-h2-client";
    assertThat(h2Client.send(HttpRequest.newBuilder(URI.create(bothOrigin.url() + t1)).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    assertThat(auto.awaitFlow(t1).serverProtocol()).isEqualTo("HTTP/2");
    assertThat(bothOrigin.awaitSeen(t1).protocol()).isEqualTo(TestOrigin.HTTP_2);

    String t2 = "/status/200?t=auto-h1-client";
    assertThat(auto.client().send(HttpRequest.newBuilder(URI.create(bothOrigin.url() + t2)).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    assertThat(auto.awaitFlow(t2).serverProtocol()).isEqualTo("HTTP/1.1");
    assertThat(bothOrigin.awaitSeen(t2).protocol()).isEqualTo(TestOrigin.HTTP_1_1);
  }

  @Test
  void forcedH1KeepsAnH2ClientOnHttp11Upstream() throws Exception {
    String t = "/bytes/70000?t=forced-h1";
    HttpClient c = forcedH1.clientBuilder().version(HttpClient.Version.HTTP_2).build();
    HttpResponse<byte[]> r = c.send(HttpRequest.newBuilder(URI.create(bothOrigin.url() + t)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(70_000));
    Flow flow = forcedH1.awaitFlow(t);
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/1.1");
    assertThat(bothOrigin.awaitSeen(t).protocol()).isEqualTo(TestOrigin.HTTP_1_1);
  }

  @Test
  void forcedH2ToAnOriginWithoutH2FailsTheFlowClearly() throws Exception {
    try (TestOrigin h1 = TestOrigin.h1Only()) {
      String t = "/status/200?t=forced-h2-no-h2";
      HttpResponse<String> r = h1Client.send(HttpRequest.newBuilder(URI.create(h1.url() + t)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(502);
      Flow flow = forcedH2.awaitFlow(t);
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.SERVER_PROTOCOL);
      assertThat(flow.error().message()).contains("HTTP/2");
      assertThat(h1.seen()).isEmpty();
    }
  }

  @Test
  void forcedH2ToACleartextOriginUsesPriorKnowledge() throws Exception {
    String t = "/bytes/100000?t=h2c";
    HttpResponse<byte[]> r = h1Client.send(HttpRequest.newBuilder(URI.create(h2cOrigin.url() + t)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(100_000));
    Flow flow = forcedH2.awaitFlow(t);
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.serverConnection().tls()).isNull();
    assertThat(h2cOrigin.awaitSeen(t).protocol()).isEqualTo(TestOrigin.HTTP_2);
  }

  @Test
  void webSocketStaysOnHttp11EvenWhenH2IsForced() throws Exception {
    URI uri = URI.create("wss://127.0.0.1:" + bothOrigin.port() + "/ws?t=ws-forced-h2");
    WebSocketTest.Recorder rec = new WebSocketTest.Recorder();
    WebSocket ws = h1Client.newWebSocketBuilder().buildAsync(uri, rec).get(20, TimeUnit.SECONDS);
    ws.sendText("still h1", true).get(20, TimeUnit.SECONDS);
    assertThat(rec.next()).isEqualTo("still h1");
    ws.sendClose(1000, "bye").get(20, TimeUnit.SECONDS);
    rec.closed.get(20, TimeUnit.SECONDS);
    Flow flow = forcedH2.awaitFlow("t=ws-forced-h2");
    assertThat(flow.isWebSocket()).isTrue();
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/1.1");
    assertThat(bothOrigin.awaitSeen("t=ws-forced-h2").protocol()).isEqualTo(TestOrigin.HTTP_1_1);
  }

  // ---- multiplexing --------------------------------------------------------------------------

  @Test
  void concurrentStreamsShareOneOriginConnection() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      h2.send("GET", "/status/200?t=mux-warm").await(30); // the pooled origin connection now exists
      int streams = 60;
      List<Http2TestClient.Stream> answers = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        answers.add(h2.send("GET", "/bytes/" + (40_000 + i) + "?t=mux-" + i));
      }
      for (int i = 0; i < streams; i++) {
        assertThat(answers.get(i).await(60).sha256()).isEqualTo(TestData.sha256(40_000 + i));
      }
      assertThat(o.connections()).as("origin connections").isEqualTo(1);
      List<Flow> flows = auto.awaitFlows(streams, f -> f.request() != null && f.request().url().contains("t=mux-")
          && !f.request().url().contains("mux-warm"));
      Set<Integer> serverStreams = new HashSet<>();
      for (Flow f : flows) {
        assertThat(f.serverConnection().id()).isEqualTo(flows.get(0).serverConnection().id());
        serverStreams.add(f.serverStreamId());
      }
      assertThat(serverStreams).hasSize(streams);
      assertThat(o.peakConcurrentRequests().get(1)).as("streams in progress at once").isGreaterThan(1);
    }
  }

  @Test
  void coldStartUnderLoadOpensABoundedNumberOfOriginConnections() throws Exception {
    // No warm-up: 40 streams arrive before any origin connection exists. The pool may open a few
    // connections, not one per stream ("bounded", issue 3).
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        streams.add(h2.send("GET", "/bytes/" + (20_000 + i) + "?t=cold-" + i));
      }
      for (int i = 0; i < 40; i++) {
        assertThat(streams.get(i).await(60).sha256()).isEqualTo(TestData.sha256(20_000 + i));
      }
      assertThat(o.connections()).as("origin connections for 40 concurrent first streams").isLessThanOrEqualTo(4);
    }
  }

  @Test
  void coldBurstFromManyClientConnectionsStaysUnderTheConnectionCap() throws Exception {
    // 640 first streams from 8 client connections (h2load -c 8 -m 80, cold): each event loop may
    // hold at most 4 origin connections, so two loops make at most 8, however the streams land.
    int loops = 2;
    try (ProxyFixture proxy = ProxyFixture.start(b -> b.ioThreads(loops));
        TestOrigin o = TestOrigin.h2Only()) {
      List<Http2TestClient> clients = new ArrayList<>();
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      try {
        for (int c = 0; c < 8; c++) {
          clients.add(Http2TestClient.viaProxy(proxy, o));
        }
        for (int i = 0; i < 80; i++) {
          for (int c = 0; c < 8; c++) {
            streams.add(clients.get(c).send("GET", "/bytes/" + (1000 + i) + "?t=burst-" + c + "-" + i));
          }
        }
        for (int i = 0; i < streams.size(); i++) {
          Http2TestClient.Stream s = streams.get(i).await(60);
          String tag = "t=burst-" + (i % 8) + "-" + (i / 8);
          String why = s.status() == 200 && s.sha256().equals(TestData.sha256(1000 + i / 8)) ? ""
              : tag + ": status " + s.status() + ", " + s.length() + " bytes: "
                  + new String(s.body(), 0, Math.min(s.body().length, 600), java.nio.charset.StandardCharsets.UTF_8)
                  + "\nflow: " + proxy.store().snapshot().stream()
                      .filter(f -> f.request() != null && f.request().url().endsWith(tag))
                      .map(f -> f.state() + " " + f.error() + " response " + f.response())
                      .toList();
          assertThat(why).as("stream %d (%s)", i, tag).isEmpty();
        }
      } finally {
        clients.forEach(Http2TestClient::close);
      }
      assertThat(o.connections()).as("origin connections for 640 cold streams on %d loops", loops)
          .isBetween(1, 4 * loops);
    }
  }

  @Test
  void originMaxConcurrentStreamsIsRespected() throws Exception {
    try (TestOrigin o = TestOrigin.builder().tls().protocols(TestOrigin.Protocol.H2).maxConcurrentStreams(3).start();
        Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      h2.send("GET", "/status/200?t=limit-warm").await(30); // learn the origin's SETTINGS
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        streams.add(h2.send("GET", "/slow/300?t=limit-" + i));
      }
      for (Http2TestClient.Stream s : streams) {
        assertThat(s.await(60).status()).isEqualTo(200);
      }
      assertThat(o.peakConcurrentRequests().values()).as("streams at once per origin connection")
          .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(3));
      assertThat(o.connections()).as("more connections under stream pressure").isGreaterThan(1);
      assertThat(o.resetStreams()).isZero();
    }
  }

  // ---- cancel ----------------------------------------------------------------------------------

  @Test
  void clientCancelResetsTheOriginStream() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      Http2TestClient.Stream s = h2.open();
      s.cancelAfter(256 * 1024);
      s.headers(h2.request("GET", "/bytes/" + (64 << 20) + "?t=h2-cancel"), true);
      assertThatThrownBy(() -> s.await(60)).hasRootCauseMessage("stream cancelled by this client");

      Flow flow = auto.awaitFlow("t=h2-cancel");
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
      TestOrigin.Ending ending = o.awaitSeen("t=h2-cancel").ending().get(30, TimeUnit.SECONDS);
      assertThat(ending.outcome()).as("the origin's stream").isEqualTo(TestOrigin.Outcome.RESET);
      assertThat(o.resetStreams()).isEqualTo(1);

      // Only the stream: the origin connection carries the next request.
      Http2TestClient.Stream next = h2.send("GET", "/bytes/1000?t=h2-after-cancel").await(30);
      assertThat(next.sha256()).isEqualTo(TestData.sha256(1000));
      assertThat(o.connections()).isEqualTo(1);
      assertThat(o.closedConnections()).isZero();
    }
  }

  @Test
  void originResetFailsTheFlowAndResetsTheClientStream() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      Http2TestClient.Stream s = h2.send("GET", "/reset?t=origin-reset");
      assertThatThrownBy(() -> s.await(30)).isInstanceOf(java.util.concurrent.ExecutionException.class);
      assertThat(s.length()).isLessThan(100_000);
      Flow flow = auto.awaitFlow("t=origin-reset");
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.SERVER_RESET);
      // The client connection survives: only the stream failed.
      assertThat(h2.send("GET", "/status/200?t=after-origin-reset").await(30).status()).isEqualTo(200);
      assertThat(h2.goAwayErrorCodes()).isEmpty();
    }
  }

  // ---- trailers ----------------------------------------------------------------------------

  @Test
  void trailersBothWaysH2ToH2() throws Exception {
    int n = 50_000;
    try (Http2TestClient h2 = Http2TestClient.viaProxy(auto, h2Origin)) {
      Http2TestClient.Stream s = h2.open();
      s.headers(h2.request("POST", "/trailers-echo?t=h2h2-trailers").set("te", "trailers"), false);
      s.body(n, true);
      s.trailers(new DefaultHttp2Headers().set("x-body-sha256", TestData.sha256(n)));
      s.await(30);
      assertThat(s.text()).isEqualTo(TestData.sha256(n) + " " + n);
      assertThat(s.trailers()).isNotNull();
      assertThat(s.trailers().get("x-body-sha256")).hasToString(TestData.sha256(n));
    }
    TestOrigin.Seen seen = h2Origin.awaitSeen("t=h2h2-trailers");
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_2);
    assertThat(seen.headers().get("te")).isEqualTo("trailers");
    assertThat(seen.ending().get(15, TimeUnit.SECONDS).requestTrailers().get("x-body-sha256"))
        .isEqualTo(TestData.sha256(n));
    Flow flow = auto.awaitFlow("t=h2h2-trailers");
    assertThat(flow.requestTrailers().get("x-body-sha256")).isEqualTo(TestData.sha256(n));
    assertThat(flow.responseTrailers().get("x-body-sha256")).isEqualTo(TestData.sha256(n));
  }

  @Test
  void chunkedTrailersFromAnHttp11ClientReachAnH2OriginAndBack() throws Exception {
    String target = h2cOrigin.url() + "/trailers-echo?t=h1h2-trailers";
    try (Socket socket = forcedH2.socket()) {
      OutputStream out = socket.getOutputStream();
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(socket.getInputStream()));
      RawHttp.write(out, "POST " + target + " HTTP/1.1\r\nHost: " + h2cOrigin.authority()
          + "\r\nTransfer-Encoding: chunked\r\nTE: trailers\r\n\r\n"
          + "5\r\nhello\r\n0\r\nX-Req: from-h1\r\n\r\n");
      RawHttp.Response r = in.read("POST");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo(TestData.sha256("hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
          + " 5");
      assertThat(r.chunked()).isTrue();
      assertThat(r.trailer("x-req")).isEqualTo("from-h1");
    }
    TestOrigin.Seen seen = h2cOrigin.awaitSeen("t=h1h2-trailers");
    assertThat(seen.protocol()).isEqualTo(TestOrigin.HTTP_2);
    assertThat(seen.ending().get(15, TimeUnit.SECONDS).requestTrailers().get("x-req")).isEqualTo("from-h1");
  }

  // ---- body-less responses, 100-continue ---------------------------------------------------

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"HEAD, /bytes/5000?t=bodiless-head, 200", "GET, /status/204?t=bodiless-204, 204",
      "GET, /status/304?t=bodiless-304, 304"})
  void bodilessResponsesH2ToH2(String method, String path, int status) throws Exception {
    try (Http2TestClient h2 = Http2TestClient.viaProxy(auto, h2Origin)) {
      Http2TestClient.Stream s = h2.send(method, path).await(30);
      assertThat(s.status()).isEqualTo(status);
      assertThat(s.length()).isZero();
      assertThat(s.dataFrames.get()).as("HEADERS with END_STREAM, no DATA frame").isZero();
    }
    Flow flow = auto.awaitFlow(path);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
    assertThat(flow.response().status()).isEqualTo(status);
  }

  @Test
  void expectContinueH2ToH2() throws Exception {
    int n = 70_000;
    try (Http2TestClient h2 = Http2TestClient.viaProxy(auto, h2Origin)) {
      Http2TestClient.Stream s = h2.open();
      s.headers(h2.request("POST", "/continue?t=h2h2-continue").set("expect", "100-continue")
          .setInt("content-length", n), false);
      assertThat(s.interim.get(30, TimeUnit.SECONDS).status()).hasToString("100");
      assertThat(s.response).isNotDone();
      s.body(n, false);
      s.await(30);
      assertThat(s.text()).isEqualTo(TestData.sha256(n) + " " + n);
    }
    Flow flow = auto.awaitFlow("t=h2h2-continue");
    assertThat(flow.informationalResponses()).extracting(ResponseHead::status).containsExactly(100);
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/2");
  }

  // ---- GOAWAY from the origin --------------------------------------------------------------

  @Test
  void originGoAwayMovesLaterStreamsToANewConnection() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      assertThat(h2.send("GET", "/goaway?t=goaway-1").await(30).text()).isEqualTo("goaway");
      for (int i = 0; i < 5; i++) {
        Http2TestClient.Stream s = h2.send("GET", "/bytes/3000?t=after-goaway-" + i).await(30);
        assertThat(s.sha256()).isEqualTo(TestData.sha256(3000));
      }
      assertThat(o.connections()).isEqualTo(2);
      assertThat(o.awaitSeen("t=after-goaway-4").connection()).isEqualTo(2);
      List<Flow> flows = auto.awaitFlows(5, f -> f.request() != null && f.request().url().contains("t=after-goaway-"));
      assertThat(flows).allSatisfy(f -> assertThat(f.state()).isEqualTo(FlowState.COMPLETE));
    }
  }

  @Test
  void h2StreamIdsOnTheOriginRiseInOrder() throws Exception {
    // Stream ids allocated and HEADERS written in order (an out-of-order HEADERS makes servers
    // close lower streams): under concurrency each origin connection sees valid, rising, odd ids.
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.viaProxy(auto, o)) {
      h2.send("GET", "/status/200?t=order-warm").await(30);
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        streams.add(h2.send("GET", "/status/200?t=order-" + i));
      }
      for (Http2TestClient.Stream s : streams) {
        assertThat(s.await(30).status()).isEqualTo(200);
      }
      java.util.Map<Integer, List<Integer>> idsByConnection = new java.util.TreeMap<>();
      for (TestOrigin.Seen seen : o.seen()) {
        idsByConnection.computeIfAbsent(seen.connection(), k -> new ArrayList<>()).add(seen.stream());
      }
      idsByConnection.forEach((connection, ids) -> {
        assertThat(ids).as("stream ids on origin connection %d, in arrival order", connection)
            .isSorted().doesNotHaveDuplicates().allSatisfy(id -> assertThat(id).isPositive().isOdd());
      });
      assertThat(o.resetStreams()).isZero();
      assertThat(h2.goAwayErrorCodes()).isEmpty();
    }
  }
}
