package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A real JSSE handshake over loopback: a client that trusts only the CA and checks the host name
 * the way HTTPS does accepts the leaf.
 */
@Timeout(60)
class TlsHandshakeTest {
  @TempDir Path tmp;
  private final ExecutorService server = Executors.newSingleThreadExecutor();

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  @ParameterizedTest(name = "{0} {1} as {2}")
  @CsvSource({
    "EC_P256, localhost, localhost",
    "EC_P256, 127.0.0.1, 127.0.0.1",
    "RSA_2048, localhost, localhost",
    "RSA_2048, 127.0.0.1, 127.0.0.1",
  })
  void httpsClientTrustingTheCaAcceptsTheLeaf(KeyAlgorithm algorithm, String leafHost, String clientHost)
      throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp, algorithm);
    assertThat(handshake(ca, ca.leafFor(leafHost), clientHost)).isEqualTo("TLSv1.3");
  }

  @ParameterizedTest
  @CsvSource({"EC_P256", "RSA_2048"})
  void httpsClientRejectsALeafForAnotherHost(KeyAlgorithm algorithm) throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp, algorithm);
    assertThatThrownBy(() -> handshake(ca, ca.leafFor("127.0.0.2"), "127.0.0.1"))
        .isInstanceOf(SSLHandshakeException.class);
  }

  /** Serves {@code leaf} on a loopback port and connects to it as {@code clientHost}. */
  private String handshake(CertificateAuthority ca, LeafCertificate leaf, String clientHost)
      throws Exception {
    char[] password = "changeit".toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("leaf", leaf.privateKey(), password, leaf.chain().toArray(new Certificate[0]));
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, password);
    SSLContext serverContext = SSLContext.getInstance("TLS");
    serverContext.init(kmf.getKeyManagers(), null, null);

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("loupe-ca", ca.certificate());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext clientContext = SSLContext.getInstance("TLS");
    clientContext.init(null, tmf.getTrustManagers(), null);

    try (SSLServerSocket listener = (SSLServerSocket) serverContext.getServerSocketFactory()
        .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Future<?> served = server.submit(() -> {
        try (SSLSocket accepted = (SSLSocket) listener.accept()) {
          InputStream in = accepted.getInputStream();
          int b = in.read();
          accepted.getOutputStream().write(b);
          accepted.getOutputStream().flush();
        }
        return null;
      });
      Socket tcp = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
      // Layered over a plain socket so the client believes it talks to clientHost: that name is
      // what HTTPS endpoint identification checks (and what SNI carries).
      SSLSocket client = (SSLSocket) clientContext.getSocketFactory()
          .createSocket(tcp, clientHost, listener.getLocalPort(), true);
      SSLParameters parameters = client.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      client.setSSLParameters(parameters);
      return exchange(client, served);
    }
  }

  private static String exchange(SSLSocket socket, Future<?> served) throws Exception {
    try (socket) {
      OutputStream out = socket.getOutputStream();
      out.write(42);
      out.flush();
      assertThat(socket.getInputStream().read()).isEqualTo(42);
      served.get(30, TimeUnit.SECONDS);
      return socket.getSession().getProtocol();
    }
  }
}
