package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import io.netty.handler.codec.http2.Http2Settings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 on the server leg: when more streams wait than one origin connection takes, Loupe dials
 * another (up to its cap). If that one fails while the first stands (the origin refused it, or
 * dropped it in its handshake), the stream that asked for it waits for a slot on the first: an
 * error page would blame the origin for a connection the request did not need.
 *
 * <p>It did get one: a 502 for one stream of a burst, the others served, a path by which a cold
 * burst (Http2ServerLegTest) could answer one of 640 streams with an error page. Deterministic
 * here: reverse mode (no connection dialled ahead), one event loop, 150 slow streams on one client
 * connection (one origin connection takes 100), and a front before the origin that drops the second
 * connection at its ClientHello.
 */
@Timeout(120)
class Http2ExtraConnectionFailureTest {
  private static final int STREAMS = 150;

  @Test
  void aFailedExtraConnectionFailsNoStream() throws Exception {
    try (TestOrigin origin = TestOrigin.h2Only();
        DroppingFront front = new DroppingFront(origin.port(), 2);
        ProxyFixture proxy = ProxyFixture.start(b -> b.ioThreads(1)
            .reverse(EngineConfig.Reverse.parse("https://127.0.0.1:" + front.port()))
            .upstreamProtocol(EngineConfig.UpstreamProtocol.H2));
        Http2TestClient h2 = Http2TestClient.connect(null, "127.0.0.1", proxy.port(),
            TestPki.shared().loupeCa().certificate(), Http2Settings.defaultSettings())) {
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        streams.add(h2.send("GET", "/slow/2000?t=extra-" + i));
      }
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        Http2TestClient.Stream s = streams.get(i).await(90);
        if (s.status() != 200) {
          wrong.add("t=extra-" + i + ": " + s.status() + " " + s.text().strip());
        }
      }
      assertThat(front.dropped).as("origin connections dropped in their handshake").hasSize(1);
      assertThat(wrong).as("streams not answered by the origin (front accepted %d, origin saw %d connections,"
          + " %d closed); flows: %s", front.accepted.get(), origin.connections(), origin.closedConnections(),
          proxy.store().snapshot().stream().filter(f -> f.error() != null)
              .map(f -> f.request().url() + " " + f.error() + " on " + f.serverConnection()).toList())
          .isEmpty();
    }
  }
}
