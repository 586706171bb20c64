package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig.UpstreamProtocol;
import dev.loupe.engine.internal.upstream.UpstreamConnector.Want;
import org.junit.jupiter.api.Test;

/** What a client leg's exchange may speak to its origin ({@link UpstreamChoice}); no sockets. */
class UpstreamChoiceTest {
  private static final ClientSide HTTP1 = new ClientSide("https", "o.test", 443, null, "HTTP/1.1", false);
  private static final ClientSide HTTP2 = new ClientSide("https", "o.test", 443, null, "HTTP/2", true);
  private static final ClientSide H2C = new ClientSide("http", "o.test", 80, null, "HTTP/2", true, true);

  @Test
  void automaticallyAClientSpeaksToTheOriginAsItSpeaksToLoupe() {
    assertThat(UpstreamChoice.want(UpstreamProtocol.AUTO, HTTP1, false)).isEqualTo(Want.H1);
    assertThat(UpstreamChoice.want(UpstreamProtocol.AUTO, HTTP2, false)).isEqualTo(Want.H2_OR_H1);
    assertThat(UpstreamChoice.want(UpstreamProtocol.AUTO, H2C, false)).isEqualTo(Want.H2);
  }

  @Test
  void aForcedProtocolWinsButWebSocketStaysOnHttp1() {
    assertThat(UpstreamChoice.want(UpstreamProtocol.H1, HTTP2, false)).isEqualTo(Want.H1);
    assertThat(UpstreamChoice.want(UpstreamProtocol.H2, HTTP1, false)).isEqualTo(Want.H2);
    assertThat(UpstreamChoice.want(UpstreamProtocol.H3, HTTP1, false)).isEqualTo(Want.H3);
    for (UpstreamProtocol p : UpstreamProtocol.values()) {
      assertThat(UpstreamChoice.want(p, HTTP2, true)).as(p.name()).isEqualTo(Want.H1);
    }
  }

  @Test
  void http3DiscoveryIsOnlyForAutomaticHttpsWithoutAnUpstreamProxy() {
    assertThat(UpstreamChoice.http3Off(UpstreamProtocol.AUTO, false, false)).isNull();
    assertThat(UpstreamChoice.http3Off(UpstreamProtocol.AUTO, true, false))
        .isEqualTo("off: QUIC cannot go through the upstream proxy");
    assertThat(UpstreamChoice.http3Off(UpstreamProtocol.AUTO, false, true)).isEqualTo("WebSocket stays on HTTP/1.1");
    assertThat(UpstreamChoice.http3Off(UpstreamProtocol.H1, false, false)).isEqualTo("forced off (--upstream-protocol h1)");
    assertThat(UpstreamChoice.http3Off(UpstreamProtocol.H2, false, false)).isEqualTo("forced off (--upstream-protocol h2)");
    assertThat(UpstreamChoice.http3Off(UpstreamProtocol.H3, false, false)).isEqualTo("forced (--upstream-protocol h3)");
  }
}
