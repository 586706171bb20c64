package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.ca.LeafCertificate;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reverse mode (issue 3, "Reverse mode"): Loupe listens on one port and forwards every request to
 * one origin. The same port serves TLS (HTTP/2 or HTTP/1.1 by ALPN, with a certificate minted by
 * the Loupe CA for the SNI name, or the user's own with {@code --cert/--key}), HTTP/2 with prior
 * knowledge (h2c) and cleartext HTTP/1.1. Each client kind sends byte-exact bodies (0 B, 16 KiB + 1,
 * 1 MiB; GET and POST) to a cleartext and a TLS HTTP/1.1 origin, and the flows record what each
 * side spoke.
 *
 * <p>Clients: the JDK HttpClient (HTTP/2 and HTTP/1.1 over TLS to {@code https://localhost:PORT},
 * trusting only Loupe's CA, no proxy; HTTP/1.1 in cleartext) and curl with
 * {@code --http2-prior-knowledge} for h2c.
 */
@Timeout(300)
class ReverseModeTest {
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final int SAN_DNS = 2;
  private static final int SAN_IP = 7;
  private static final String CURL = "/usr/bin/curl";

  /** How the client reaches Loupe's reverse-mode port. */
  enum Client {
    H2_TLS("HTTP/2", true),
    H1_TLS("HTTP/1.1", true),
    H1_CLEARTEXT("HTTP/1.1", false),
    H2C("HTTP/2", false);

    final String protocol;
    final boolean tls;

    Client(String protocol, boolean tls) {
      this.protocol = protocol;
      this.tls = tls;
    }
  }

  @TempDir static Path tmp;
  static TestOrigin httpOrigin;
  static TestOrigin httpsOrigin;
  static ProxyFixture toHttp;
  static ProxyFixture toHttps;
  static HttpClient h2;
  static HttpClient h1;

  @BeforeAll
  static void start() throws Exception {
    httpOrigin = TestOrigin.http();
    httpsOrigin = TestOrigin.https();
    toHttp = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(httpOrigin.url())));
    toHttps = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(httpsOrigin.url())));
    h2 = client(HttpClient.Version.HTTP_2);
    h1 = client(HttpClient.Version.HTTP_1_1);
  }

  @AfterAll
  static void stop() {
    for (ProxyFixture p : new ProxyFixture[] {toHttp, toHttps}) {
      if (p != null) {
        p.close();
      }
    }
    for (TestOrigin o : new TestOrigin[] {httpOrigin, httpsOrigin}) {
      if (o != null) {
        o.close();
      }
    }
  }

  /** Not a proxy client: straight to Loupe's port, trusting only Loupe's CA. */
  private static HttpClient client(HttpClient.Version version) {
    return HttpClient.newBuilder()
        .version(version)
        .sslContext(TestPki.shared().clientTrustingLoupe())
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  static Stream<Arguments> cases() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (String origin : new String[] {"http", "https"}) {
      for (Client client : Client.values()) {
        for (int size : new int[] {0, 16_385, 1 << 20}) {
          b.add(Arguments.of(origin, client, size));
        }
      }
    }
    return b.build();
  }

  private static TestOrigin origin(String scheme) {
    return scheme.equals("http") ? httpOrigin : httpsOrigin;
  }

  private static ProxyFixture proxy(String scheme) {
    return scheme.equals("http") ? toHttp : toHttps;
  }

  /** Where a client of this kind points: Loupe's port, by name over TLS (SNI), by address in cleartext. */
  private static String base(ProxyFixture proxy, Client client) {
    return (client.tls ? "https://localhost:" : "http://127.0.0.1:") + proxy.port();
  }

  @ParameterizedTest(name = "GET {1} to {0} origin, {2} bytes")
  @MethodSource("cases")
  void get(String scheme, Client client, int size) throws Exception {
    ProxyFixture proxy = proxy(scheme);
    String tag = "get-" + scheme + "-" + client + "-" + size;
    String path = "/bytes/" + size + "?t=" + tag;
    Answer a = send(client, base(proxy, client) + path, null);
    assertThat(a.status()).as("body: %s", a.text()).isEqualTo(200);
    assertThat(a.protocol()).isEqualTo(client.protocol);
    assertThat(TestData.sha256(a.body())).isEqualTo(TestData.sha256(size));

    Flow flow = proxy.awaitFlow("t=" + tag);
    assertReverseFlow(flow, scheme, client, "GET", path);
    assertThat(flow.responseBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(size));
    assertThat(origin(scheme).seen()).anySatisfy(s -> {
      assertThat(s.uri()).isEqualTo(path);
      // The origin is addressed by its own authority, whatever name the client used for Loupe.
      assertThat(s.headers().get("host")).isEqualTo("127.0.0.1:" + origin(scheme).port());
    });
  }

  @ParameterizedTest(name = "POST {1} to {0} origin, {2} bytes")
  @MethodSource("cases")
  void post(String scheme, Client client, int size) throws Exception {
    ProxyFixture proxy = proxy(scheme);
    String tag = "post-" + scheme + "-" + client + "-" + size;
    String path = "/sha256?t=" + tag;
    Answer a = send(client, base(proxy, client) + path, TestData.bytes(size));
    assertThat(a.status()).as("body: %s", a.text()).isEqualTo(200);
    assertThat(a.protocol()).isEqualTo(client.protocol);
    assertThat(a.text()).isEqualTo(TestData.sha256(size) + " " + size);

    Flow flow = proxy.awaitFlow("t=" + tag);
    assertReverseFlow(flow, scheme, client, "POST", path);
    assertThat(flow.requestBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.requestBody().openStream())).isEqualTo(TestData.sha256(size));
  }

  private static void assertReverseFlow(Flow flow, String scheme, Client client, String method, String path) {
    TestOrigin origin = origin(scheme);
    assertThat(flow.state()).as("flow %s, error %s", flow, flow.error()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.tier()).isEqualTo(FlowTier.RELAY);
    assertThat(flow.request().method()).isEqualTo(method);
    assertThat(flow.request().url()).isEqualTo(origin.url() + path);
    assertThat(flow.request().httpVersion()).isEqualTo(client.protocol);
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.clientProtocol()).isEqualTo(client.protocol);
    // TestOrigin speaks HTTP/1.1 only (no ALPN h2 over TLS, no h2c): the h2 clients are bridged.
    assertThat(flow.serverProtocol()).isEqualTo("HTTP/1.1");
    if (client.protocol.equals("HTTP/2")) {
      assertThat(flow.clientStreamId()).as("client stream id").isPositive();
    }
    if (client.tls) {
      assertThat(flow.clientConnection().tls()).isNotNull();
      assertThat(flow.clientConnection().tls().sni()).isEqualTo("localhost");
      // The JDK's HTTP/1.1 client offers no ALPN at all; Loupe then speaks HTTP/1.1.
      assertThat(flow.clientConnection().tls().alpn()).isEqualTo(client == Client.H2_TLS ? "h2" : null);
    } else {
      assertThat(flow.clientConnection().tls()).isNull();
    }
    if (scheme.equals("https")) {
      assertThat(flow.serverConnection().tls()).isNotNull();
      assertThat(flow.serverConnection().tls().verified()).isTrue();
    } else {
      assertThat(flow.serverConnection().tls()).isNull();
    }
  }

  // ---- certificates ------------------------------------------------------------------------

  @Test
  void certificateForSniLocalhostIsMintedByTheLoupeCa() throws Exception {
    X509Certificate[] chain = handshake(toHttps.port(), "localhost", "localhost");
    assertThat(sans(chain[0])).contains(List.of(SAN_DNS, "localhost"));
    assertMintedByLoupe(chain);
  }

  @Test
  void withoutSniTheCertificateNamesTheOriginHost() throws Exception {
    // No SNI: Loupe has only the reverse target to go by (here the IP literal 127.0.0.1).
    X509Certificate[] chain = handshake(toHttps.port(), null, "127.0.0.1");
    assertThat(sans(chain[0])).contains(List.of(SAN_IP, "127.0.0.1"));
    assertMintedByLoupe(chain);
  }

  @Test
  void aClientNotTrustingTheLoupeCaIsRefusedAndRecorded() throws Exception {
    HttpClient untrusting = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_2)
        .sslContext(TestPki.trusting(TestPki.shared().originCa().certificate()))
        .connectTimeout(Duration.ofSeconds(10))
        .build();
    URI uri = URI.create(base(toHttp, Client.H2_TLS) + "/bytes/10?t=untrusting");
    assertThatThrownBy(() -> untrusting.send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.ofByteArray())).isInstanceOf(SSLHandshakeException.class);
    Flow flow = toHttp.awaitFlows(1, f -> f.error() != null
        && f.error().kind() == FlowError.Kind.CLIENT_TLS).get(0);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(httpOrigin.seen()).noneMatch(s -> s.uri().contains("untrusting"));
  }

  /**
   * {@code --mode reverse:URL --cert FILE --key FILE} through the real command line: Loupe
   * presents the user's certificate (a leaf from the origin test CA, which the client trusts)
   * instead of minting one, and forwards as usual.
   */
  @Test
  void userCertificateFromTheCommandLineIsPresented() throws Exception {
    LeafCertificate user = TestPki.shared().originCa().leafFor("localhost");
    Path cert = tmp.resolve("user-cert.pem");
    Path key = tmp.resolve("user-key.pem");
    StringBuilder chain = new StringBuilder();
    for (X509Certificate c : user.chain()) {
      chain.append(pem("CERTIFICATE", c.getEncoded()));
    }
    Files.writeString(cert, chain, StandardCharsets.US_ASCII);
    Files.writeString(key, pem("PRIVATE KEY", user.privateKey().getEncoded()), StandardCharsets.US_ASCII);
    Path originCa = tmp.resolve("origin-ca.pem");
    TestPki.shared().originCa().exportPem(originCa);
    Path conf = tmp.resolve("cli-conf");

    try (LoupeProcess loupe = LoupeProcess.start(
        List.of("-Xmx256m", "-Dio.netty.leakDetection.level=paranoid"),
        List.of("--headless", "--listen", "127.0.0.1:0", "--confdir", conf.toString(),
            "--mode", "reverse:" + httpsOrigin.url(), "--trust-ca", originCa.toString(),
            "--cert", cert.toString(), "--key", key.toString()))) {
      int port = Integer.parseInt(loupe.awaitLine(Pattern.compile(
          "listening on http://127\\.0\\.0\\.1:(\\d+) \\(reverse mode to " + Pattern.quote(httpsOrigin.url())),
          Duration.ofSeconds(60)).group(1));

      // Trusting only the CA of the user's certificate (not Loupe's) is enough.
      HttpClient client = HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_2)
          .sslContext(TestPki.trusting(TestPki.shared().originCa().certificate()))
          .connectTimeout(Duration.ofSeconds(10))
          .build();
      String url = "https://localhost:" + port + "/bytes/100000?t=cli-user-cert";
      HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(r.body()).isEqualTo(TestData.bytes(100_000));
      X509Certificate presented = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
      assertThat(presented.getSerialNumber()).isEqualTo(user.certificate().getSerialNumber());
      assertThat(presented.getPublicKey()).isEqualTo(user.certificate().getPublicKey());
      assertThat(presented).isEqualTo(user.certificate());

      // The raw handshake without SNI gets the same certificate: there is only one.
      X509Certificate[] noSni = handshake(port, null, null, TestPki.shared().originCa().certificate());
      assertThat(noSni[0]).isEqualTo(user.certificate());

      String time = "\\d\\d:\\d\\d:\\d\\d\\.\\d{3}";
      loupe.awaitLine(Pattern.compile("^" + time + " GET " + Pattern.quote(httpsOrigin.url()
          + "/bytes/100000?t=cli-user-cert") + " 200 \\S+ \\S+ h2/h1 relay$"), Duration.ofSeconds(30));

      loupe.terminate();
      assertThat(loupe.awaitExit(Duration.ofSeconds(30))).as("stderr: %s", loupe.stderr()).isIn(0, 143);
      assertThat(loupe.stderr()).noneMatch(l -> l.contains("LEAK"));
    }
  }

  // ---- helpers -----------------------------------------------------------------------------

  /** A response as a client of some kind saw it. */
  private record Answer(int status, String protocol, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** GET {@code url}, or POST {@code upload} to it, with the client kind given. */
  private static Answer send(Client client, String url, byte[] upload) throws Exception {
    if (client == Client.H2C) {
      return curlPriorKnowledge(url, upload);
    }
    HttpClient c = client == Client.H2_TLS ? h2 : h1;
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60));
    if (upload != null) {
      req.header("Content-Type", "application/octet-stream")
          .POST(upload.length == 0 ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(upload));
    }
    HttpResponse<byte[]> r = c.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    return new Answer(r.statusCode(), r.version() == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1", r.body());
  }

  /** curl speaking HTTP/2 in cleartext without an upgrade (the connection starts with the preface). */
  private static Answer curlPriorKnowledge(String url, byte[] upload) throws Exception {
    assertThat(Path.of(CURL)).as("curl (Debian package curl, built with nghttp2) drives h2c").isExecutable();
    Path out = Files.createTempFile(tmp, "curl-out", ".bin");
    List<String> cmd = new ArrayList<>(List.of(CURL, "-sS", "--http2-prior-knowledge", "--max-time", "60",
        "-o", out.toString(), "-w", "%{http_version} %{http_code}"));
    if (upload != null) {
      Path in = Files.createTempFile(tmp, "curl-in", ".bin");
      Files.write(in, upload);
      cmd.addAll(List.of("-H", "Content-Type: application/octet-stream", "--data-binary", "@" + in));
    }
    cmd.add(url);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String printed;
    try (InputStream stdout = p.getInputStream()) {
      printed = new String(stdout.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("curl finished").isTrue();
    assertThat(p.exitValue()).as("curl: %s", printed).isZero();
    String[] parts = printed.split(" ");
    return new Answer(Integer.parseInt(parts[1]), parts[0].equals("2") ? "HTTP/2" : "HTTP/" + parts[0],
        Files.readAllBytes(out));
  }

  private static X509Certificate[] handshake(int port, String sni, String verifyAs) throws Exception {
    return handshake(port, sni, verifyAs, TestPki.shared().loupeCa().certificate());
  }

  /**
   * A raw TLS handshake with Loupe's port offering h2 and http/1.1: {@code sni} as server name
   * (none when null), the certificate checked against {@code verifyAs} (not at all when null).
   */
  private static X509Certificate[] handshake(int port, String sni, String verifyAs, X509Certificate trusted)
      throws Exception {
    try (Socket raw = new Socket("127.0.0.1", port)) {
      raw.setSoTimeout(15_000);
      SSLSocket tls = (SSLSocket) TestPki.trusting(trusted).getSocketFactory()
          .createSocket(raw, verifyAs == null ? "127.0.0.1" : verifyAs, port, true);
      SSLParameters params = tls.getSSLParameters();
      params.setServerNames(sni == null ? List.of() : List.of(new SNIHostName(sni)));
      if (verifyAs != null) {
        params.setEndpointIdentificationAlgorithm("HTTPS");
      }
      params.setApplicationProtocols(new String[] {"h2", "http/1.1"});
      tls.setSSLParameters(params);
      tls.startHandshake();
      assertThat(tls.getApplicationProtocol()).isEqualTo("h2");
      X509Certificate[] chain = (X509Certificate[]) tls.getSession().getPeerCertificates();
      tls.close();
      return chain;
    }
  }

  private static void assertMintedByLoupe(X509Certificate[] chain) throws Exception {
    X509Certificate ca = TestPki.shared().loupeCa().certificate();
    X509Certificate leaf = chain[0];
    assertThat(leaf.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    leaf.verify(ca.getPublicKey());
    // The test CAs share a subject name: only the signature tells them apart.
    assertThatThrownBy(() -> leaf.verify(TestPki.shared().originCa().certificate().getPublicKey()))
        .isInstanceOf(SignatureException.class);
    assertThat(leaf.getExtendedKeyUsage()).contains(SERVER_AUTH);
    assertThat(leaf.getBasicConstraints()).as("a leaf, not a CA").isEqualTo(-1);
    leaf.checkValidity();
  }

  private static List<List<?>> sans(X509Certificate leaf) throws Exception {
    Collection<List<?>> names = leaf.getSubjectAlternativeNames();
    return names == null ? List.of() : new ArrayList<>(names);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}
