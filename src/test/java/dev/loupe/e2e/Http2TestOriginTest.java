package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The HTTP/2 side of the {@link TestOrigin} fixture, without a proxy: ALPN choices of each
 * variant, h2c prior knowledge, the routes over HTTP/2 streams, and what it records (protocol,
 * streams per connection, how each request ended). Other HTTP/2 suites rely on these.
 */
@Timeout(120)
class Http2TestOriginTest {
  /** A JDK client talking to origins directly, trusting the origin CA. */
  private static HttpClient direct(HttpClient.Version version) {
    return HttpClient.newBuilder().version(version).sslContext(TestPki.trusting(TestPki.shared().originCa().certificate()))
        .connectTimeout(Duration.ofSeconds(10)).build();
  }

  private static HttpResponse<String> get(HttpClient c, String url) throws Exception {
    return c.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void httpsWithoutAlpnIsHttp11ForEveryone() throws Exception {
    try (TestOrigin o = TestOrigin.https()) {
      HttpResponse<String> r = get(direct(HttpClient.Version.HTTP_2), o.url() + "/status/200?t=legacy");
      assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(o.awaitSeen("t=legacy").protocol()).isEqualTo(TestOrigin.HTTP_1_1);
    }
  }

  @Test
  void h2AndH1OffersBoth() throws Exception {
    try (TestOrigin o = TestOrigin.h2AndH1()) {
      HttpResponse<String> h2 = get(direct(HttpClient.Version.HTTP_2), o.url() + "/status/200?t=a");
      assertThat(h2.version()).isEqualTo(HttpClient.Version.HTTP_2);
      HttpResponse<String> h1 = get(direct(HttpClient.Version.HTTP_1_1), o.url() + "/status/200?t=b");
      assertThat(h1.version()).isEqualTo(HttpClient.Version.HTTP_1_1);

      TestOrigin.Seen a = o.awaitSeen("t=a");
      assertThat(a.protocol()).isEqualTo(TestOrigin.HTTP_2);
      assertThat(a.stream()).isPositive().isOdd();
      assertThat(a.ending().get(10, TimeUnit.SECONDS).outcome()).isEqualTo(TestOrigin.Outcome.ANSWERED);
      TestOrigin.Seen b = o.awaitSeen("t=b");
      assertThat(b.protocol()).isEqualTo(TestOrigin.HTTP_1_1);
      assertThat(b.stream()).isEqualTo(-1);
      assertThat(b.connection()).isNotEqualTo(a.connection());
      assertThat(o.connectionProtocols()).containsExactlyInAnyOrder(TestOrigin.HTTP_2, TestOrigin.HTTP_1_1);
    }
  }

  @Test
  void h1OnlyAnswersAnH2ClientWithHttp11() throws Exception {
    try (TestOrigin o = TestOrigin.h1Only()) {
      HttpResponse<String> r = get(direct(HttpClient.Version.HTTP_2), o.url() + "/status/200?t=h1only");
      assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(o.awaitSeen("t=h1only").protocol()).isEqualTo(TestOrigin.HTTP_1_1);
    }
  }

  @Test
  void h2OnlyClosesAConnectionThatDidNotNegotiateH2() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only()) {
      assertThatThrownBy(() -> get(direct(HttpClient.Version.HTTP_1_1), o.url() + "/status/200?t=refused"))
          .isInstanceOf(IOException.class);
      assertThat(o.seen()).isEmpty();
      HttpResponse<String> r = get(direct(HttpClient.Version.HTTP_2), o.url() + "/status/200?t=h2only");
      assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(o.awaitSeen("t=h2only").protocol()).isEqualTo(TestOrigin.HTTP_2);
    }
  }

  @Test
  void h2cWithPriorKnowledgeAndHttp11OnOnePort() throws Exception {
    try (TestOrigin o = TestOrigin.h2c(); Http2TestClient h2 = Http2TestClient.directCleartext(o)) {
      Http2TestClient.Stream s = h2.send("GET", "/bytes/100000?t=h2c").await(30);
      assertThat(s.status()).isEqualTo(200);
      assertThat(s.sha256()).isEqualTo(TestData.sha256(100_000));
      assertThat(o.awaitSeen("t=h2c").protocol()).isEqualTo(TestOrigin.HTTP_2);

      HttpResponse<String> h1 = get(direct(HttpClient.Version.HTTP_1_1), o.url() + "/status/200?t=h2c-h1");
      assertThat(h1.statusCode()).isEqualTo(200);
      assertThat(o.awaitSeen("t=h2c-h1").protocol()).isEqualTo(TestOrigin.HTTP_1_1);
    }
  }

  @Test
  void streamsOnOneConnectionAreCounted() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.direct(o)) {
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        streams.add(h2.send("GET", "/bytes/" + (10_000 + i) + "?t=count-" + i));
      }
      for (int i = 0; i < 20; i++) {
        assertThat(streams.get(i).await(30).sha256()).isEqualTo(TestData.sha256(10_000 + i));
      }
      assertThat(o.connections()).isEqualTo(1);
      assertThat(o.requestsPerConnection()).containsExactly(java.util.Map.entry(1, 20));
      assertThat(o.seen()).extracting(TestOrigin.Seen::stream).doesNotHaveDuplicates();
    }
  }

  @Test
  void routesOverHttp2() throws Exception {
    try (TestOrigin o = TestOrigin.h2Only(); Http2TestClient h2 = Http2TestClient.direct(o)) {
      // echo, streamed both ways
      int n = 1 << 20;
      Http2TestClient.Stream echo = h2.open();
      echo.headers(h2.request("POST", "/echo?t=echo"), false);
      echo.body(n, false);
      echo.await(30);
      assertThat(echo.sha256()).isEqualTo(TestData.sha256(n));

      // trailers both ways
      Http2TestClient.Stream te = h2.open();
      te.headers(h2.request("POST", "/trailers-echo?t=te"), false);
      te.data("abc".getBytes(java.nio.charset.StandardCharsets.US_ASCII), false);
      te.trailers(new DefaultHttp2Headers().set("x-t", "1"));
      te.await(30);
      assertThat(te.text()).isEqualTo(TestData.sha256("abc".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
          + " 3");
      assertThat(te.trailers().get("x-t")).hasToString("1");
      TestOrigin.Ending ending = o.awaitSeen("t=te").ending().get(10, TimeUnit.SECONDS);
      assertThat(ending.requestTrailers().get("x-t")).isEqualTo("1");
      assertThat(ending.requestBodyLength()).isEqualTo(3);

      // 100-continue: an interim HEADERS frame, then the final answer
      Http2TestClient.Stream c = h2.open();
      c.headers(h2.request("POST", "/continue?t=continue").set("expect", "100-continue"), false);
      assertThat(c.interim.get(10, TimeUnit.SECONDS).status()).hasToString("100");
      c.body(1000, false);
      c.await(30);
      assertThat(c.text()).isEqualTo(TestData.sha256(1000) + " 1000");

      // HEAD, 204
      Http2TestClient.Stream head = h2.send("HEAD", "/bytes/777?t=head").await(30);
      assertThat(head.responseHeaders().get("content-length")).hasToString("777");
      assertThat(head.length()).isZero();
      assertThat(h2.send("GET", "/status/204?t=204").await(30).status()).isEqualTo(204);

      // a stream reset by the client while the origin streams
      Http2TestClient.Stream big = h2.open();
      big.cancelAfter(100_000);
      big.headers(h2.request("GET", "/bytes/" + (64 << 20) + "?t=reset"), true);
      assertThatThrownBy(() -> big.await(30)).hasRootCauseMessage("stream cancelled by this client");
      assertThat(o.awaitSeen("t=reset").ending().get(10, TimeUnit.SECONDS).outcome())
          .isEqualTo(TestOrigin.Outcome.RESET);
      assertThat(o.resetStreams()).isEqualTo(1);

      // /reset cuts a stream off from the origin's side
      Http2TestClient.Stream cut = h2.send("GET", "/reset?t=cut");
      assertThatThrownBy(() -> cut.await(30)).hasRootCauseMessage("stream reset by the peer: CANCEL");
      assertThat(o.awaitSeen("t=cut").ending().get(10, TimeUnit.SECONDS).outcome())
          .isEqualTo(TestOrigin.Outcome.CLOSED);

      assertThat(o.connections()).isEqualTo(1);
      assertThat(h2.goAwayErrorCodes()).isEmpty();
      assertThat(o.seen()).allSatisfy(s -> assertThat(s.protocol()).isEqualTo(TestOrigin.HTTP_2));
    }
  }

  @Test
  void http11ConnectionCloseIsObserved() throws Exception {
    try (TestOrigin o = TestOrigin.http()) {
      TestOrigin.Seen seen;
      try (java.net.Socket socket = new java.net.Socket("127.0.0.1", o.port())) {
        socket.getOutputStream().write(("GET /slow/60000?t=left HTTP/1.1\r\nHost: " + o.authority() + "\r\n\r\n")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        seen = o.awaitSeen("t=left");
      }
      assertThat(seen.ending().get(30, TimeUnit.SECONDS).outcome()).isEqualTo(TestOrigin.Outcome.CLOSED);
      assertThat(o.closedConnections()).isEqualTo(1);
    }
  }

  @Test
  void maxConcurrentStreamsIsAdvertised() throws Exception {
    try (TestOrigin o = TestOrigin.builder().tls().protocols(TestOrigin.Protocol.H2).maxConcurrentStreams(3).start();
        Http2TestClient h2 = Http2TestClient.direct(o)) {
      h2.send("GET", "/status/200?t=settings").await(30);
      io.netty.handler.codec.http2.Http2FrameCodec codec =
          h2.connection().pipeline().get(io.netty.handler.codec.http2.Http2FrameCodec.class);
      int max = h2.connection().eventLoop().submit(() -> codec.connection().local().maxActiveStreams())
          .get(10, TimeUnit.SECONDS);
      assertThat(max).as("streams this client may open").isEqualTo(3);
    }
  }
}
