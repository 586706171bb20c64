package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.engine.api.AccessLog;
import dev.loupe.engine.api.ProxyAuth;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SOCKS5 (RFC 1928, RFC 1929) on the proxy's own port: real curl through it ({@code --socks5-hostname},
 * plain HTTP and intercepted HTTPS, and an ignored host as an opaque tunnel; with and without
 * credentials), a raw client for the address types and the connect-failure replies, and a corpus
 * of malformed greetings and requests, each answered with the RFC's reply (or a close) while the
 * listener keeps serving.
 */
@Timeout(120)
class Socks5Test {
  static final String USER = "phone";
  static final String PASSWORD = "s3cret:with:colons";

  static TestOrigin http;
  static TestOrigin https;
  /** Intercepts everything. */
  static ProxyFixture proxy;
  /** Tunnels localhost and *.invalid without looking; a SOCKS5-only listener too. */
  static ProxyFixture ignoring;
  /** Requires credentials from every client (loopback included). */
  static ProxyFixture authenticating;

  @BeforeAll
  static void start() throws Exception {
    http = TestOrigin.http();
    https = TestOrigin.h2AndH1();
    proxy = ProxyFixture.start();
    ignoring = ProxyFixture.start(b -> b.ignoreHosts(Pattern.compile("^localhost$|\\.invalid$|^127\\.0\\.0\\.1$"))
        .socks(new InetSocketAddress("127.0.0.1", 0)));
    authenticating = ProxyFixture.start(b -> b.proxyAuth(new ProxyAuth(USER, PASSWORD, false)));
  }

  @AfterAll
  static void stop() {
    Stream.of(proxy, ignoring, authenticating).forEach(ProxyFixture::close);
    http.close();
    https.close();
  }

  // ---- real curl ---------------------------------------------------------------------------

  @Test
  void curlThroughSocksGetsAnInterceptedHttpsBodyByteForByte() {
    assumeTrue(ExternalCommand.available("curl"), "curl is not installed");
    ExternalCommand r = curl(proxy, List.of(), https.url("localhost") + "/bytes/300000");
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(TestData.sha256(r.stdout())).isEqualTo(TestData.sha256(300_000));
    Flow f = proxy.awaitFlow("/bytes/300000");
    assertThat(f.request().url()).isEqualTo(https.url("localhost") + "/bytes/300000");
    assertThat(f.response().status()).isEqualTo(200);
    assertThat(f.tier()).isEqualTo(FlowTier.RELAY);
    assertThat(f.clientConnection().tls()).isNotNull(); // decrypted: Loupe's certificate, trusted by curl
  }

  @Test
  void curlThroughSocksGetsPlainHttp() {
    assumeTrue(ExternalCommand.available("curl"), "curl is not installed");
    ExternalCommand r = curl(proxy, List.of(), http.url("localhost") + "/bytes/5000");
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(TestData.sha256(r.stdout())).isEqualTo(TestData.sha256(5000));
    assertThat(proxy.awaitFlow("/bytes/5000").request().scheme()).isEqualTo("http");
  }

  @Test
  void anIgnoredHostIsAnOpaqueTunnelOnTheSocksOnlyListenerToo() {
    assumeTrue(ExternalCommand.available("curl"), "curl is not installed");
    for (InetSocketAddress at : List.of(ignoring.address(), ignoring.engine().socksAddress())) {
      ExternalCommand r = ExternalCommand.run(List.of("curl", "-sS", "--max-time", "20",
          "--socks5-hostname", "127.0.0.1:" + at.getPort(),
          // the origin's own certificate: nothing was intercepted
          "--cacert", TestPki.shared().originCa().certificatePath().toString(),
          https.url("localhost") + "/bytes/70000"));
      assertThat(r.exit()).as(r.stderr()).isZero();
      assertThat(TestData.sha256(r.stdout())).isEqualTo(TestData.sha256(70_000));
    }
    List<Flow> tunnels = ignoring.awaitFlows(2, f -> f.isTunnel() && f.request().port() == https.port());
    assertThat(tunnels).allSatisfy(f -> {
      assertThat(f.clientProtocol()).isEqualTo("SOCKS5");
      assertThat(f.tunnelBytesServerToClient()).isGreaterThan(70_000);
    });
  }

  @Test
  void credentialsAreRequiredWhenAuthenticationIsOn() {
    assumeTrue(ExternalCommand.available("curl"), "curl is not installed");
    long before = authenticating.engine().accessLog().total();
    ExternalCommand without = curl(authenticating, List.of(), http.url("localhost") + "/bytes/11");
    assertThat(without.exit()).as("no credentials: " + without).isNotZero();
    ExternalCommand wrong = curl(authenticating, List.of("--proxy-user", USER + ":nope"),
        http.url("localhost") + "/bytes/12");
    assertThat(wrong.exit()).as("wrong credentials: " + wrong).isNotZero();
    ExternalCommand right = curl(authenticating, List.of("--proxy-user", USER + ":" + PASSWORD),
        https.url("localhost") + "/bytes/13");
    assertThat(right.exit()).as(right.stderr()).isZero();
    assertThat(TestData.sha256(right.stdout())).isEqualTo(TestData.sha256(13));
    assertThat(http.seen()).noneMatch(s -> s.uri().contains("/bytes/11") || s.uri().contains("/bytes/12"));
    List<AccessLog.Refusal> refusals = authenticating.engine().accessLog().recent();
    assertThat(authenticating.engine().accessLog().total()).isEqualTo(before + 2);
    assertThat(refusals.subList(refusals.size() - 2, refusals.size())).extracting(AccessLog.Refusal::reason)
        .containsExactly("no username/password authentication offered", "wrong user name or password");
    assertThat(refusals.get(refusals.size() - 1).username()).isEqualTo(USER);
  }

  private static ExternalCommand curl(ProxyFixture p, List<String> extra, String url) {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20",
        "--socks5-hostname", "127.0.0.1:" + p.port(),
        "--cacert", TestPki.shared().loupeCa().certificatePath().toString()));
    cmd.addAll(extra);
    cmd.add(url);
    return ExternalCommand.run(cmd, Map.of(), null, 60);
  }

  // ---- a raw client: address types and connect failures ------------------------------------

  @Test
  void ipv4AddressTypeReachesTheOrigin() throws IOException {
    try (Socket s = socket(proxy)) {
      handshake(s, connect(ipv4(127, 0, 0, 1), http.port()));
      assertThat(readN(s.getInputStream(), 10)).startsWith(0x05, 0x00, 0x00);
      s.getOutputStream().write(("GET /bytes/77 HTTP/1.1\r\nHost: 127.0.0.1:" + http.port()
          + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      assertThat(response).startsWith("HTTP/1.1 200");
      assertThat(response).endsWith(new String(TestData.bytes(77), StandardCharsets.ISO_8859_1));
    }
  }

  @Test
  void ipv6AddressTypeReachesAnOriginOnTheIpv6Loopback() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    ServerSocket origin;
    try {
      origin = new ServerSocket(0, 10, v6);
    } catch (IOException e) {
      assumeTrue(false, "no IPv6 loopback here: " + e.getMessage());
      return;
    }
    try (origin) {
      Thread t = new Thread(() -> {
        try (Socket c = origin.accept()) {
          c.getInputStream().read(new byte[1024]);
          c.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nv6"
              .getBytes(StandardCharsets.US_ASCII));
        } catch (IOException ignored) {
          // the test fails on its side
        }
      });
      t.start();
      try (Socket s = socket(proxy)) {
        handshake(s, connect(v6.getAddress(), 0x04, origin.getLocalPort()));
        assertThat(readN(s.getInputStream(), 10)).startsWith(0x05, 0x00);
        s.getOutputStream().write("GET /v6 HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n"
            .getBytes(StandardCharsets.US_ASCII));
        assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1)).endsWith("\r\n\r\nv6");
      }
      t.join(10_000);
    }
    assertThat(proxy.awaitFlow("/v6").request().host()).isEqualTo("0:0:0:0:0:0:0:1");
  }

  @Test
  void connectFailuresToIgnoredHostsGetTheirReplyCodes() throws IOException {
    int closedPort;
    try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = ss.getLocalPort();
    }
    // Connection refused: 05.
    assertThat(replyThenClose(ignoring, concat(greetingNoAuth(), connect(ipv4(127, 0, 0, 1), closedPort))))
        .isEqualTo("0500" + "05050001000000000000");
    // DNS failure: host unreachable, 04.
    assertThat(replyThenClose(ignoring, concat(greetingNoAuth(), connect(domain("nosuch.invalid"), 443))))
        .isEqualTo("0500" + "05040001000000000000");
  }

  /** Sends {@code bytes} (no half-close: the client waits, as real ones do) and reads until the proxy closes. */
  static String replyThenClose(ProxyFixture p, byte[] bytes) throws IOException {
    try (Socket s = socket(p)) {
      s.getOutputStream().write(bytes);
      return HexFormat.of().formatHex(s.getInputStream().readAllBytes());
    }
  }

  // ---- malformed input ---------------------------------------------------------------------

  static Stream<Arguments> corpus() {
    byte[] noAuth = greetingNoAuth();
    String ok = "0500";
    return Stream.of(
        // greetings
        Arguments.of("no methods", hex("0500"), "05ff", false),
        Arguments.of("only GSSAPI offered", hex("050101"), "05ff", false),
        Arguments.of("only a private method offered", hex("050180"), "05ff", false),
        Arguments.of("255 unknown methods", concat(hex("05ff"), filled(255, 0x03)), "05ff", false),
        Arguments.of("truncated greeting: version only", hex("05"), "", false),
        Arguments.of("truncated greeting: methods missing", hex("050300"), "", false),
        Arguments.of("SOCKS4 CONNECT", hex("04010050" + "7f000001" + "00"), "005b000000000000", false),
        // requests
        Arguments.of("BIND", concat(noAuth, hex("0502000100000000" + "0050")), ok + "05070001000000000000", false),
        Arguments.of("UDP ASSOCIATE", concat(noAuth, hex("05030001" + "00000000" + "0000")),
            ok + "05070001000000000000", false),
        Arguments.of("unknown command 0x09", concat(noAuth, hex("05090001" + "7f000001" + "0050")),
            ok + "05070001000000000000", false),
        Arguments.of("address type 0x02", concat(noAuth, hex("05010002" + "7f000001" + "0050")),
            ok + "05080001000000000000", false),
        Arguments.of("address type 0x05", concat(noAuth, hex("05010005" + "7f000001" + "0050")),
            ok + "05080001000000000000", false),
        Arguments.of("empty domain name", concat(noAuth, hex("0501000300" + "0050")), ok + "05010001000000000000",
            false),
        Arguments.of("domain name of 255 characters", concat(noAuth, connect(domain("a".repeat(63) + "."
            + "b".repeat(63) + "." + "c".repeat(63) + "." + "d".repeat(63)), 80)), ok + "05010001000000000000", false),
        Arguments.of("domain label of 64 characters", concat(noAuth, connect(domain("x".repeat(64) + ".test"), 80)),
            ok + "05010001000000000000", false),
        Arguments.of("domain name with a space", concat(noAuth, connect(domain("exa mple.test"), 80)),
            ok + "05010001000000000000", false),
        Arguments.of("domain name with a NUL byte", concat(noAuth, connect(domain("evil.test\0.example"), 80)),
            ok + "05010001000000000000", false),
        Arguments.of("port 0", concat(noAuth, connect(ipv4(127, 0, 0, 1), 0)), ok + "05010001000000000000", false),
        Arguments.of("request of version 4", concat(noAuth, hex("04010001" + "7f000001" + "0050")),
            ok + "05010001000000000000", false),
        Arguments.of("truncated IPv4 request", concat(noAuth, hex("050100017f00")), ok, false),
        Arguments.of("truncated domain request", concat(noAuth, hex("050100030a") , "abc".getBytes()), ok, false),
        Arguments.of("truncated IPv6 request", concat(noAuth, hex("05010004" + "00".repeat(10))), ok, false),
        // authentication (the listener requires it)
        Arguments.of("auth required, none offered", hex("050100"), "05ff", true),
        Arguments.of("auth sub-negotiation of version 2", concat(hex("050102"), hex("0201" + "61" + "01" + "62")),
            "0502" + "0101", true),
        Arguments.of("wrong password", concat(hex("050102"), credentials(USER, "wrong")), "0502" + "0101", true),
        Arguments.of("wrong user name", concat(hex("050102"), credentials("someone", PASSWORD)), "0502" + "0101", true),
        Arguments.of("empty user name", concat(hex("050102"), credentials("", PASSWORD)), "0502" + "0101", true),
        Arguments.of("truncated credentials", concat(hex("050102"), hex("0105" + "6162")), "0502", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("corpus")
  void malformedInputGetsTheRightReplyAndTheListenerKeepsServing(String name, byte[] send, String expected,
      boolean auth) throws IOException {
    ProxyFixture p = auth ? authenticating : proxy;
    assertThat(HexFormat.of().formatHex(exchange(p, send))).as(name).isEqualTo(expected);
    // The same listener still serves a well-formed client.
    try (Socket s = socket(p)) {
      OutputStream out = s.getOutputStream();
      out.write(auth ? concat(hex("050102"), credentials(USER, PASSWORD)) : greetingNoAuth());
      out.write(connect(ipv4(127, 0, 0, 1), http.port()));
      out.write(("GET /bytes/3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      byte[] all = s.getInputStream().readAllBytes();
      String text = new String(all, StandardCharsets.ISO_8859_1);
      assertThat(text).contains("HTTP/1.1 200");
    }
  }

  @Test
  void theUsersCredentialsOpenTheTunnel() throws IOException {
    byte[] reply = exchangeOpen(authenticating, concat(hex("050102"), credentials(USER, PASSWORD),
        connect(ipv4(127, 0, 0, 1), http.port())), 2 + 2 + 10);
    assertThat(HexFormat.of().formatHex(reply)).isEqualTo("0502" + "0100" + "05000001000000000000");
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** Sends {@code bytes}, half-closes, and returns everything the proxy sent before it closed. */
  static byte[] exchange(ProxyFixture p, byte[] bytes) throws IOException {
    try (Socket s = socket(p)) {
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();
      s.shutdownOutput();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      try {
        for (int n; (n = in.read(buf)) > 0; ) {
          got.write(buf, 0, n);
        }
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the proxy neither answered nor closed; it sent "
            + HexFormat.of().formatHex(got.toByteArray()));
      } catch (IOException e) {
        // a reset after the reply counts as the close
      }
      return got.toByteArray();
    }
  }

  /** Sends {@code bytes} and reads exactly {@code n} bytes, leaving the connection open. */
  static byte[] exchangeOpen(ProxyFixture p, byte[] bytes, int n) throws IOException {
    try (Socket s = socket(p)) {
      s.getOutputStream().write(bytes);
      return readN(s.getInputStream(), n);
    }
  }

  static Socket socket(ProxyFixture p) throws IOException {
    Socket s = new Socket("127.0.0.1", p.port());
    s.setSoTimeout(15_000);
    return s;
  }

  /** Greeting (no auth), reads the method choice. */
  static void handshake(Socket s, byte[] request) throws IOException {
    s.getOutputStream().write(greetingNoAuth());
    assertThat(readN(s.getInputStream(), 2)).containsExactly(0x05, 0x00);
    s.getOutputStream().write(request);
  }

  static byte[] readN(InputStream in, int n) throws IOException {
    byte[] b = in.readNBytes(n);
    assertThat(b).as("bytes read").hasSize(n);
    return b;
  }

  static byte[] greetingNoAuth() {
    return hex("050100");
  }

  static byte[] credentials(String user, String password) {
    byte[] u = user.getBytes(StandardCharsets.UTF_8);
    byte[] p = password.getBytes(StandardCharsets.UTF_8);
    return concat(new byte[] {1, (byte) u.length}, u, new byte[] {(byte) p.length}, p);
  }

  static byte[] connect(byte[] address, int port) {
    return connect(address, address.length == 4 ? 0x01 : 0x03, port);
  }

  static byte[] connect(byte[] address, int atyp, int port) {
    byte[] head = atyp == 0x03 ? new byte[] {5, 1, 0, 3, (byte) address.length} : new byte[] {5, 1, 0, (byte) atyp};
    return concat(head, address, new byte[] {(byte) (port >> 8), (byte) port});
  }

  static byte[] ipv4(int a, int b, int c, int d) {
    return new byte[] {(byte) a, (byte) b, (byte) c, (byte) d};
  }

  /** A domain name's bytes, the address of type 0x03 (never 4 bytes long in these tests). */
  static byte[] domain(String name) {
    return name.getBytes(StandardCharsets.ISO_8859_1);
  }

  static byte[] filled(int n, int value) {
    byte[] b = new byte[n];
    java.util.Arrays.fill(b, (byte) value);
    return b;
  }

  static byte[] hex(String s) {
    return HexFormat.of().parseHex(s);
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }
}
