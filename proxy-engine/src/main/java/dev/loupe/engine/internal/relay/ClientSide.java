package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.TlsInfo;

/**
 * What a client leg knows of its connection before the first request.
 *
 * @param scheme      {@code http}/{@code https} when requests are origin-form to a fixed target
 *                    (inside a CONNECT tunnel), or null for the explicit proxy (absolute-form)
 * @param host        that fixed target's host, or null
 * @param port        that fixed target's port
 * @param tls         the client TLS session, or null for cleartext
 * @param protocol    what the client speaks, as recorded on flows ({@code HTTP/1.1}, {@code HTTP/2})
 * @param multiplexed true for one stream of an HTTP/2 connection: one exchange, no connection-level
 *                    keep-alive or close semantics
 * @param h2cPriorKnowledge true when the client opened cleartext HTTP/2 (h2c, prior knowledge) to
 *                    this fixed target itself, inside a CONNECT tunnel: it knows the origin speaks
 *                    h2c, so the server leg does too (gRPC without TLS through a proxy)
 */
record ClientSide(String scheme, String host, int port, TlsInfo tls, String protocol, boolean multiplexed,
    boolean h2cPriorKnowledge) {
  ClientSide(String scheme, String host, int port, TlsInfo tls, String protocol, boolean multiplexed) {
    this(scheme, host, port, tls, protocol, multiplexed, false);
  }

  static ClientSide explicitProxy() {
    return new ClientSide(null, null, 0, null, "HTTP/1.1", false);
  }

  boolean fixedTarget() {
    return host != null;
  }
}
