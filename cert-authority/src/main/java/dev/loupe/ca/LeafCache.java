package dev.loupe.ca;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * Bounded, single-flight cache of values that are expensive to make and expire (leaf certificates).
 *
 * <h3>Single flight</h3>
 *
 * Each key maps to an {@link Entry} holding a future. The first caller for a missing key installs
 * the entry with {@code putIfAbsent} and runs the loader on its own thread, holding no lock; every
 * concurrent caller for the same key finds the entry and waits on its future. So N threads asking
 * for one new key cause exactly one load, while different keys load in parallel. A failed load is
 * removed again, so the next caller retries; the callers already waiting see the failure.
 *
 * <h3>Expiry</h3>
 *
 * A completed entry whose {@code refreshAt} time has passed is swapped for a fresh entry with
 * {@code replace(key, old, fresh)}: again only one caller reloads.
 *
 * <h3>Eviction (approximate LRU)</h3>
 *
 * A hit only reads the map and stamps the entry with the current value of {@link #clock}, which
 * advances once per insertion; so the hit path takes no lock and writes shared memory only the first
 * time an entry is touched after an insertion. Entries touched between the same two insertions are
 * indistinguishable, which is the approximation. After an insertion pushes the size above {@code
 * maxEntries}, the inserting thread removes the entries with the smallest stamps under {@link
 * #evictionLock}: an O(n) scan, negligible next to the milliseconds a load costs, and never on the
 * hit path.
 *
 * <p>Thread-safe.
 */
final class LeafCache<V> {
  private final int maxEntries;
  private final Function<String, V> loader;
  private final ToLongFunction<V> refreshAtMillis;
  private final LongSupplier nowMillis;
  private final ConcurrentHashMap<String, Entry<V>> entries = new ConcurrentHashMap<>();
  /** Advances by one per insertion; hits copy its value into the entry. */
  private final AtomicLong clock = new AtomicLong();
  /** Serialises eviction scans; never taken on the hit path. */
  private final Object evictionLock = new Object();

  LeafCache(
      int maxEntries,
      Function<String, V> loader,
      ToLongFunction<V> refreshAtMillis,
      LongSupplier nowMillis) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1: " + maxEntries);
    }
    this.maxEntries = maxEntries;
    this.loader = requireNonNull(loader, "loader");
    this.refreshAtMillis = requireNonNull(refreshAtMillis, "refreshAtMillis");
    this.nowMillis = requireNonNull(nowMillis, "nowMillis");
  }

  /** The value for {@code key}, loading it (once, however many threads ask) when absent or stale. */
  V get(String key) {
    while (true) {
      Entry<V> entry = entries.get(key);
      if (entry != null) {
        if (entry.refreshAt > nowMillis.getAsLong()) {
          long now = clock.get();
          if (entry.stamp != now) {
            entry.stamp = now;
          }
          return entry.await();
        }
        Entry<V> fresh = new Entry<>(clock.getAndIncrement());
        if (entries.replace(key, entry, fresh)) {
          return load(key, fresh);
        }
        continue; // someone else replaced or removed it; look again
      }
      Entry<V> fresh = new Entry<>(clock.getAndIncrement());
      if (entries.putIfAbsent(key, fresh) == null) {
        evictIfNeeded();
        return load(key, fresh);
      }
    }
  }

  int size() {
    return entries.size();
  }

  int maxEntries() {
    return maxEntries;
  }

  void clear() {
    entries.clear();
  }

  private V load(String key, Entry<V> entry) {
    V value;
    try {
      value = loader.apply(key);
    } catch (RuntimeException | Error e) {
      entries.remove(key, entry);
      entry.future.completeExceptionally(e);
      throw e;
    }
    entry.refreshAt = refreshAtMillis.applyAsLong(value);
    entry.future.complete(value);
    return value;
  }

  private void evictIfNeeded() {
    if (entries.size() <= maxEntries) {
      return;
    }
    synchronized (evictionLock) {
      while (entries.size() > maxEntries) {
        Map.Entry<String, Entry<V>> oldest = null;
        for (Map.Entry<String, Entry<V>> candidate : entries.entrySet()) {
          if (oldest == null || candidate.getValue().stamp < oldest.getValue().stamp) {
            oldest = candidate;
          }
        }
        if (oldest == null) {
          return;
        }
        entries.remove(oldest.getKey(), oldest.getValue());
      }
    }
  }

  /** One key's slot. {@code future} completes once; the other fields are written as documented. */
  private static final class Entry<V> {
    final CompletableFuture<V> future = new CompletableFuture<>();
    /** Long.MAX_VALUE while loading (never stale), then the value's refresh time. Written once. */
    volatile long refreshAt = Long.MAX_VALUE;
    /** LRU stamp, see the class doc. Racy writes are fine: any recent value will do. */
    volatile long stamp;

    Entry(long stamp) {
      this.stamp = stamp;
    }

    V await() {
      try {
        return future.get(); // no blocking and no interrupt check once completed
      } catch (ExecutionException | CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException) {
          throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
          throw (Error) cause;
        }
        throw new CaException("Minting failed: " + cause, cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CaException("Interrupted while waiting for another thread to mint", e);
      }
    }
  }
}
