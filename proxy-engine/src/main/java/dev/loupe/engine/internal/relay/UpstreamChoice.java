package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.internal.upstream.UpstreamConnector;

/**
 * Which protocol a client leg's exchange may use to its origin ({@code --upstream-protocol}, the
 * client's own protocol, WebSocket), and whether it looks for HTTP/3 by Alt-Svc. Pure.
 *
 * @param want     what the server leg may speak
 * @param http3Off why the exchange does not look for HTTP/3 by Alt-Svc (recorded on the flow as
 *                 {@link dev.loupe.engine.flow.Flow#http3Status()}); null when the connector
 *                 decides by discovery (and records why itself)
 */
record UpstreamChoice(UpstreamConnector.Want want, String http3Off) {

  static UpstreamChoice of(EngineConfig config, ClientSide side, boolean webSocket, String scheme) {
    return new UpstreamChoice(want(config.upstreamProtocol(), side, webSocket), scheme.equals("https")
        ? http3Off(config.upstreamProtocol(), config.upstreamProxy() != null, webSocket) : null);
  }

  /** Whether the connector may try HTTP/3 by Alt-Svc discovery. */
  boolean discover() {
    return http3Off == null;
  }

  static UpstreamConnector.Want want(EngineConfig.UpstreamProtocol configured, ClientSide side, boolean webSocket) {
    if (webSocket) {
      return UpstreamConnector.Want.H1; // RFC 8441 extended CONNECT is not bridged: WebSocket stays on HTTP/1.1
    }
    return switch (configured) {
      case H1 -> UpstreamConnector.Want.H1;
      case H2 -> UpstreamConnector.Want.H2;
      case H3 -> UpstreamConnector.Want.H3;
      case AUTO -> side.h2cPriorKnowledge() ? UpstreamConnector.Want.H2
          : side.multiplexed() ? UpstreamConnector.Want.H2_OR_H1 : UpstreamConnector.Want.H1;
    };
  }

  /** Why an exchange to an https origin does not look for HTTP/3 by Alt-Svc, or null. */
  static String http3Off(EngineConfig.UpstreamProtocol configured, boolean upstreamProxy, boolean webSocket) {
    return switch (configured) {
      case H1 -> "forced off (--upstream-protocol h1)";
      case H2 -> "forced off (--upstream-protocol h2)";
      case H3 -> webSocket ? "WebSocket stays on HTTP/1.1" : "forced (--upstream-protocol h3)";
      case AUTO -> webSocket ? "WebSocket stays on HTTP/1.1"
          : upstreamProxy ? "off: QUIC cannot go through the upstream proxy"
          : null;
    };
  }
}
