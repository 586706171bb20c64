package dev.loupe.engine.internal.transport;

import java.util.concurrent.atomic.AtomicLong;

/** Process-wide connection numbers, shared by client and server legs (HAR {@code connection}). */
public final class ConnectionIds {
  private static final AtomicLong NEXT = new AtomicLong(1);

  private ConnectionIds() {}

  public static long next() {
    return NEXT.getAndIncrement();
  }
}
