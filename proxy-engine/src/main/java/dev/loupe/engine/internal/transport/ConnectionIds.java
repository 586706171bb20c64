package dev.loupe.engine.internal.transport;

import java.util.concurrent.atomic.AtomicLong;

/** Process-wide connection numbers, shared by client and server legs (HAR {@code connection}). */
public final class ConnectionIds {
  private static final AtomicLong NEXT = new AtomicLong(1);

  private ConnectionIds() {}

  private static final io.netty.util.AttributeKey<Long> ID = io.netty.util.AttributeKey.valueOf("loupe.connection.id");

  public static long next() {
    return NEXT.getAndIncrement();
  }

  /** The id of a client connection, given on first use; all its HTTP/2 or HTTP/3 streams share it. */
  public static long of(io.netty.channel.Channel connection) {
    Long id = connection.attr(ID).get();
    if (id == null) {
      id = next();
      connection.attr(ID).set(id);
    }
    return id;
  }

  /** A QUIC connection's own connection id in hex (its local address names it), or null. */
  public static String quicHex(io.netty.handler.codec.quic.QuicChannel quic) {
    io.netty.handler.codec.quic.QuicConnectionAddress a = quic.localAddress();
    if (a == null) {
      return null;
    }
    String s = a.toString(); // QuicConnectionAddress{connId=HEX}
    int eq = s.indexOf("connId=");
    return eq < 0 ? s : s.substring(eq + 7, s.length() - 1);
  }
}
