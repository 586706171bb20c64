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
 * HTTP/2 on the server leg, at the origin's MAX_CONCURRENT_STREAMS with streams waiting: the slot
 * of a stream that ends goes to the next waiting stream only once Netty's codec has closed the
 * ended one. Before, the slot was freed when the stream's channel closed, which Loupe does while
 * the codec is still dispatching the origin's END_STREAM: the next stream's HEADERS then went out
 * one over the limit, Netty failed them ("Maximum active streams violated") and closed that stream,
 * and Loupe answered 502 "closed the connection before sending a response" — or, for an idempotent
 * request on a reused connection, retried it, where the same could happen again: the likely cause
 * of the error page one of 640 cold streams once got in Http2ServerLegTest.
 *
 * <p>Here: POST (never retried, so every hit shows), answers that end on their HEADERS frame (204,
 * so the END_STREAM reaches Loupe inside the codec's dispatch), an origin allowing 2 streams per
 * connection, one event loop (so at most 4 origin connections, 8 slots) and 60 streams at once.
 */
@Timeout(120)
class Http2StreamSlotTest {
  private static final int STREAMS = 60;

  @Test
  void aWaitingStreamGetsTheSlotOnlyOnceTheEndedOneIsClosed() throws Exception {
    try (TestOrigin origin = TestOrigin.builder().tls().protocols(TestOrigin.Protocol.H2).maxConcurrentStreams(2)
            .start();
        ProxyFixture proxy = ProxyFixture.start(b -> b.ioThreads(1)
            .reverse(EngineConfig.Reverse.parse(origin.url()))
            .upstreamProtocol(EngineConfig.UpstreamProtocol.H2));
        Http2TestClient h2 = Http2TestClient.connect(null, "127.0.0.1", proxy.port(),
            TestPki.shared().loupeCa().certificate(), Http2Settings.defaultSettings())) {
      List<Http2TestClient.Stream> streams = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        streams.add(h2.send("POST", "/status/204?t=slot-" + i));
      }
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < STREAMS; i++) {
        Http2TestClient.Stream s = streams.get(i).await(60);
        if (s.status() != 204) {
          wrong.add("t=slot-" + i + ": " + s.status() + " " + s.text().strip());
        }
      }
      assertThat(wrong).as("streams not answered by the origin").isEmpty();
      assertThat(origin.peakConcurrentRequests().values()).as("streams at once per origin connection")
          .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
    }
  }
}
