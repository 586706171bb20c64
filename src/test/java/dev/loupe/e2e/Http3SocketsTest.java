package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.http3.Http3Listener;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import io.netty.channel.epoll.Epoll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 19, HTTP/3 at c=64: with {@code -Dloupe.h3.sockets=N} the reverse-mode QUIC listener binds
 * N UDP sockets on one port (SO_REUSEPORT, epoll), so QUIC connections — and the origin connections
 * of their requests — are spread over that many loops instead of all running on one.
 */
@Timeout(300)
class Http3SocketsTest {
  static final String NAME = "h3.loupe.test";
  static final int LOOPS = 4;
  static final int SOCKETS = 2;
  static TestOrigin origin;
  static ProxyFixture proxy;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
    System.setProperty(Http3Listener.SOCKETS_PROPERTY, String.valueOf(SOCKETS));
    try {
      proxy = ProxyFixture.start(b -> b.ioThreads(LOOPS).reverse(EngineConfig.Reverse.parse(origin.url())));
    } finally {
      System.clearProperty(Http3Listener.SOCKETS_PROPERTY);
    }
    assertThat(proxy.engine().http3Problem()).isNull();
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {proxy, origin}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  /**
   * Twenty-four clients, each on its own UDP socket: with two sockets on the port, their
   * connections land on both (all on one: a chance of 2 in 2^24).
   */
  @Test
  void withTwoSocketsConnectionsAreSpreadOverBoth() throws Exception {
    assumeTrue(Epoll.isAvailable(), "SO_REUSEPORT needs the epoll transport");
    assertThat(socketsTaken(proxy, 24)).as("sockets that took a connection").containsExactly(0, 1);
  }

  /**
   * By default one UDP socket on the port (the listener as it always was, with QUIC's own
   * connection ids), and it serves; with the property, as many as asked.
   */
  @Test
  void byDefaultOneSocket() throws Exception {
    assumeTrue(Files.isReadable(Path.of("/proc/net/udp")), "counts sockets in /proc/net/udp");
    assertThat(udpSocketsOn(proxy.engine().http3Address().getPort())).isEqualTo(Epoll.isAvailable() ? SOCKETS : 1);
    try (ProxyFixture single = ProxyFixture.start(b -> b.ioThreads(LOOPS)
        .reverse(EngineConfig.Reverse.parse(origin.url())))) {
      assertThat(single.engine().http3Problem()).isNull();
      assertThat(udpSocketsOn(single.engine().http3Address().getPort())).isEqualTo(1);
      String tag = UUID.randomUUID().toString();
      try (Http3TestClient c = new Http3TestClient(single.engine().http3Address(), NAME,
          TestPki.shared().loupeCa().certificate())) {
        Http3TestClient.Response r = c.send("GET", "/bytes/100?t=" + tag, NAME + ":" + single.port(), 0)
            .get(60, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.length()).isEqualTo(100);
      }
      assertThat(single.awaitFlow("t=" + tag).clientQuicConnectionId()).matches("[0-9a-f]{8,}");
    }
  }

  /** UDP sockets bound to {@code port} (IPv4 and IPv6), from the kernel's tables. */
  private static long udpSocketsOn(int port) throws Exception {
    String local = String.format(":%04X", port);
    long n = 0;
    for (String table : List.of("/proc/net/udp", "/proc/net/udp6")) {
      Path t = Path.of(table);
      if (Files.isReadable(t)) {
        n += Files.readAllLines(t).stream().skip(1)
            .filter(l -> l.trim().split("\\s+")[1].endsWith(local)).count();
      }
    }
    return n;
  }

  /**
   * Which sockets took {@code clients} new connections (each client on a UDP socket of its own):
   * the first two bytes of the connection id Loupe issued are its socket's index.
   */
  private static Set<Integer> socketsTaken(ProxyFixture proxy, int clients) throws Exception {
    String tag = UUID.randomUUID().toString();
    List<Http3TestClient> open = new ArrayList<>();
    try {
      List<CompletableFuture<Http3TestClient.Response>> all = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        Http3TestClient c = new Http3TestClient(proxy.engine().http3Address(), NAME,
            TestPki.shared().loupeCa().certificate());
        open.add(c);
        all.add(c.send("GET", "/bytes/100?i=" + i + "&t=" + tag, NAME + ":" + proxy.port(), 0));
      }
      for (CompletableFuture<Http3TestClient.Response> f : all) {
        Http3TestClient.Response r = f.get(60, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.length()).isEqualTo(100);
      }
      Set<Integer> sockets = new TreeSet<>();
      for (int i = 0; i < clients; i++) {
        Flow flow = proxy.awaitFlow("i=" + i + "&t=" + tag);
        String id = flow.clientQuicConnectionId();
        assertThat(id).as("Loupe's connection id, hex").matches("[0-9a-f]{8,}");
        sockets.add(Integer.parseInt(id.substring(0, 4), 16));
      }
      return sockets;
    } finally {
      for (Http3TestClient c : open) {
        c.close();
      }
    }
  }
}
