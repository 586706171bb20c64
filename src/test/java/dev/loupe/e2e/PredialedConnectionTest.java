package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.BufferedInputStream;
import java.net.Socket;
import java.time.Duration;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The connection Loupe dials to answer a CONNECT (the eager strategy) waits, parked, for the
 * tunnel's first request. An origin may give up on it meanwhile: a TLS server closes a connection
 * that sends no ClientHello within its handshake timeout (10 s for Netty's, TestOrigin's included).
 * When it does so just as Loupe starts TLS on it, that request must not fail: the dial is made
 * again on a fresh connection.
 *
 * <p>It did fail (a 502 naming the TLS handshake): the likely cause of a cold burst through eight
 * CONNECT tunnels (Http2ServerLegTest) that once answered one of 640 streams with an error page on
 * a loaded machine, where the eight tunnels took about as long to set up as the origin waits.
 * Here deterministic: a front before the origin closes the first connection (the one dialled for
 * the CONNECT) at its first byte, the ClientHello, and forwards the others.
 */
@Timeout(120)
class PredialedConnectionTest {

  @ParameterizedTest(name = "{0} origin")
  @ValueSource(strings = {"HTTP/1.1", "HTTP/2"})
  void aDialledAheadConnectionTheOriginDroppedIsDialledAgain(String originProtocol) throws Exception {
    try (TestOrigin origin = originProtocol.equals("HTTP/2") ? TestOrigin.h2Only() : TestOrigin.https();
        DroppingFront front = new DroppingFront(origin.port(), 1);
        // An HTTP/1.1 client: the server leg speaks HTTP/2 when told to.
        ProxyFixture proxy = ProxyFixture.start(b -> b.upstreamProtocol(originProtocol.equals("HTTP/2")
            ? EngineConfig.UpstreamProtocol.H2 : EngineConfig.UpstreamProtocol.H1))) {
      String host = "127.0.0.1:" + front.port();
      try (Socket raw = proxy.socket()) {
        WireHttp.send(raw, "CONNECT " + host + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        assertThat(WireHttp.readHead(raw.getInputStream()).status()).as("CONNECT answer").isEqualTo(200);
        // The kernel completes the TCP handshake before the front's thread accepts it.
        await("the connection dialled for the CONNECT").atMost(Duration.ofSeconds(30))
            .until(() -> front.accepted.get() >= 1);
        assertThat(front.accepted.get()).as("connections dialled for the CONNECT").isEqualTo(1);
        SSLSocket tls = (SSLSocket) TestPki.shared().clientTrustingLoupe().getSocketFactory()
            .createSocket(raw, "127.0.0.1", front.port(), true);
        SSLParameters params = tls.getSSLParameters();
        params.setApplicationProtocols(new String[] {"http/1.1"});
        tls.setSSLParameters(params);
        tls.startHandshake();
        WireHttp.send(tls, "GET /bytes/1000?t=predialed-dropped HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
        WireHttp.Response r = WireHttp.readResponse(new BufferedInputStream(tls.getInputStream()));
        assertThat(r.status()).as("%s %s; front accepted %d, dropped %s; origin connections %d; flow %s", r.statusLine(),
            new String(r.body(), java.nio.charset.StandardCharsets.UTF_8), front.accepted.get(), front.dropped,
            origin.connections(), proxy.store().snapshot())
            .isEqualTo(200);
        assertThat(r.body()).isEqualTo(TestData.bytes(1000));
      }
      Flow flow = proxy.awaitFlow("t=predialed-dropped");
      assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
      assertThat(flow.serverProtocol()).isEqualTo(originProtocol);
      assertThat(front.dropped).as("connections the front dropped").hasSize(1);
      assertThat(front.accepted.get()).as("the dropped one and the one dialled again").isEqualTo(2);
    }
  }
}
