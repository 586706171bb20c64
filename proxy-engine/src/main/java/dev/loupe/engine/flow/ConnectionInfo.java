package dev.loupe.engine.flow;

import java.net.InetSocketAddress;

/**
 * One leg's connection as seen by a flow.
 *
 * @param id            connection id, unique within this Loupe process (HAR {@code connection})
 * @param remoteAddress the peer's address (client address on the client leg, origin address on the server leg)
 * @param localAddress  Loupe's end of the connection
 * @param tls           TLS details, or null for cleartext
 * @param reused        whether the connection carried an earlier exchange (keep-alive / pool hit)
 */
public record ConnectionInfo(
    long id, InetSocketAddress remoteAddress, InetSocketAddress localAddress, TlsInfo tls, boolean reused) {}
