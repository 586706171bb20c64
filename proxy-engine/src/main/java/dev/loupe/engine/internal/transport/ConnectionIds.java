package dev.loupe.engine.internal.transport;

import java.util.concurrent.atomic.AtomicLong;

/** Process-wide connection numbers, shared by client and server legs (HAR {@code connection}). */
public final class ConnectionIds {
  private static final AtomicLong NEXT = new AtomicLong(1);

  private ConnectionIds() {}

  public static long next() {
    return NEXT.getAndIncrement();
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
