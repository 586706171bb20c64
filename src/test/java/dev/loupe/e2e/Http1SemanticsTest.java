package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.BufferedInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/1.1 semantics through the real proxy (RFC 9110/9112): chunked bodies both ways, 100-continue,
 * bodiless responses, trailers, pipelining, keep-alive on both legs, HTTP/1.0 clients, hop-by-hop
 * headers and many concurrent clients. Wire-level checks use raw sockets; bodies are compared by
 * SHA-256.
 */
@Timeout(180)
class Http1SemanticsTest {
  static ProxyFixture proxy;
  static TestOrigin http;
  static TestOrigin https;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start();
    http = TestOrigin.http();
    https = TestOrigin.https();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    http.close();
    https.close();
  }

  private static TestOrigin origin(String scheme) {
    return scheme.equals("http") ? http : https;
  }

  private static String absolute(TestOrigin o, String pathAndQuery) {
    return o.url() + pathAndQuery;
  }

  private static String authority(TestOrigin o) {
    return "127.0.0.1:" + o.port();
  }

  // ---- chunked -------------------------------------------------------------------------------

  @ParameterizedTest(name = "chunked response, {0}")
  @ValueSource(strings = {"http", "https"})
  void chunkedResponseIsByteExact(String scheme) throws Exception {
    int n = 300_007;
    String url = absolute(origin(scheme), "/bytes/" + n + "?chunked=1&t=chunked-res");
    HttpResponse<byte[]> r = proxy.client().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-length")).isEmpty();
    assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(n));

    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.response().headers().get("transfer-encoding")).isEqualToIgnoringCase("chunked");
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(n));
  }

  @Test
  void chunkedResponseOnTheWire() throws Exception {
    int n = 100_000;
    String target = absolute(http, "/bytes/" + n + "?chunked=1&t=chunked-wire");
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      RawHttp.write(s.getOutputStream(), "GET " + target + " HTTP/1.1\r\nHost: " + authority(http) + "\r\n\r\n");
      RawHttp.Response r = in.read("GET");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.chunked()).as("relayed chunked").isTrue();
      assertThat(r.header("content-length")).isNull();
      assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(n));
    }
  }

  @ParameterizedTest(name = "chunked request, {0}")
  @ValueSource(strings = {"http", "https"})
  void chunkedRequestArrivesByteExact(String scheme) throws Exception {
    int n = 200_003;
    TestOrigin o = origin(scheme);
    String url = absolute(o, "/sha256?t=chunked-req-" + scheme);
    // ofInputStream has no known length: the JDK client sends Transfer-Encoding: chunked.
    HttpResponse<String> r = proxy.client().send(HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(n)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.sha256(n) + " " + n);

    TestOrigin.Seen seen = seenAt(o, "t=chunked-req-" + scheme);
    assertThat(seen.headers().get("transfer-encoding")).isEqualToIgnoringCase("chunked");
    assertThat(seen.headers().contains("content-length")).isFalse();

    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.request().headers().get("transfer-encoding")).isEqualToIgnoringCase("chunked");
    assertThat(flow.requestBody().size()).isEqualTo(n);
    assertThat(TestData.sha256(flow.requestBody().openStream())).isEqualTo(TestData.sha256(n));
  }

  // ---- 100-continue --------------------------------------------------------------------------

  @ParameterizedTest(name = "100-continue with the JDK client, {0}")
  @ValueSource(strings = {"http", "https"})
  void expectContinue(String scheme) throws Exception {
    int n = 65_537;
    String url = absolute(origin(scheme), "/continue?t=expect-" + scheme);
    HttpResponse<String> r = proxy.client().sendAsync(HttpRequest.newBuilder(URI.create(url))
            .expectContinue(true)
            .POST(HttpRequest.BodyPublishers.ofByteArray(TestData.bytes(n)))
            .build(),
        HttpResponse.BodyHandlers.ofString()).get();
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.sha256(n) + " " + n);

    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.informationalResponses()).extracting(ResponseHead::status).containsExactly(100);
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.requestBody().size()).isEqualTo(n);
  }

  @Test
  void expectContinueOnTheWire() throws Exception {
    int n = 10_000;
    String target = absolute(http, "/continue?t=expect-wire");
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      OutputStream out = s.getOutputStream();
      RawHttp.write(out, "POST " + target + " HTTP/1.1\r\nHost: " + authority(http)
          + "\r\nContent-Length: " + n + "\r\nExpect: 100-continue\r\n\r\n");
      // The body goes only after the 100 arrives, as a real client does.
      RawHttp.Response interim = in.read("POST");
      assertThat(interim.status()).isEqualTo(100);
      out.write(TestData.bytes(n));
      out.flush();
      RawHttp.Response r = in.read("POST");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo(TestData.sha256(n) + " " + n);

      // The connection is still good for another request.
      RawHttp.write(out, "GET " + absolute(http, "/bytes/10?t=expect-wire-next") + " HTTP/1.1\r\nHost: "
          + authority(http) + "\r\n\r\n");
      RawHttp.Response next = in.read("GET");
      assertThat(next.body()).isEqualTo(TestData.bytes(10));
    }
    Flow flow = proxy.awaitFlow("/continue?t=expect-wire");
    assertThat(flow.informationalResponses()).extracting(ResponseHead::status).containsExactly(100);
  }

  // ---- bodiless responses ----------------------------------------------------------------------

  @Test
  void headHasNoBodyButKeepsContentLength() throws Exception {
    HttpClient client = proxy.client();
    String url = absolute(http, "/bytes/1000?t=head");
    HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-length")).contains("1000");
    assertThat(r.body()).isEmpty();

    // Same client, next request: still works (the proxy did not wait for 1000 body bytes).
    String next = absolute(http, "/bytes/1000?t=after-head");
    HttpResponse<byte[]> r2 = client.send(HttpRequest.newBuilder(URI.create(next)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r2.body()).isEqualTo(TestData.bytes(1000));

    Flow flow = proxy.awaitFlow("t=head");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.response().headers().get("content-length")).isEqualTo("1000");
    assertThat(flow.responseBody().size()).isZero();
  }

  @ParameterizedTest(name = "status {0} has no body and the connection is reused")
  @ValueSource(ints = {204, 304})
  void noContentAndNotModified(int status) throws Exception {
    HttpClient client = proxy.client();
    String url = absolute(http, "/status/" + status + "?t=nobody");
    HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.body()).isEmpty();
    String next = absolute(http, "/bytes/777?t=after-" + status);
    HttpResponse<byte[]> r2 = client.send(HttpRequest.newBuilder(URI.create(next)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r2.body()).isEqualTo(TestData.bytes(777));
    Flow first = proxy.awaitFlow("/status/" + status + "?t=nobody");
    Flow second = proxy.awaitFlow("t=after-" + status);
    assertThat(second.clientConnection().id()).isEqualTo(first.clientConnection().id());
  }

  @Test
  void bodilessResponsesOnOneRawConnection() throws Exception {
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      OutputStream out = s.getOutputStream();
      String host = "\r\nHost: " + authority(http) + "\r\n\r\n";
      RawHttp.write(out, "HEAD " + absolute(http, "/bytes/1000?t=raw-head") + " HTTP/1.1" + host);
      RawHttp.Response head = in.read("HEAD");
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.header("content-length")).isEqualTo("1000");

      RawHttp.write(out, "GET " + absolute(http, "/status/204?t=raw-204") + " HTTP/1.1" + host);
      RawHttp.Response noContent = in.read("GET");
      assertThat(noContent.status()).isEqualTo(204);
      assertThat(noContent.header("content-length")).isNull();
      assertThat(noContent.header("transfer-encoding")).isNull();

      RawHttp.write(out, "GET " + absolute(http, "/status/304?t=raw-304") + " HTTP/1.1" + host);
      RawHttp.Response notModified = in.read("GET");
      assertThat(notModified.status()).isEqualTo(304);
      assertThat(notModified.header("transfer-encoding")).isNull();

      // Had any of them carried stray body bytes, this response would be misparsed.
      RawHttp.write(out, "GET " + absolute(http, "/bytes/5?t=raw-after") + " HTTP/1.1" + host);
      RawHttp.Response after = in.read("GET");
      assertThat(after.status()).isEqualTo(200);
      assertThat(after.body()).isEqualTo(TestData.bytes(5));
    }
  }

  // ---- trailers ------------------------------------------------------------------------------

  @Test
  void trailersReachTheClientAndTheFlow() throws Exception {
    String target = absolute(http, "/trailers?t=trailers");
    RawHttp.Response r;
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      RawHttp.write(s.getOutputStream(), "GET " + target + " HTTP/1.1\r\nHost: " + authority(http)
          + "\r\nTE: trailers\r\n\r\n");
      r = in.read("GET");
    }
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.chunked()).isTrue();
    assertThat(r.bodyText()).isEqualTo("hello trailers");
    assertThat(r.trailer("x-checksum")).isEqualTo("abc123");

    Flow flow = proxy.awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.responseTrailers().get("x-checksum")).isEqualTo("abc123");
    assertThat(new String(flow.responseBody().openStream().readAllBytes(), StandardCharsets.UTF_8))
        .isEqualTo("hello trailers");
  }

  @Test
  void trailerHeaderFieldIsEndToEnd() throws Exception {
    // RFC 9110 §6.6.2: "Trailer" announces the trailer fields; it is not a hop-by-hop field
    // (RFC 9110 §7.6.1 lists Connection, Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade).
    String target = absolute(http, "/trailers?t=trailer-field");
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      RawHttp.write(s.getOutputStream(), "GET " + target + " HTTP/1.1\r\nHost: " + authority(http)
          + "\r\nTE: trailers\r\n\r\n");
      RawHttp.Response r = in.read("GET");
      assertThat(r.trailer("x-checksum")).isEqualTo("abc123");
      assertThat(r.header("trailer")).isEqualToIgnoringCase("x-checksum");
    }
  }

  // ---- pipelining ----------------------------------------------------------------------------

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    String host = "\r\nHost: " + authority(http) + "\r\n\r\n";
    // A slow first answer, a large second one, a chunked-with-trailers third: any reordering or
    // interleaving shows up in the parse.
    String requests = "GET " + absolute(http, "/slow/300?t=pipe1") + " HTTP/1.1" + host
        + "GET " + absolute(http, "/bytes/70001?t=pipe2") + " HTTP/1.1" + host
        + "GET " + absolute(http, "/trailers?t=pipe3") + " HTTP/1.1" + host;
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      RawHttp.write(s.getOutputStream(), requests); // one write
      RawHttp.Response first = in.read("GET");
      RawHttp.Response second = in.read("GET");
      RawHttp.Response third = in.read("GET");
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.bodyText()).isEqualTo("slow 300");
      assertThat(second.status()).isEqualTo(200);
      assertThat(TestData.sha256(second.body())).isEqualTo(TestData.sha256(70001));
      assertThat(third.status()).isEqualTo(200);
      assertThat(third.bodyText()).isEqualTo("hello trailers");
      assertThat(third.trailer("x-checksum")).isEqualTo("abc123");
    }
    List<Flow> flows = proxy.awaitFlows(3, f -> f.request() != null && f.request().url().contains("t=pipe"));
    assertThat(flows).allSatisfy(f -> assertThat(f.state()).isEqualTo(FlowState.COMPLETE));
    assertThat(flows).extracting(f -> f.clientConnection().id()).containsOnly(flows.get(0).clientConnection().id());
    assertThat(flows.stream().sorted((a, b) -> Long.compare(a.id(), b.id())).map(f -> f.request().target()))
        .containsExactly("/slow/300?t=pipe1", "/bytes/70001?t=pipe2", "/trailers?t=pipe3");
  }

  // ---- keep-alive ----------------------------------------------------------------------------

  @Test
  void keepAliveReusesBothLegs() throws Exception {
    try (TestOrigin origin = TestOrigin.http()) {
      HttpClient client = proxy.client();
      for (int i = 0; i < 10; i++) {
        String url = origin.url() + "/bytes/" + (1000 + i) + "?t=ka" + i;
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(TestData.bytes(1000 + i));
      }
      assertThat(origin.connections()).as("origin connections").isEqualTo(1);
      List<Flow> flows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        flows.add(proxy.awaitFlow(origin.url() + "/bytes/" + (1000 + i) + "?t=ka" + i));
      }
      assertThat(flows).allSatisfy(f -> assertThat(f.state()).isEqualTo(FlowState.COMPLETE));
      assertThat(flows.get(0).serverConnection().reused()).isFalse();
      assertThat(flows.subList(1, 10)).allSatisfy(f -> {
        assertThat(f.serverConnection().reused()).as("server connection reused in %s", f).isTrue();
        assertThat(f.clientConnection().reused()).as("client connection reused in %s", f).isTrue();
      });
      assertThat(flows).extracting(f -> f.clientConnection().id()).containsOnly(flows.get(0).clientConnection().id());
      assertThat(flows).extracting(f -> f.serverConnection().id()).containsOnly(flows.get(0).serverConnection().id());
    }
  }

  @ParameterizedTest(name = "HTTP/1.0 client, {0}")
  @ValueSource(strings = {"", "&chunked=1"})
  void http10ClientGetsADelimitedBodyAndAClose(String chunked) throws Exception {
    int n = 5_000;
    String target = absolute(http, "/bytes/" + n + "?t=h10" + chunked);
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      RawHttp.write(s.getOutputStream(), "GET " + target + " HTTP/1.0\r\n\r\n");
      RawHttp.Response r = in.read("GET");
      assertThat(r.version()).isIn("HTTP/1.0", "HTTP/1.1");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.chunked()).as("no chunked coding for an HTTP/1.0 client").isFalse();
      assertThat(r.header("transfer-encoding")).isNull();
      if (!r.closeDelimited()) {
        assertThat(r.header("content-length")).isEqualTo(String.valueOf(n));
      }
      assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(n));
      assertThat(in.atEof()).as("the proxy closes an HTTP/1.0 connection").isTrue();
    }
    Flow flow = proxy.awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.clientProtocol()).isEqualTo("HTTP/1.0");
  }

  // ---- hop-by-hop ----------------------------------------------------------------------------

  @Test
  void hopByHopHeadersStopAtTheProxy() throws Exception {
    String target = absolute(http, "/headers?t=hop");
    RawHttp.Response r;
    try (Socket s = proxy.socket()) {
      RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
      RawHttp.write(s.getOutputStream(), "GET " + target + " HTTP/1.1\r\n"
          + "Host: wrong.example:1234\r\n"
          + "Connection: close, X-Secret\r\n"
          + "X-Secret: 1\r\n"
          + "Proxy-Connection: keep-alive\r\n"
          + "Keep-Alive: 5\r\n"
          + "Proxy-Authorization: x\r\n"
          + "X-End-To-End: kept\r\n"
          + "Accept: text/plain\r\n"
          + "Cache-Control: no-cache\r\n"
          + "\r\n");
      r = in.read("GET");
      assertThat(in.atEof()).as("Connection: close honoured").isTrue();
    }
    assertThat(r.status()).isEqualTo(200);
    Set<String> echoedNames = Arrays.stream(r.bodyText().split("\n"))
        .filter(l -> !l.isEmpty())
        .map(l -> l.substring(0, l.indexOf(':')))
        .collect(Collectors.toSet());
    assertThat(echoedNames).doesNotContain("connection", "x-secret", "proxy-connection", "keep-alive",
        "proxy-authorization");
    assertThat(r.bodyText()).contains("x-end-to-end: kept\n", "accept: text/plain\n", "cache-control: no-cache\n");
    assertThat(r.bodyText()).contains("host: " + authority(http) + "\n");
    assertThat(r.bodyText()).doesNotContain("wrong.example");

    TestOrigin.Seen seen = seenAt(http, "t=hop");
    assertThat(seen.headers().getAll("host")).containsExactly(authority(http));
    for (String name : List.of("connection", "x-secret", "proxy-connection", "keep-alive", "proxy-authorization")) {
      assertThat(seen.headers().contains(name)).as(name).isFalse();
    }
    Flow flow = proxy.awaitFlow(target);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    // The flow records what the client sent.
    assertThat(flow.request().headers().get("x-secret")).isEqualTo("1");
  }

  // ---- concurrency ---------------------------------------------------------------------------

  @ParameterizedTest(name = "64 concurrent clients, {0}")
  @ValueSource(strings = {"http", "https"})
  void sixtyFourConcurrentClients(String scheme) throws Exception {
    int clients = 64;
    int down = 256 * 1024;
    int up = 64 * 1024;
    TestOrigin o = origin(scheme);
    String tag = "c64" + scheme;
    String downSha = TestData.sha256(down);
    String upSha = TestData.sha256(up);
    byte[] upBody = TestData.bytes(up);
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      HttpClient client = proxy.client(); // one connection each
      String getUrl = o.url() + "/bytes/" + down + "?" + tag + "=" + i;
      String postUrl = o.url() + "/sha256?" + tag + "=" + i;
      CompletableFuture<Void> get = client.sendAsync(HttpRequest.newBuilder(URI.create(getUrl)).build(),
              HttpResponse.BodyHandlers.ofByteArray())
          .thenAccept(r -> {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(TestData.sha256(r.body())).isEqualTo(downSha);
          });
      CompletableFuture<Void> post = client.sendAsync(HttpRequest.newBuilder(URI.create(postUrl))
                  .POST(HttpRequest.BodyPublishers.ofByteArray(upBody)).build(),
              HttpResponse.BodyHandlers.ofString())
          .thenAccept(r -> {
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(upSha + " " + up);
          });
      all.add(get);
      all.add(post);
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get();

    List<Flow> flows = proxy.awaitFlows(2 * clients,
        f -> f.request() != null && f.request().url().contains(tag + "="));
    assertThat(flows).hasSize(2 * clients);
    assertThat(flows).allSatisfy(f -> assertThat(f.state()).as("%s", f).isEqualTo(FlowState.COMPLETE));
    assertThat(flows.stream().filter(f -> f.request().method().equals("GET")))
        .hasSize(clients)
        .allSatisfy(f -> assertThat(f.responseBody().size()).isEqualTo(down));
    assertThat(flows.stream().filter(f -> f.request().method().equals("POST")))
        .hasSize(clients)
        .allSatisfy(f -> assertThat(f.requestBody().size()).isEqualTo(up));
  }

  private static TestOrigin.Seen seenAt(TestOrigin o, String uriPart) {
    return o.seen().stream().filter(s -> s.uri().contains(uriPart)).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("origin never saw " + uriPart + ": " + o.seen()));
  }
}
