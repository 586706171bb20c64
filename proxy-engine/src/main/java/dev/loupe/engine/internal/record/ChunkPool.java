package dev.loupe.engine.internal.record;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Recycled full-size capture chunks ({@value #CHUNK} bytes). A rolling {@link RecordingStore} hands
 * back the chunks of the flows it forgets, and bodies take them before allocating: a long headless
 * run captures big bodies without allocating per captured byte, so the garbage collector has no
 * reason to grow the heap. Bounded; thread-safe.
 */
final class ChunkPool {
  static final int CHUNK = 64 * 1024;
  /** 64 MiB of chunks at most: a rolling store's body budget plus bodies in flight. */
  static final ChunkPool SHARED = new ChunkPool(1024);

  private final ConcurrentLinkedQueue<byte[]> free = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pooled = new AtomicInteger();
  private final int capacity;

  ChunkPool(int capacity) {
    this.capacity = capacity;
  }

  /** A chunk of {@value #CHUNK} bytes (contents undefined). */
  byte[] take() {
    byte[] c = free.poll();
    if (c == null) {
      return new byte[CHUNK];
    }
    pooled.decrementAndGet();
    return c;
  }

  /** Returns a chunk nobody reads any more; chunks of another size, or beyond capacity, are dropped. */
  void give(byte[] chunk) {
    if (chunk.length == CHUNK && pooled.incrementAndGet() <= capacity) {
      free.add(chunk);
    } else if (chunk.length == CHUNK) {
      pooled.decrementAndGet();
    }
  }

  int pooled() {
    return pooled.get();
  }
}
