package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ServerCertificate;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A TLS client that leaves while its leaf certificate is still being minted ends quietly, on the
 * reverse listener ({@code ReverseInitializer}) and inside a CONNECT tunnel ({@code TlsSniffer}).
 *
 * <p>It did not: Netty's {@code SniHandler} completed the lookup on a channel whose pipeline had
 * already been torn down, tried to replace itself in it, and the {@code NoSuchElementException}
 * reached the end of the pipeline, logged as a warning (seen by FaultInjectionTest on a cold start).
 *
 * <p>Deterministic: the certificate source blocks minting the leaf for {@value #HOST} until the
 * test lets it go, and the test lets it go only once Loupe's end of the connection is closed (its
 * socket gone from this process's descriptors). The next client for the same host is the barrier:
 * it is served on the same (single) event loop after the first lookup completed, with the leaf
 * minted for the client that left (minted once).
 */
@Timeout(120)
class ClientLeavesDuringMintingTest {
  private static final String HOST = "slow-mint.test";

  enum Entry { REVERSE_LISTENER, CONNECT_TUNNEL }

  @ParameterizedTest
  @EnumSource(Entry.class)
  void aClientThatLeavesWhileItsLeafIsMintedEndsQuietly(Entry entry) throws Exception {
    GatedSource certificates = new GatedSource(TestPki.shared().loupeSource());
    try (TestOrigin origin = TestOrigin.https(); CapturedLogs warnings = CapturedLogs.of("io.netty", Level.WARNING)) {
      ProxyFixture proxy = ProxyFixture.start(certificates, b -> {
        b.ioThreads(1); // one event loop: the next client is served after the first lookup's completion
        if (entry == Entry.REVERSE_LISTENER) {
          b.reverse(EngineConfig.Reverse.parse(origin.url()));
        }
      });
      try {
        int clientPort;
        try (Socket leaving = new Socket("127.0.0.1", proxy.port())) {
          leaving.setSoTimeout(30_000);
          if (entry == Entry.CONNECT_TUNNEL) {
            connect(leaving, origin.port());
          }
          leaving.getOutputStream().write(clientHello());
          leaving.getOutputStream().flush();
          assertThat(certificates.minting.await(60, TimeUnit.SECONDS)).as("minting started").isTrue();
          clientPort = leaving.getLocalPort();
        } // the client leaves while its leaf is minted
        await("Loupe's end of the connection closed").atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> OpenSockets.mine().stream().noneMatch(s -> s.proto().startsWith("tcp")
                && s.localPort() == proxy.port() && s.remotePort() == clientPort));
        certificates.release.countDown();

        assertThat(nextClient(entry, proxy.port(), origin.port())).as("the next TLS client is served")
            .isEqualTo(TestData.bytes(10));
        assertThat(certificates.calls.get()).as("the leaf minted for the client that left is reused").isEqualTo(1);
        assertThat(warnings.records()).as("Netty warnings (an exception at the pipeline's tail)").isEmpty();
      } finally {
        certificates.release.countDown();
        proxy.close();
      }
    }
  }

  /** Asks for a tunnel to the origin and reads the {@code 200}. */
  private static void connect(Socket s, int originPort) throws IOException {
    s.getOutputStream().write(("CONNECT 127.0.0.1:" + originPort + " HTTP/1.1\r\nHost: 127.0.0.1:" + originPort
        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    String head = readHead(s.getInputStream());
    assertThat(head).startsWith("HTTP/1.1 200");
  }

  /** A real TLS client's first flight: a ClientHello naming {@link #HOST}, from the JDK's SSLEngine. */
  private static byte[] clientHello() throws Exception {
    SSLEngine engine = TestPki.shared().clientTrustingLoupe().createSSLEngine(HOST, 443);
    engine.setUseClientMode(true);
    SSLParameters params = engine.getSSLParameters();
    params.setServerNames(List.of(new SNIHostName(HOST)));
    engine.setSSLParameters(params);
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out);
    out.flip();
    byte[] hello = new byte[out.remaining()];
    out.get(hello);
    assertThat(hello[0]).as("a TLS handshake record").isEqualTo((byte) 0x16);
    return hello;
  }

  /** A complete TLS client for {@link #HOST}: handshake, {@code GET /bytes/10}, the body. */
  private static byte[] nextClient(Entry entry, int proxyPort, int originPort) throws Exception {
    try (Socket plain = new Socket("127.0.0.1", proxyPort)) {
      plain.setSoTimeout(30_000);
      if (entry == Entry.CONNECT_TUNNEL) {
        connect(plain, originPort);
      }
      try (SSLSocket tls = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
          .createSocket(plain, HOST, proxyPort, true)) {
        SSLParameters params = tls.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName(HOST)));
        tls.setSSLParameters(params);
        String authority = entry == Entry.CONNECT_TUNNEL ? "127.0.0.1:" + originPort : HOST;
        OutputStream out = tls.getOutputStream();
        out.write(("GET /bytes/10 HTTP/1.1\r\nHost: " + authority + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = tls.getInputStream();
        String head = readHead(in);
        assertThat(head).startsWith("HTTP/1.1 200");
        return in.readNBytes(10);
      }
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed before the response head ended: " + head);
      }
      head.write(b);
      matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** Loupe's test CA, but minting for {@link #HOST} waits until {@link #release}; counts those calls. */
  private static final class GatedSource implements CertificateSource {
    final CountDownLatch minting = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger calls = new AtomicInteger();
    private final CertificateSource delegate;

    GatedSource(CertificateSource delegate) {
      this.delegate = delegate;
    }

    @Override
    public ServerCertificate certificateFor(String host) {
      if (HOST.equals(host)) {
        calls.incrementAndGet();
        minting.countDown();
        try {
          if (!release.await(90, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never released");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return delegate.certificateFor(host);
    }
  }
}
