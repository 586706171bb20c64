package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures are data: each upstream failure gives the client a clear answer (a 502/504 page naming
 * the cause and the host, or a dropped connection when a response was already under way), the flow
 * is FAILED with the matching error kind, and the proxy keeps serving afterwards.
 *
 * <p>For https:// targets the JDK client sends CONNECT first; Loupe answers it with 200 before it
 * connects anywhere and intercepts, so an upstream failure arrives as the 502 <em>inside</em> the
 * TLS session, in answer to the request itself.
 */
@Timeout(120)
class FailuresTest {
  static ProxyFixture proxy;
  static TestOrigin http;
  static TestOrigin https;

  @BeforeAll
  static void start() throws Exception {
    // Lazy CONNECT: https failures surface inside the tunnel, on the request's own flow (the
    // default, eager CONNECT answers them on the CONNECT itself: BadInputTest).
    proxy = ProxyFixture.start(b -> b.connectStrategy(EngineConfig.ConnectStrategy.LAZY));
    http = TestOrigin.http();
    https = TestOrigin.https();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    http.close();
    https.close();
  }

  @ParameterizedTest(name = "DNS failure, {0}")
  @ValueSource(strings = {"http", "https"})
  void dnsFailure(String scheme) throws Exception {
    String url = scheme + "://nosuch.invalid/dns-" + scheme;
    HttpResponse<String> r = get(proxy.client(), url);

    assertErrorPage(r, 502, "dns", "DNS lookup failed", "nosuch.invalid");
    assertFailed(proxy.awaitFlow(url), FlowError.Kind.DNS, "nosuch.invalid");
    assertStillServes(proxy);
  }

  @ParameterizedTest(name = "connection refused, {0}")
  @ValueSource(strings = {"http", "https"})
  void connectionRefused(String scheme) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    String where = "127.0.0.1:" + port;
    String url = scheme + "://" + where + "/refused-" + scheme;
    HttpResponse<String> r = get(proxy.client(), url);

    assertErrorPage(r, 502, "connect-refused", "connection refused", where);
    assertFailed(proxy.awaitFlow(url), FlowError.Kind.CONNECT_REFUSED, where);
    assertStillServes(proxy);
  }

  @ParameterizedTest(name = "connect timeout, {0}")
  @ValueSource(strings = {"http", "https"})
  void connectTimeout(String scheme) throws Exception {
    try (ProxyFixture p = ProxyFixture.start(b -> b.connectTimeout(Duration.ofMillis(300))
            .connectStrategy(EngineConfig.ConnectStrategy.LAZY));
         Blackhole hole = Blackhole.open()) {
      String where = "127.0.0.1:" + hole.port();
      String url = scheme + "://" + where + "/timeout-" + scheme;
      long t0 = System.nanoTime();
      HttpResponse<String> r = get(p.client(), url);
      long ms = (System.nanoTime() - t0) / 1_000_000;

      assertErrorPage(r, 502, "connect-timeout", "timed out connecting", where);
      assertThat(ms).as("answered after the 300 ms connect timeout, not the SYN retry schedule").isLessThan(5_000);
      Flow flow = p.awaitFlow(url);
      assertFailed(flow, FlowError.Kind.CONNECT_TIMEOUT, where);
      assertThat(flow.timings().connectMs()).isGreaterThanOrEqualTo(250);
      assertStillServes(p);
    }
  }

  @ParameterizedTest(name = "upstream certificate not trusted, then --insecure, {0}")
  @ValueSource(strings = {"127.0.0.1", "localhost"})
  void upstreamTlsVerification(String host) throws Exception {
    try (TestOrigin untrusted = TestOrigin.untrustedHttps()) {
      String where = host + ":" + untrusted.port();
      String url = untrusted.url(host) + "/status/200?verify=" + host;
      HttpResponse<String> r = get(proxy.client(), url);

      assertErrorPage(r, 502, "tls-verify", "not trusted", where);
      Flow flow = proxy.awaitFlow(url);
      assertFailed(flow, FlowError.Kind.TLS_VERIFY, where);
      assertThat(flow.error().message()).contains("not trusted");
      assertStillServes(proxy);

      try (ProxyFixture insecure = ProxyFixture.start(b -> b.insecure(true))) {
        HttpResponse<String> ok = get(insecure.client(), url);
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.body()).isEqualTo("status 200");
        Flow f = insecure.awaitFlow(url);
        assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
        assertThat(f.serverConnection().tls().verified()).isFalse();
        assertThat(f.serverConnection().tls().peerCertificates().get(0).getIssuerX500Principal())
            .isEqualTo(dev.loupe.testing.TestPki.shared().untrustedCa().certificate().getSubjectX500Principal());
      }
    }
  }

  /**
   * A single-label host name (localhost, intranet names, container names) is still a host name:
   * Loupe must send it as SNI so the origin picks the right certificate, as curl and browsers do.
   * (The JDK sends no SNI for a name without a dot unless told to.)
   */
  @Test
  void singleLabelHostNameIsSentAsSniAndVerifies() throws Exception {
    String url = https.url("localhost") + "/status/200?sni=localhost";
    HttpResponse<String> r = get(proxy.client(), url);
    assertThat(r.statusCode()).as("%s", r.body()).isEqualTo(200);
    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.serverConnection().tls().sni()).isEqualTo("localhost");
  }

  /**
   * A certificate from a trusted CA, but for another name: the 502 must say that the name does
   * not match, not that the chain is untrusted (which sends the user to fix the wrong thing).
   */
  @Test
  void certificateForAnotherNameIsReportedAsANameMismatch() throws Exception {
    try (WrongNameTlsOrigin origin = WrongNameTlsOrigin.start("other.example")) {
      String where = "127.0.0.1:" + origin.port();
      String url = "https://" + where + "/wrong-name";
      HttpResponse<String> r = get(proxy.client(), url);

      assertErrorPage(r, 502, "tls-verify", "127.0.0.1", where);
      assertThat(r.body()).as("names the real cause").containsPattern("(?i)(match|subject alternative)");
      assertThat(r.body()).doesNotContain("unable to find valid certification path");
      Flow flow = proxy.awaitFlow(url);
      assertFailed(flow, FlowError.Kind.TLS_VERIFY, where);
      assertStillServes(proxy);
    }
  }

  @ParameterizedTest(name = "origin resets mid-body, JDK client, {0}")
  @ValueSource(strings = {"http", "https"})
  void resetMidBodyJdkClient(String scheme) throws Exception {
    TestOrigin origin = scheme.equals("http") ? http : https;
    String url = origin.url() + "/reset?client=jdk";
    // The origin promised 100000 bytes and sent 1000: the client must not see a complete response.
    assertThatThrownBy(() -> proxy.client().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofByteArray()))
        .isInstanceOf(IOException.class);

    Flow flow = proxy.awaitFlow(url);
    assertFailed(flow, FlowError.Kind.SERVER_RESET, "127.0.0.1:" + origin.port());
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.responseBody().size()).isEqualTo(1000);
    assertStillServes(proxy);
  }

  @Test
  void resetMidBodyRawClientSeesTruncationThenEof() throws Exception {
    String url = http.url() + "/reset?client=raw";
    try (Socket s = proxy.socket()) {
      WireHttp.send(s, "GET " + url + " HTTP/1.1\r\nHost: 127.0.0.1:" + http.port() + "\r\n\r\n");
      InputStream in = s.getInputStream();
      WireHttp.Response head = WireHttp.readHead(in);
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.header("content-length")).isEqualTo("100000");
      byte[] body = WireHttp.readToEnd(in); // returns at EOF: the proxy closed the connection
      assertThat(body).hasSize(1000);
    }
    Flow flow = proxy.awaitFlow(url);
    assertFailed(flow, FlowError.Kind.SERVER_RESET, "127.0.0.1:" + http.port());
    assertThat(flow.error().message()).contains("before the response body ended");
    assertStillServes(proxy);
  }

  @ParameterizedTest(name = "origin closes before responding, {0}")
  @ValueSource(strings = {"http", "https"})
  void originClosesBeforeResponding(String scheme) throws Exception {
    TestOrigin origin = scheme.equals("http") ? http : https;
    String where = "127.0.0.1:" + origin.port();
    String url = origin.url() + "/close?scheme=" + scheme;
    HttpResponse<String> r = get(proxy.client(), url);

    assertErrorPage(r, 502, "server-reset", "closed the connection", where);
    assertFailed(proxy.awaitFlow(url), FlowError.Kind.SERVER_RESET, where);
    assertStillServes(proxy);
  }

  @ParameterizedTest(name = "response timeout, {0}")
  @ValueSource(strings = {"http", "https"})
  void responseTimeout(String scheme) throws Exception {
    TestOrigin origin = scheme.equals("http") ? http : https;
    try (ProxyFixture p = ProxyFixture.start(b -> b.responseTimeout(Duration.ofMillis(500)))) {
      String where = "127.0.0.1:" + origin.port();
      String url = origin.url() + "/slow/5000?scheme=" + scheme;
      long t0 = System.nanoTime();
      HttpResponse<String> r = get(p.client(), url);
      long ms = (System.nanoTime() - t0) / 1_000_000;

      assertErrorPage(r, 504, "timeout", "no response", where);
      assertThat(ms).as("504 after the 500 ms response timeout, before the origin's 5 s")
          .isBetween(450L, 4_900L);
      assertFailed(p.awaitFlow(url), FlowError.Kind.TIMEOUT, where);
      assertStillServes(p);
    }
  }

  /**
   * The response timeout counts from the last request byte sent: an upload that takes longer than
   * the timeout, with a byte sent well within it every time, is relayed whole and answered. (It
   * used to count from the moment the origin connection was ready, so a long upload was cut off
   * with a 504 while the client was still sending — and a client that gave up mid-upload was then
   * recorded as a timeout, not as gone.)
   */
  @ParameterizedTest(name = "an upload longer than the response timeout, {0}")
  @ValueSource(strings = {"http", "https"})
  void anUploadLongerThanTheResponseTimeoutIsNotCutOff(String scheme) throws Exception {
    TestOrigin origin = scheme.equals("http") ? http : https;
    try (ProxyFixture p = ProxyFixture.start(b -> b.responseTimeout(Duration.ofSeconds(2)))) {
      int chunks = 120; // 16 KiB every 50 ms: 6 s in all, three times the response timeout
      byte[] body = TestData.bytes(chunks * 16 * 1024);
      String url = origin.url() + "/sha256?slow-upload=" + scheme;
      HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new SlowStream(body, 16 * 1024, 50))).build();
      HttpResponse<String> r = p.client().send(req, HttpResponse.BodyHandlers.ofString());

      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.body()).isEqualTo(TestData.sha256(body) + " " + body.length);
      Flow flow = p.awaitFlow(url);
      assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
      assertThat(flow.error()).isNull();
    }
  }

  /** Hands out {@code chunk} bytes of {@code data} per read, pausing {@code gapMs} before each. */
  private static final class SlowStream extends InputStream {
    private final byte[] data;
    private final int chunk;
    private final long gapMs;
    private int pos;

    SlowStream(byte[] data, int chunk, long gapMs) {
      this.data = data;
      this.chunk = chunk;
      this.gapMs = gapMs;
    }

    @Override
    public int read() {
      throw new UnsupportedOperationException("bulk reads only");
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (pos == data.length) {
        return -1;
      }
      try {
        Thread.sleep(gapMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      int n = Math.min(Math.min(len, chunk), data.length - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }

  @Test
  void clientThatDoesNotTrustLoupeGetsHandshakeFailureAndFlowIsRecorded() throws Exception {
    HttpClient untrusting = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .proxy(ProxySelector.of(proxy.address()))
        .connectTimeout(Duration.ofSeconds(10))
        .build(); // default trust: the JDK's cacerts, which do not hold Loupe's CA
    String url = https.url("localhost") + "/status/200?trust=default";
    assertThatThrownBy(() -> get(untrusting, url)).isInstanceOf(SSLHandshakeException.class);

    Flow flow = proxy.awaitFlows(1, f -> f.error() != null && f.error().kind() == FlowError.Kind.CLIENT_TLS).get(0);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.request().host()).isEqualTo("localhost");
    assertThat(flow.request().port()).isEqualTo(https.port());
    assertThat(flow.error().message()).contains("localhost");
    // The message must name a cause a person can act on, not "null".
    assertThat(flow.error().message()).doesNotContainPattern("(?i):\\s*null\\s*$");
    assertStillServes(proxy);
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Loupe's error page: "STATUS REASON\n\nLoupe: ..." naming the cause and the host, with X-Loupe-Error. */
  private static void assertErrorPage(HttpResponse<String> r, int status, String errorHeader, String cause,
      String host) {
    assertThat(r.statusCode()).as("status of %s", r.uri()).isEqualTo(status);
    assertThat(r.headers().firstValue("x-loupe-error")).hasValue(errorHeader);
    assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
    assertThat(r.body()).startsWith(status + " ");
    assertThat(r.body()).contains("\n\nLoupe: ");
    assertThat(r.body()).containsIgnoringCase(cause);
    assertThat(r.body()).contains(host);
  }

  private static void assertFailed(Flow flow, FlowError.Kind kind, String host) {
    assertThat(flow.state()).as("%s", flow).isEqualTo(FlowState.FAILED);
    assertThat(flow.error()).isNotNull();
    assertThat(flow.error().kind()).isEqualTo(kind);
    assertThat(flow.error().message()).contains(host);
  }

  /** The proxy still relays ordinary traffic, cleartext and intercepted. */
  private static void assertStillServes(ProxyFixture p) throws Exception {
    HttpClient c = p.client();
    HttpResponse<String> a = get(c, http.url() + "/status/200?after=failure");
    assertThat(a.statusCode()).isEqualTo(200);
    assertThat(a.body()).isEqualTo("status 200");
    HttpResponse<byte[]> b = c.send(HttpRequest.newBuilder(URI.create(https.url() + "/bytes/20000?after=failure"))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(b.statusCode()).isEqualTo(200);
    assertThat(TestData.sha256(b.body())).isEqualTo(TestData.sha256(20000));
  }

  /** A TLS server presenting a certificate from the (trusted) origin CA for a fixed, different name. */
  static final class WrongNameTlsOrigin implements AutoCloseable {
    private final javax.net.ssl.SSLServerSocket server;

    private WrongNameTlsOrigin(javax.net.ssl.SSLServerSocket server) {
      this.server = server;
    }

    static WrongNameTlsOrigin start(String certificateName) throws Exception {
      var leaf = dev.loupe.testing.TestPki.shared().originCa().leafFor(certificateName);
      java.security.KeyStore ks = java.security.KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      char[] pw = "test".toCharArray();
      ks.setKeyEntry("leaf", leaf.privateKey(), pw, leaf.chain().toArray(new java.security.cert.X509Certificate[0]));
      javax.net.ssl.KeyManagerFactory kmf =
          javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(ks, pw);
      javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), null, null);
      var server = (javax.net.ssl.SSLServerSocket) ctx.getServerSocketFactory()
          .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
      WrongNameTlsOrigin o = new WrongNameTlsOrigin(server);
      Thread t = new Thread(o::serve, "wrong-name-origin");
      t.setDaemon(true);
      t.start();
      return o;
    }

    private void serve() {
      while (!server.isClosed()) {
        try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) server.accept()) {
          s.setSoTimeout(10_000);
          s.startHandshake(); // the proxy is expected to abort it
          s.getInputStream().read();
        } catch (IOException expected) {
          // handshake aborted by the client, or the server closed
        }
      }
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  /**
   * A local address whose TCP handshake never completes: a listening socket that never accepts,
   * with its accept queue filled. Linux then drops further SYNs (tcp_abort_on_overflow=0), so a
   * connect hangs until the connector's own timeout fires.
   */
  static final class Blackhole implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> fillers = new ArrayList<>();

    private Blackhole(ServerSocket server) {
      this.server = server;
    }

    static Blackhole open() throws IOException {
      Blackhole h = new Blackhole(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
      InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), h.port());
      for (int i = 0; i < 64; i++) {
        Socket s = new Socket();
        try {
          s.connect(target, 200);
          h.fillers.add(s);
        } catch (SocketTimeoutException full) {
          s.close();
          return h; // a connect just hung: the queue is full and SYNs are dropped
        }
      }
      h.close();
      throw new IllegalStateException("could not fill the accept queue of a never-accepting socket");
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      for (Socket s : fillers) {
        s.close();
      }
      server.close();
    }
  }
}
