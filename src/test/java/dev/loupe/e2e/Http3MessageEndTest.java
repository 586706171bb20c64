package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestPki;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loupe ends every HTTP/3 message it sends — a response to the client, a request to the origin —
 * with the FIN in the STREAM frame that carries the message's last bytes, never in a zero-length
 * STREAM frame of its own ({@code Http3StreamEnd}). quiche does not reliably resend a lost
 * FIN-only frame (cloudflare/quiche#2525): under packet loss such a stream never ended at the
 * peer ({@link Http3PacketLossTest} cut by the idle timeout). Which packet is lost cannot be
 * chosen through an encrypting relay, so this checks the cause directly: both peers log what they
 * receive (quiche's qlog) and every FIN from Loupe on a request stream must come with data.
 */
@Timeout(120)
class Http3MessageEndTest {
  @TempDir Path tmp;

  @Test
  void everyMessageLoupeSendsEndsWithItsLastBytes() throws Exception {
    Path atOrigin = tmp.resolve("origin");
    Path atClient = tmp.resolve("client");
    java.nio.file.Files.createDirectories(atOrigin);
    java.nio.file.Files.createDirectories(atClient);
    String authority = Http3PacketLossTest.NAME;
    try (Http3TestOrigin origin = new Http3TestOrigin(TestPki.shared().originCa(), 256, 0, atOrigin);
        ProxyFixture proxy = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H3)
            .reverse(EngineConfig.Reverse.parse(origin.url())))) {
      InetSocketAddress listener = proxy.engine().http3Address();
      try (Http3TestClient client = new Http3TestClient(listener, authority, TestPki.shared().loupeCa().certificate(),
          atClient)) {
        String at = authority + ":" + proxy.port();
        // One at a time, each after the last ended: nothing else is read while one ends.
        assertThat(client.send("GET", "/bytes/100000", at, 0).get(30, TimeUnit.SECONDS).sha256())
            .isEqualTo(TestData.sha256(100_000));
        assertThat(client.send("GET", "/bytes/0", at, 0).get(30, TimeUnit.SECONDS).length()).isZero();
        assertThat(client.send("POST", "/echo", at, 50_000).get(30, TimeUnit.SECONDS).sha256())
            .isEqualTo(TestData.sha256(50_000));
        assertThat(client.send("POST", "/sha256", at, 3_000).get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
        assertThat(client.send("GET", "/trailers", at, 0).get(30, TimeUnit.SECONDS).trailers().get("x-checksum"))
            .hasToString("abc123");
      } // closing a connection completes its qlog
    }
    // To the client: the five responses. To the origin: the five requests (GETs included: their
    // end is a FIN too).
    List<Qlog.StreamFrame> toClient = Qlog.receivedStreamFrames(atClient);
    List<Qlog.StreamFrame> toOrigin = Qlog.receivedStreamFrames(atOrigin);
    SoftAssertions.assertSoftly(soft -> {
      assertEveryFinCarriesData(soft, toClient, "responses Loupe sent the client");
      assertEveryFinCarriesData(soft, toOrigin, "requests Loupe sent the origin");
    });
  }

  private static void assertEveryFinCarriesData(SoftAssertions soft, List<Qlog.StreamFrame> received, String what) {
    // Client-initiated bidirectional streams (id % 4 == 0) are HTTP/3's request streams.
    Map<Long, List<Qlog.StreamFrame>> fins = received.stream()
        .filter(f -> f.streamId() % 4 == 0 && f.fin())
        .collect(Collectors.groupingBy(Qlog.StreamFrame::streamId));
    soft.assertThat(fins).as("request streams whose end arrived (%s)", what).hasSize(5);
    soft.assertThat(fins.values().stream().flatMap(List::stream).filter(f -> f.length() == 0).toList())
        .as("FIN-only STREAM frames among the %s", what)
        .isEmpty();
  }
}
