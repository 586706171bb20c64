package dev.loupe.engine.internal.transport;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;

/**
 * One writer per HTTP/2 connection: its streams ask for a flush, and the connection is flushed
 * once, after the event loop's current batch of work (every channel read in this round, every task
 * queued before). Frames of many streams then leave in one TLS record run and one socket write
 * instead of one write per stream: when a single origin read completes dozens of responses, or
 * dozens of client connections feed one origin connection, each stream's flush would otherwise
 * flush the whole connection (the classic per-frame write convoy). Netty already defers a
 * stream's flush while its own connection is reading; this covers flushes caused by other
 * channels' reads and by tasks.
 *
 * <p>Confined to the connection's event loop, like every stream of it.
 */
public final class FlushCoalescer implements Runnable {
  private static final AttributeKey<FlushCoalescer> KEY = AttributeKey.valueOf("loupe.flush");

  private final Channel connection;
  private boolean scheduled;
  private long flushes;
  private long requests;

  private FlushCoalescer(Channel connection) {
    this.connection = connection;
  }

  /** Makes {@code connection} (an HTTP/2 connection) flush its streams' writes in batches. */
  public static FlushCoalescer install(Channel connection) {
    FlushCoalescer c = new FlushCoalescer(connection);
    connection.attr(KEY).set(c);
    return c;
  }

  /**
   * Flushes {@code ch}: a stream of a coalescing HTTP/2 connection is flushed with its siblings at
   * the end of the current batch; any other channel at once. Call on {@code ch}'s event loop.
   */
  public static void flush(Channel ch) {
    FlushCoalescer c = ch instanceof Http2StreamChannel && ch.parent() != null ? ch.parent().attr(KEY).get() : null;
    if (c == null) {
      ch.flush();
    } else {
      c.request();
    }
  }

  /** Asks for a flush of the connection at the end of the current batch. */
  public void request() {
    requests++;
    if (!scheduled) {
      scheduled = true;
      connection.eventLoop().execute(this);
    }
  }

  @Override
  public void run() {
    scheduled = false;
    flushes++;
    connection.flush();
  }

  /** Flushes asked for by streams so far. */
  public long requests() {
    return requests;
  }

  /** Flushes of the connection so far ({@code <= requests()}). */
  public long flushes() {
    return flushes;
  }
}
