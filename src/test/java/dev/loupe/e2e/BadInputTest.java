package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The bad-input failures of issue 13, each as a careless or hostile client would send it, through
 * the plain explicit proxy (absolute-form) and inside an intercepted CONNECT tunnel (TLS,
 * origin-form): the request is refused with a clear status or carried without changing its
 * meaning, the origin never sees anything ambiguous, and the proxy keeps serving.
 * (HTTP/2 stream ids and SETTINGS floods: {@link Http2AbuseTest}.)
 */
@Timeout(180)
class BadInputTest {
  static ProxyFixture proxy;
  static TestOrigin http;
  static TestOrigin https;

  /** How the client reaches the origin through the proxy. */
  enum Leg {
    /** Plain explicit proxy, absolute-form targets, cleartext origin. */
    PLAIN,
    /** CONNECT, TLS intercepted by Loupe, origin-form targets inside, TLS origin. */
    CONNECT_TLS
  }

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

  /** One client connection through the proxy, on {@code leg}, to {@code origin}. */
  record Conn(Socket socket, InputStream in, String prefix, String host) implements AutoCloseable {
    /** The request target for {@code pathAndQuery} on this leg. */
    String target(String pathAndQuery) {
      return prefix + pathAndQuery;
    }

    void send(String raw) throws IOException {
      WireHttp.send(socket, raw);
    }

    WireHttp.Response read() throws IOException {
      return WireHttp.readResponse(in);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  static Conn open(Leg leg, TestOrigin origin) throws IOException {
    return open(leg, origin.port());
  }

  static Conn open(Leg leg, int originPort) throws IOException {
    String host = "127.0.0.1:" + originPort;
    Socket raw = proxy.socket();
    raw.setSoTimeout(10_000);
    if (leg == Leg.PLAIN) {
      return new Conn(raw, new BufferedInputStream(raw.getInputStream()), "http://" + host, host);
    }
    // Unbuffered until TLS: nothing after the CONNECT response may be read here.
    WireHttp.send(raw, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
    WireHttp.Response established = WireHttp.readHead(raw.getInputStream());
    assertThat(established.status()).as("CONNECT answer").isEqualTo(200);
    SSLSocket tls = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
        .createSocket(raw, "127.0.0.1", originPort, true);
    SSLParameters params = tls.getSSLParameters();
    params.setApplicationProtocols(new String[] {"http/1.1"});
    tls.setSSLParameters(params);
    tls.setSoTimeout(10_000);
    tls.startHandshake();
    return new Conn(tls, new BufferedInputStream(tls.getInputStream()), "", host);
  }

  static TestOrigin origin(Leg leg) {
    return leg == Leg.PLAIN ? http : https;
  }

  // ---- 1. Connection naming a framing header --------------------------------------------------

  /**
   * {@code Connection: Content-Length} must not strip the framing: before the fix Loupe forwarded
   * the request without Content-Length and the origin read the body as a second request.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void connectionHeaderNamingContentLengthIsRefused(Leg leg) throws Exception {
    String tag = "smuggle-cl-" + leg;
    TestOrigin origin = origin(leg);
    try (Conn c = open(leg, origin)) {
      String smuggled = "GET /status/200?case=" + tag + "-smuggled HTTP/1.1\r\nHost: " + c.host() + "\r\n\r\n";
      c.send("POST " + c.target("/sha256?case=" + tag) + " HTTP/1.1\r\nHost: " + c.host()
          + "\r\nConnection: Content-Length\r\nContent-Length: " + smuggled.length() + "\r\n\r\n" + smuggled);
      WireHttp.Response r = c.read();
      assertRefused(r, 400, "content-length");
      assertThat(WireHttp.closedByPeer(c.socket())).as("closed after the 400").isTrue();
    }
    Flow flow = proxy.awaitFlow("case=" + tag);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_PROTOCOL);
    assertServed(leg, "after-" + tag);
    assertThat(origin.seen()).as("the origin saw neither request").noneMatch(s -> s.uri().contains("case=" + tag));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void connectionHeaderNamingTransferEncodingOrHostIsRefused(Leg leg) throws Exception {
    for (String named : List.of("Transfer-Encoding", "Host", "close, content-length")) {
      String tag = "smuggle-" + named.replaceAll("[^a-zA-Z]", "") + "-" + leg;
      try (Conn c = open(leg, origin(leg))) {
        c.send("POST " + c.target("/sha256?case=" + tag) + " HTTP/1.1\r\nHost: " + c.host()
            + "\r\nConnection: " + named + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
        assertRefused(c.read(), 400, "connection header names");
      }
      assertThat(origin(leg).seen()).noneMatch(s -> s.uri().contains("case=" + tag));
    }
    assertServed(leg, "after-connection-names-" + leg);
  }

  /** Connection options that name real hop-by-hop fields still work, and those fields are not forwarded. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void connectionHeaderNamingHopByHopFieldsStillWorks(Leg leg) throws Exception {
    String tag = "hop-" + leg;
    try (Conn c = open(leg, origin(leg))) {
      c.send("POST " + c.target("/sha256?case=" + tag) + " HTTP/1.1\r\nHost: " + c.host()
          + "\r\nConnection: keep-alive, X-Hop\r\nX-Hop: secret\r\nContent-Length: 5\r\n\r\nhello");
      WireHttp.Response r = c.read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).endsWith(" 5");
    }
    TestOrigin.Seen seen = origin(leg).awaitSeen("case=" + tag);
    assertThat(seen.headers().contains("x-hop")).as("the hop-by-hop field stays behind").isFalse();
    assertThat(seen.headers().get("content-length")).isEqualTo("5");
  }

  // ---- 2. Non-ASCII octets in the request target ----------------------------------------------

  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void nonAsciiTargetOctetsArePercentEncodedAsTheyArrived(Leg leg) throws Exception {
    String tag = "utf8-" + leg;
    // "é" as UTF-8 on the wire (C3 A9), as curl sends a URL typed with it; and one Latin-1 octet (E9).
    String raw = "/status/200?case=" + tag + "&q=\u00c3\u00a9&l=\u00e9";
    try (Conn c = open(leg, origin(leg))) {
      c.send("GET " + c.target(raw) + " HTTP/1.1\r\nHost: " + c.host() + "\r\n\r\n");
      WireHttp.Response r = c.read();
      assertThat(r.status()).isEqualTo(200);
    }
    TestOrigin.Seen seen = origin(leg).awaitSeen("case=" + tag);
    assertThat(seen.uri()).as("the origin gets the original octets, percent-encoded")
        .isEqualTo("/status/200?case=" + tag + "&q=%C3%A9&l=%E9");
    assertThat(proxy.awaitFlow("case=" + tag).request().target()).endsWith("&q=%C3%A9&l=%E9");
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void controlCharactersInTheTargetAreRefused(Leg leg) throws Exception {
    String tag = "ctl-" + leg;
    try (Conn c = open(leg, origin(leg))) {
      c.send("GET " + c.target("/status/200?case=" + tag + "&x=a\u0001b") + " HTTP/1.1\r\nHost: " + c.host()
          + "\r\n\r\n");
      assertRefused(c.read(), 400, "");
    }
    assertThat(origin(leg).seen()).noneMatch(s -> s.uri().contains("case=" + tag));
    assertServed(leg, "after-" + tag);
  }

  // ---- 3. Invalid HTTP versions ---------------------------------------------------------------

  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void invalidHttpVersionsAreRefused(Leg leg) throws Exception {
    record Case(String version, int status) {}
    for (Case k : List.of(new Case("http/1.1", 400), new Case("Http/1.1", 400), new Case("HTTP/1.2", 400),
        new Case("HTTP/2.0", 505), new Case("HTTP/3.0", 505), new Case("HTTP/0.9", 505))) {
      String tag = "version-" + k.version().replaceAll("[^a-zA-Z0-9]", "") + "-" + leg;
      try (Conn c = open(leg, origin(leg))) {
        c.send("GET " + c.target("/status/200?case=" + tag) + " " + k.version() + "\r\nHost: " + c.host()
            + "\r\n\r\n");
        WireHttp.Response r = c.read();
        assertRefused(r, k.status(), "version");
      }
      assertThat(origin(leg).seen()).as(k.version()).noneMatch(s -> s.uri().contains("case=" + tag));
    }
    assertServed(leg, "after-versions-" + leg);
  }

  // ---- 4. A body framing error after the head went to the origin (every server leg) ------------

  enum ServerLeg { H1, H2, H3 }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> legPairs() {
    java.util.stream.Stream.Builder<org.junit.jupiter.params.provider.Arguments> b = java.util.stream.Stream.builder();
    for (Leg c : Leg.values()) {
      for (ServerLeg s : ServerLeg.values()) {
        b.add(org.junit.jupiter.params.provider.Arguments.of(c, s));
      }
    }
    return b.build();
  }

  /**
   * A chunked upload whose head and first chunk already reached the origin, then a bad chunk size:
   * the client gets a 400, the flow records it, and the origin's request is aborted (connection
   * closed, RST_STREAM, or RESET_STREAM) — never completed.
   */
  @ParameterizedTest(name = "client {0}, server {1}")
  @org.junit.jupiter.params.provider.MethodSource("legPairs")
  void bodyFramingErrorAbortsTheOriginRequest(Leg leg, ServerLeg serverLeg) throws Exception {
    String tag = "bad-chunk-" + leg + "-" + serverLeg;
    EngineConfig.UpstreamProtocol up = switch (serverLeg) {
      case H1 -> EngineConfig.UpstreamProtocol.H1;
      case H2 -> EngineConfig.UpstreamProtocol.H2;
      case H3 -> EngineConfig.UpstreamProtocol.H3;
    };
    ProxyFixture saved = proxy;
    TestOrigin tcpOrigin = null;
    Http3TestOrigin quicOrigin = null;
    try (ProxyFixture p = ProxyFixture.start(b -> b.upstreamProtocol(up))) {
      proxy = p;
      int port;
      if (serverLeg == ServerLeg.H3) {
        quicOrigin = new Http3TestOrigin(TestPki.shared().originCa());
        port = quicOrigin.port();
      } else {
        tcpOrigin = serverLeg == ServerLeg.H2 ? TestOrigin.h2Only() : TestOrigin.h1Only();
        port = tcpOrigin.port();
      }
      try (Conn c = leg == Leg.PLAIN ? plainToTls(port) : open(leg, port)) {
        c.send("POST " + c.target("/sha256?case=" + tag) + " HTTP/1.1\r\nHost: " + c.host()
            + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        if (quicOrigin != null) {
          quicOrigin.awaitSeen("case=" + tag);
        } else {
          tcpOrigin.awaitSeen("case=" + tag);
        }
        c.send("zz\r\nworld\r\n0\r\n\r\n");
        WireHttp.Response r = c.read();
        assertRefused(r, 400, "");
        assertThat(WireHttp.closedByPeer(c.socket())).isTrue();
      }
      if (quicOrigin != null) {
        Http3TestOrigin.Ending ending = quicOrigin.awaitSeen("case=" + tag).ending().get(30, TimeUnit.SECONDS);
        assertThat(ending.answered()).as("HTTP/3 origin: %s", ending).isFalse();
        assertThat(ending.how()).as("HTTP/3 origin: the request stream was reset").isEqualTo("reset");
        assertThat(ending.requestBodyLength()).isLessThanOrEqualTo(5);
      } else {
        TestOrigin.Ending ending = tcpOrigin.awaitSeen("case=" + tag).ending().get(30, TimeUnit.SECONDS);
        assertThat(ending.requestEnded()).as("%s origin: the request was never completed: %s", serverLeg, ending)
            .isFalse();
        assertThat(ending.answered()).isFalse();
        assertThat(ending.requestBodyLength()).isLessThanOrEqualTo(5);
        if (serverLeg == ServerLeg.H2) {
          assertThat(ending.outcome()).as("HTTP/2: the stream was reset").isEqualTo(TestOrigin.Outcome.RESET);
        }
      }
      Flow flow = p.awaitFlow("case=" + tag);
      assertThat(flow.state()).isEqualTo(FlowState.FAILED);
      assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_PROTOCOL);
      assertThat(flow.error().message()).contains("request to the origin was aborted");
    } finally {
      proxy = saved;
      if (tcpOrigin != null) {
        tcpOrigin.close();
      }
      if (quicOrigin != null) {
        quicOrigin.close();
      }
    }
  }

  /** The plain explicit proxy with an absolute https:// target: Loupe speaks TLS to the origin. */
  private static Conn plainToTls(int originPort) throws IOException {
    Socket raw = proxy.socket();
    raw.setSoTimeout(10_000);
    String host = "127.0.0.1:" + originPort;
    return new Conn(raw, new BufferedInputStream(raw.getInputStream()), "https://" + host, host);
  }

  // ---- 5. WebSocket frames right behind the upgrade request ------------------------------------

  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void frameSentBehindTheUpgradeRequestIsDelivered(Leg leg) throws Exception {
    String tag = "ws-eager-" + leg;
    byte[] text = "hello before the 101".getBytes(StandardCharsets.UTF_8);
    try (Conn c = open(leg, origin(leg))) {
      String upgrade = "GET " + c.target("/ws?case=" + tag) + " HTTP/1.1\r\nHost: " + c.host()
          + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13"
          + "\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
      // One write: the head and a masked text frame behind it, before any answer.
      byte[] head = upgrade.getBytes(StandardCharsets.ISO_8859_1);
      byte[] frame = maskedTextFrame(text);
      byte[] both = new byte[head.length + frame.length];
      System.arraycopy(head, 0, both, 0, head.length);
      System.arraycopy(frame, 0, both, head.length, frame.length);
      WireHttp.send(c.socket(), both);

      WireHttp.Response switching = WireHttp.readHead(c.in());
      assertThat(switching.status()).isEqualTo(101);
      byte[] echoed = readServerFrame(c.in());
      assertThat(new String(echoed, StandardCharsets.UTF_8)).isEqualTo("hello before the 101");
    }
    Flow flow = proxy.awaitFlow("case=" + tag);
    assertThat(flow.webSocketMessages()).as("captured messages")
        .anyMatch(m -> m.direction() == WebSocketMessage.Direction.CLIENT_TO_SERVER
            && new String(m.payload(), StandardCharsets.UTF_8).equals("hello before the 101"))
        .anyMatch(m -> m.direction() == WebSocketMessage.Direction.SERVER_TO_CLIENT);
  }

  /** The origin refuses the upgrade: what the client sent behind it is parsed as its next request. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Leg.class)
  void bytesBehindARefusedUpgradeAreTheNextRequest(Leg leg) throws Exception {
    String tag = "ws-refused-" + leg;
    try (Conn c = open(leg, origin(leg))) {
      c.send("GET " + c.target("/status/200?case=" + tag + "-1") + " HTTP/1.1\r\nHost: " + c.host()
          + "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13"
          + "\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
          + "GET " + c.target("/status/201?case=" + tag + "-2") + " HTTP/1.1\r\nHost: " + c.host() + "\r\n\r\n");
      WireHttp.Response first = c.read();
      assertThat(first.status()).isEqualTo(200);
      assertThat(first.bodyText()).isEqualTo("status 200");
      WireHttp.Response second = c.read();
      assertThat(second.status()).isEqualTo(201);
      assertThat(second.bodyText()).isEqualTo("status 201");
    }
    assertThat(origin(leg).awaitSeen("case=" + tag + "-2").uri()).contains("/status/201");
  }

  private static byte[] maskedTextFrame(byte[] payload) {
    byte[] mask = {0x11, 0x22, 0x33, 0x44};
    byte[] f = new byte[2 + 4 + payload.length];
    f[0] = (byte) 0x81; // FIN, text
    f[1] = (byte) (0x80 | payload.length);
    System.arraycopy(mask, 0, f, 2, 4);
    for (int i = 0; i < payload.length; i++) {
      f[6 + i] = (byte) (payload[i] ^ mask[i % 4]);
    }
    return f;
  }

  /** One unmasked server frame with a payload under 126 bytes; returns the payload. */
  private static byte[] readServerFrame(InputStream in) throws IOException {
    int b0 = in.read();
    int b1 = in.read();
    assertThat(b0).as("FIN + text").isEqualTo(0x81);
    assertThat(b1 & 0x80).as("server frames are not masked").isZero();
    return in.readNBytes(b1 & 0x7f);
  }

  // ---- 7. CONNECT to an origin that cannot be reached ------------------------------------------

  @Test
  void connectToAnUnreachableOriginIsA502() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    String host = "127.0.0.1:" + closedPort;
    try (Socket s = proxy.socket()) {
      WireHttp.send(s, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
      WireHttp.Response r = WireHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(502);
      assertThat(r.header("x-loupe-error")).isEqualTo("connect-refused");
      assertThat(r.bodyText()).contains(String.valueOf(closedPort));
      assertThat(WireHttp.closedByPeer(s)).isTrue();
    }
    Flow flow = proxy.awaitFlows(1, f -> f.request() != null && f.request().method().equals("CONNECT")
        && f.request().authority().endsWith(":" + closedPort)).get(0);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CONNECT_REFUSED);
  }

  @Test
  void connectToAHostThatDoesNotResolveIsA502() throws Exception {
    try (Socket s = proxy.socket()) {
      WireHttp.send(s, "CONNECT nosuch.invalid:443 HTTP/1.1\r\nHost: nosuch.invalid:443\r\n\r\n");
      WireHttp.Response r = WireHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(502);
      assertThat(r.header("x-loupe-error")).isEqualTo("dns");
      assertThat(r.bodyText()).contains("nosuch.invalid");
    }
  }

  @Test
  void lazyStrategyAnswers200First() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    try (ProxyFixture lazy = ProxyFixture.start(b -> b.connectStrategy(EngineConfig.ConnectStrategy.LAZY));
        Socket s = lazy.socket()) {
      String host = "127.0.0.1:" + closedPort;
      WireHttp.send(s, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
      assertThat(WireHttp.readHead(s.getInputStream()).status()).isEqualTo(200);
    }
  }

  /** The connection dialled to answer the CONNECT carries the tunnel's first request: one origin connection. */
  @Test
  void eagerConnectReusesTheDialledConnection() throws Exception {
    try (TestOrigin fresh = TestOrigin.h1Only()) {
      try (Conn c = open(Leg.CONNECT_TLS, fresh)) {
        c.send("GET /status/200?case=eager-reuse HTTP/1.1\r\nHost: " + c.host() + "\r\n\r\n");
        assertThat(c.read().status()).isEqualTo(200);
      }
      assertThat(fresh.connections()).as("origin connections for one CONNECT and one request").isEqualTo(1);
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private static void assertRefused(WireHttp.Response r, int status, String reasonContains) {
    assertThat(r.status()).as("%s", r.statusLine()).isEqualTo(status);
    assertThat(r.header("x-loupe-error")).isEqualTo("client-protocol");
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    assertThat(r.bodyText().toLowerCase(java.util.Locale.ROOT)).startsWith(status + " ")
        .contains(reasonContains.toLowerCase(java.util.Locale.ROOT));
  }

  /** A normal request on a fresh connection of the same kind is answered. */
  private static void assertServed(Leg leg, String tag) throws IOException {
    try (Conn c = open(leg, origin(leg))) {
      c.send("GET " + c.target("/status/200?case=" + tag) + " HTTP/1.1\r\nHost: " + c.host() + "\r\n\r\n");
      WireHttp.Response r = c.read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("status 200");
    }
  }
}
