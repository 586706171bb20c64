package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.BufferedInputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The certificate Loupe presents inside an intercepted CONNECT, seen by a raw TLS client: minted
 * for the SNI name (or for the CONNECT host when no SNI is sent), issued and signed by Loupe's CA,
 * for server authentication. Fields are asserted on the parsed certificate.
 */
@Timeout(60)
class CertificatePresentedTest {
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final int SAN_DNS = 2;
  private static final int SAN_IP = 7;

  static ProxyFixture proxy;
  static TestOrigin https;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start();
    https = TestOrigin.https();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    https.close();
  }

  /** A TLS session through a CONNECT tunnel, and the chain the proxy presented in it. */
  private record Presented(SSLSocket socket, X509Certificate[] chain) {}

  /**
   * Opens CONNECT {@code host:port} on a raw socket, then a TLS client trusting only Loupe's CA on
   * top of it, sending {@code sni} (none when null) and checking the certificate against {@code host}.
   */
  private static Presented handshake(String host, int port, String sni) throws Exception {
    Socket raw = proxy.socket();
    String authority = host + ":" + port;
    // Unbuffered: nothing after the CONNECT response may be read here, it belongs to TLS.
    RawHttp.Reader in = new RawHttp.Reader(raw.getInputStream());
    RawHttp.write(raw.getOutputStream(), "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
    RawHttp.Response established = in.read("CONNECT");
    assertThat(established.status()).isEqualTo(200);

    SSLSocket tls = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
        .createSocket(raw, host, port, true);
    SSLParameters params = tls.getSSLParameters();
    params.setServerNames(sni == null ? List.of() : List.of(new SNIHostName(sni)));
    params.setEndpointIdentificationAlgorithm("HTTPS"); // the handshake fails unless the SAN matches host
    params.setApplicationProtocols(new String[] {"http/1.1"});
    tls.setSSLParameters(params);
    tls.startHandshake();
    return new Presented(tls, (X509Certificate[]) tls.getSession().getPeerCertificates());
  }

  /**
   * Sends one request over the intercepted session, so that a flow records the client leg's TLS.
   * (Whether the origin answers is not this class's concern: see {@link #singleLabelHostReachesTheOrigin}.)
   */
  private static void requestThrough(SSLSocket tls, String host, int port, String tag) throws Exception {
    RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(tls.getInputStream()));
    RawHttp.write(tls.getOutputStream(), "GET /bytes/1000?t=" + tag + " HTTP/1.1\r\nHost: " + host + ":" + port
        + "\r\nConnection: close\r\n\r\n");
    in.read("GET");
  }

  private static void assertMintedByLoupe(X509Certificate[] chain) throws Exception {
    X509Certificate ca = TestPki.shared().loupeCa().certificate();
    X509Certificate leaf = chain[0];
    assertThat(leaf.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    leaf.verify(ca.getPublicKey());
    // The test CAs share a subject name, so the issuer name alone does not tell them apart.
    assertThatThrownBy(() -> leaf.verify(TestPki.shared().originCa().certificate().getPublicKey()))
        .isInstanceOf(SignatureException.class);
    assertThat(leaf.getExtendedKeyUsage()).contains(SERVER_AUTH);
    assertThat(leaf.getBasicConstraints()).as("a leaf, not a CA").isEqualTo(-1);
    leaf.checkValidity();
    Instant notBefore = leaf.getNotBefore().toInstant();
    Instant notAfter = leaf.getNotAfter().toInstant();
    assertThat(notBefore).as("backdated for clock skew").isBefore(Instant.now());
    assertThat(Duration.between(notBefore, notAfter)).isLessThanOrEqualTo(Duration.ofDays(397));
    if (chain.length > 1) {
      assertThat(chain[1].getPublicKey()).isEqualTo(ca.getPublicKey());
    }
  }

  private static List<List<?>> sans(X509Certificate leaf) throws Exception {
    Collection<List<?>> names = leaf.getSubjectAlternativeNames();
    return names == null ? List.of() : new ArrayList<>(names);
  }

  @Test
  void hostNameFromSni() throws Exception {
    Presented p = handshake("localhost", https.port(), "localhost");
    try (SSLSocket tls = p.socket()) {
      assertThat(sans(p.chain()[0])).contains(List.of(SAN_DNS, "localhost"));
      assertMintedByLoupe(p.chain());
      assertThat(tls.getSession().getProtocol()).isIn("TLSv1.3", "TLSv1.2");
      assertThat(tls.getApplicationProtocol()).isEqualTo("http/1.1");
      requestThrough(tls, "localhost", https.port(), "sni-localhost");
    }
    Flow flow = proxy.awaitFlow("t=sni-localhost");
    assertThat(flow.request().url()).isEqualTo("https://localhost:" + https.port() + "/bytes/1000?t=sni-localhost");
    assertThat(flow.clientConnection().tls()).isNotNull();
    assertThat(flow.clientConnection().tls().sni()).isEqualTo("localhost");
  }

  @Test
  void ipLiteralWithoutSni() throws Exception {
    Presented p = handshake("127.0.0.1", https.port(), null);
    try (SSLSocket tls = p.socket()) {
      assertThat(sans(p.chain()[0])).contains(List.of(SAN_IP, "127.0.0.1"));
      assertMintedByLoupe(p.chain());
      requestThrough(tls, "127.0.0.1", https.port(), "ip-no-sni");
    }
    Flow flow = proxy.awaitFlow("t=ip-no-sni");
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(1000));
    assertThat(flow.clientConnection().tls()).isNotNull();
    assertThat(flow.clientConnection().tls().sni()).as("no SNI was sent").isNull();
  }

  @Test
  void singleLabelHostReachesTheOrigin() throws Exception {
    // "localhost" (like intranet names) has no dot: the JDK sends no SNI for it unless told to.
    // The origin picks its certificate by SNI, so Loupe's server leg must send it.
    String url = https.url("localhost") + "/bytes/1000?t=localhost-upstream";
    HttpResponse<byte[]> r = proxy.client().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).as("response: %s", new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.bytes(1000));
    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.serverConnection().tls().sni()).isEqualTo("localhost");
    assertThat(sans(flow.serverConnection().tls().peerCertificates().get(0))).contains(List.of(SAN_DNS, "localhost"));
  }
}
