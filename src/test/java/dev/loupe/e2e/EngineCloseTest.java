package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing the engine closes every client connection it accepted, whatever the event loops do.
 *
 * <p>It did not always: connections left idle behind TLS, with their origin connections pooled,
 * outlived {@code ProxyEngine.close()} with their sockets open (FaultInjectionTest found them as
 * descriptors left over). Netty 4.2's event loop closes its channels only if it sees the shutdown
 * before its last round of tasks; the engine's own close queues tasks on those loops (the pool's
 * connections closing) right before it shuts them down, so a loop could end in that round and
 * leave its channels registered and open. The engine now closes its client connections itself.
 */
@Timeout(120)
class EngineCloseTest {
  @Test
  void closingTheEngineClosesEveryIdleKeepAliveConnection() throws Exception {
    try (TestOrigin origin = TestOrigin.https()) {
      ProxyFixture proxy = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(origin.url()))
          .upstreamProtocol(EngineConfig.UpstreamProtocol.H1));
      int port = proxy.port();
      List<SSLSocket> clients = new ArrayList<>();
      boolean closed = false;
      try {
        for (int i = 0; i < 64; i++) {
          SSLSocket s = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
              .createSocket("127.0.0.1", port);
          clients.add(s);
          s.setSoTimeout(30_000);
          OutputStream out = s.getOutputStream();
          out.write(("GET /bytes/10?c=" + i + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          out.flush();
          readResponse(s.getInputStream(), 10); // answered; the connection stays open (keep-alive)
        }

        proxy.close();
        closed = true;

        List<String> open = new ArrayList<>();
        for (OpenSockets.Socket s : OpenSockets.mine()) {
          if (s.proto().startsWith("tcp") && s.localPort() == port) {
            open.add(s.toString());
          }
        }
        assertThat(open).as("Loupe's ends of its client connections, after close").isEmpty();
        for (SSLSocket s : clients) {
          assertThat(endOfStream(s)).as("the client sees its connection closed").isTrue();
        }
      } finally {
        if (!closed) {
          proxy.close();
        }
        for (SSLSocket s : clients) {
          s.setSoTimeout(100); // a close_notify Loupe never answers must not hold the close
          s.close();
        }
      }
    }
  }

  /** Reads one response head and a body of {@code length} bytes. */
  private static void readResponse(InputStream in, int length) throws IOException {
    int matched = 0;
    StringBuilder head = new StringBuilder();
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("closed before the response head ended: " + head);
      }
      head.append((char) b);
      matched = (b == '\r' || b == '\n') && "\r\n\r\n".charAt(matched) == b ? matched + 1 : 0;
    }
    assertThat(head.toString()).startsWith("HTTP/1.1 200");
    assertThat(in.readNBytes(length)).hasSize(length);
  }

  /** True once the peer closed (EOF, or the TLS session or socket failing as closed); false on a timeout. */
  private static boolean endOfStream(SSLSocket s) {
    try {
      return s.getInputStream().read() < 0;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException closed) {
      return true;
    }
  }
}
