package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The TUNNEL tier: CONNECT targets matching {@code ignoreHosts} and CONNECTs whose first bytes are
 * neither TLS nor HTTP are relayed as opaque bytes, nothing decrypted, with the byte counts on the
 * flow.
 */
@Timeout(60)
class TunnelTest {
  /** Intercepts everything it can (non-TLS, non-HTTP bytes still become a tunnel). */
  static ProxyFixture proxy;
  /** Tunnels every CONNECT to 127.0.0.1 without looking, like {@code --ignore-hosts '^127\.0\.0\.1$'}. */
  static ProxyFixture ignoring;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start();
    ignoring = ProxyFixture.start(b -> b.ignoreHosts(Pattern.compile("^127\\.0\\.0\\.1$")));
  }

  @AfterAll
  static void stop() {
    proxy.close();
    ignoring.close();
  }

  @Test
  void ignoredHostIsTunnelledAndTheClientSeesTheOriginsCertificate() throws Exception {
    TestPki pki = TestPki.shared();
    int n = 100_000;
    X509Certificate leaf;
    TestOrigin origin = TestOrigin.https();
    try {
      // Trusts only the origin CA: a certificate minted by Loupe would fail the handshake.
      HttpClient client = ignoring.clientBuilder()
          .sslContext(TestPki.trusting(pki.originCa().certificate()))
          .build();
      HttpResponse<byte[]> r = client.send(
          HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/" + n + "?t=ignored")).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(n));
      leaf = (X509Certificate) r.sslSession().orElseThrow().getPeerCertificates()[0];
    } finally {
      origin.close(); // the origin closing its end ends the tunnel (the JDK client keeps it alive)
    }

    // The origin's own certificate: issued and signed by the origin CA, not by Loupe's.
    assertThat(leaf.getIssuerX500Principal()).isEqualTo(pki.originCa().certificate().getSubjectX500Principal());
    leaf.verify(pki.originCa().certificate().getPublicKey());
    assertThatThrownBy(() -> leaf.verify(pki.loupeCa().certificate().getPublicKey()))
        .isInstanceOf(SignatureException.class);

    String authority = "127.0.0.1:" + origin.port();
    Flow flow = ignoring.awaitFlow(authority);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.tier()).isEqualTo(FlowTier.TUNNEL);
    assertThat(flow.isTunnel()).isTrue();
    assertThat(flow.request().method()).isEqualTo("CONNECT");
    assertThat(flow.request().url()).isEqualTo(authority);
    assertThat(flow.response()).isNull();
    assertThat(flow.requestBody().size()).isZero();
    assertThat(flow.responseBody().size()).isZero();
    assertThat(flow.tunnelBytesClientToServer()).isPositive();
    // The body went through encrypted: more bytes than the body itself.
    assertThat(flow.tunnelBytesServerToClient()).isGreaterThan(n);
    assertThat(flow.serverConnection()).isNotNull();
    assertThat(flow.serverConnection().tls()).as("Loupe did no TLS of its own").isNull();
    // Nothing inside the tunnel was decrypted: the CONNECT is the only flow for this origin.
    assertThat(ignoring.store().snapshot())
        .filteredOn(f -> f.request() != null && f.request().port() == origin.port())
        .containsExactly(flow);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sniffed", "ignored"})
  void nonTlsBytesAreTunnelledByteExact(String mode) throws Exception {
    ProxyFixture p = mode.equals("ignored") ? ignoring : proxy;
    byte[] first = "\u0000\u0001hello binary".getBytes(StandardCharsets.ISO_8859_1);
    byte[] second = TestData.bytes(100_000);
    String authority;
    try (EchoServer echo = new EchoServer(null)) {
      authority = "127.0.0.1:" + echo.port();
      try (Socket s = p.socket()) {
        RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
        OutputStream out = s.getOutputStream();
        RawHttp.write(out, "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
        RawHttp.Response established = in.read("CONNECT");
        assertThat(established.version()).isEqualTo("HTTP/1.1");
        assertThat(established.status()).isEqualTo(200);

        out.write(first);
        out.flush();
        assertThat(in.exactly(first.length)).isEqualTo(first);

        CompletableFuture<Void> sent = writeAsync(out, second);
        assertThat(TestData.sha256(in.exactly(second.length))).isEqualTo(TestData.sha256(second));
        sent.get(15, TimeUnit.SECONDS);
      }
      // Our close travels through the tunnel: the echo server sees the end of its input.
      assertThat(echo.echoed.get(15, TimeUnit.SECONDS)).isEqualTo(first.length + second.length);
    }
    long total = first.length + second.length;
    Flow flow = p.awaitFlow(authority);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.tier()).isEqualTo(FlowTier.TUNNEL);
    assertThat(flow.request().method()).isEqualTo("CONNECT");
    assertThat(flow.tunnelBytesClientToServer()).isEqualTo(total);
    assertThat(flow.tunnelBytesServerToClient()).isEqualTo(total);
  }

  @Test
  void serverSpeaksFirstThroughASilentTunnel() throws Exception {
    // Protocols like SMTP or SSH: the client says nothing until the server's banner arrives.
    byte[] banner = "220 echo ready\r\n".getBytes(StandardCharsets.US_ASCII);
    byte[] reply = "\u0000quit".getBytes(StandardCharsets.ISO_8859_1);
    String authority;
    try (EchoServer echo = new EchoServer(banner)) {
      authority = "127.0.0.1:" + echo.port();
      try (Socket s = proxy.socket()) {
        RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
        OutputStream out = s.getOutputStream();
        RawHttp.write(out, "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n");
        assertThat(in.read("CONNECT").status()).isEqualTo(200);
        assertThat(in.exactly(banner.length)).isEqualTo(banner);
        out.write(reply);
        out.flush();
        assertThat(in.exactly(reply.length)).isEqualTo(reply);
      }
      assertThat(echo.echoed.get(15, TimeUnit.SECONDS)).isEqualTo(reply.length);
    }
    Flow flow = proxy.awaitFlow(authority);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.tier()).isEqualTo(FlowTier.TUNNEL);
    assertThat(flow.tunnelBytesClientToServer()).isEqualTo(reply.length);
    assertThat(flow.tunnelBytesServerToClient()).isEqualTo(banner.length + reply.length);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"sniffed", "ignored"})
  void bytesSentRightBehindTheConnectAreNotLost(String mode) throws Exception {
    // A client may send its first bytes in the same segment as the CONNECT, before the 200 arrives.
    ProxyFixture p = mode.equals("ignored") ? ignoring : proxy;
    byte[] early = "\u0000\u0001early bytes".getBytes(StandardCharsets.ISO_8859_1);
    String authority;
    try (EchoServer echo = new EchoServer(null)) {
      authority = "127.0.0.1:" + echo.port();
      try (Socket s = p.socket()) {
        RawHttp.Reader in = new RawHttp.Reader(new BufferedInputStream(s.getInputStream()));
        OutputStream out = s.getOutputStream();
        byte[] head = ("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        byte[] both = new byte[head.length + early.length];
        System.arraycopy(head, 0, both, 0, head.length);
        System.arraycopy(early, 0, both, head.length, early.length);
        out.write(both);
        out.flush();
        assertThat(in.read("CONNECT").status()).isEqualTo(200);
        assertThat(in.exactly(early.length)).isEqualTo(early);
      }
      assertThat(echo.echoed.get(15, TimeUnit.SECONDS)).isEqualTo(early.length);
    }
    Flow flow = p.awaitFlow(authority);
    assertThat(flow.tier()).isEqualTo(FlowTier.TUNNEL);
    assertThat(flow.tunnelBytesClientToServer()).isEqualTo(early.length);
  }

  private static CompletableFuture<Void> writeAsync(OutputStream out, byte[] bytes) {
    return CompletableFuture.runAsync(() -> {
      try {
        out.write(bytes);
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /**
   * A TCP server for one connection: sends an optional banner, then echoes every byte until the
   * client's end of stream, then closes. {@link #echoed} completes with the number of bytes echoed.
   */
  static final class EchoServer implements AutoCloseable {
    final CompletableFuture<Long> echoed = new CompletableFuture<>();
    private final ServerSocket server;

    EchoServer(byte[] banner) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
      Thread t = new Thread(() -> {
        try (Socket s = server.accept()) {
          OutputStream out = s.getOutputStream();
          if (banner != null) {
            out.write(banner);
            out.flush();
          }
          InputStream in = s.getInputStream();
          byte[] buf = new byte[16 * 1024];
          long total = 0;
          int n;
          while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
            out.flush();
            total += n;
          }
          echoed.complete(total);
        } catch (IOException e) {
          echoed.completeExceptionally(e);
        }
      }, "echo-server");
      t.setDaemon(true);
      t.start();
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
