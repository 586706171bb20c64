package dev.loupe.bench.load;

import io.netty.channel.EventLoop;

/** One client connection of a run (TCP: {@link LoadConnection}; QUIC: {@link QuicLoadConnection}). */
interface LoadClient {
  /** The event loop the connection lives on; every other method runs there. */
  EventLoop loop();

  /** Starts (or restarts) the connection. */
  void connect();

  /** At the end: counts requests stuck longer than --timeout and closes. */
  void finish(long timeoutBefore);

  LoadStats stats();

  Throwable firstError();
}
