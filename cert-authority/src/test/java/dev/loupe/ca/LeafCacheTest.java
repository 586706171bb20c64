package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The cache on its own, with a recording loader: single flight, parallelism, LRU, expiry, errors. */
@Timeout(60)
class LeafCacheTest {
  private final ExecutorService pool = Executors.newCachedThreadPool();
  private final AtomicLong now = new AtomicLong(1_000);
  private final Map<String, AtomicInteger> loads = new ConcurrentHashMap<>();

  @AfterEach
  void shutdown() {
    pool.shutdownNow();
  }

  /** Values are "key#n" for the n-th load of key; they expire {@code ttl} ms after loading. */
  private LeafCache<String> cache(int max, long ttl, Function<String, String> beforeLoad) {
    return new LeafCache<>(
        max,
        key -> {
          beforeLoad.apply(key);
          return key + "#" + loads.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        },
        value -> now.get() + ttl,
        now::get);
  }

  private int loadsOf(String key) {
    AtomicInteger count = loads.get(key);
    return count == null ? 0 : count.get();
  }

  @Test
  void hundredConcurrentRequestsForOneKeyLoadOnce() throws Exception {
    CountDownLatch loaderEntered = new CountDownLatch(1);
    CountDownLatch releaseLoader = new CountDownLatch(1);
    LeafCache<String> cache =
        cache(10, 10_000, key -> {
          loaderEntered.countDown();
          await(releaseLoader);
          return key;
        });
    List<Future<String>> results = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(100);
    CountDownLatch start = new CountDownLatch(1);
    for (int i = 0; i < 100; i++) {
      results.add(pool.submit(() -> {
        ready.countDown();
        await(start);
        return cache.get("k");
      }));
    }
    ready.await();
    start.countDown();
    loaderEntered.await(); // one thread is loading; the others pile up behind it
    releaseLoader.countDown();
    for (Future<String> result : results) {
      assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo("k#1");
    }
    assertThat(loadsOf("k")).isEqualTo(1);
  }

  @Test
  void differentKeysLoadInParallel() throws Exception {
    CountDownLatch slowStarted = new CountDownLatch(1);
    CountDownLatch releaseSlow = new CountDownLatch(1);
    LeafCache<String> cache =
        cache(10, 10_000, key -> {
          if (key.equals("slow")) {
            slowStarted.countDown();
            await(releaseSlow);
          }
          return key;
        });
    Future<String> slow = pool.submit(() -> cache.get("slow"));
    slowStarted.await();
    // "slow" is mid-load and holds no lock that "fast" needs
    assertThat(pool.submit(() -> cache.get("fast")).get(30, TimeUnit.SECONDS)).isEqualTo("fast#1");
    assertThat(slow.isDone()).isFalse();
    releaseSlow.countDown();
    assertThat(slow.get(30, TimeUnit.SECONDS)).isEqualTo("slow#1");
  }

  @Test
  void hitsDoNotLoadAgain() {
    LeafCache<String> cache = cache(10, 10_000, Function.identity());
    assertThat(cache.get("a")).isEqualTo("a#1");
    assertThat(cache.get("a")).isEqualTo("a#1");
    assertThat(loadsOf("a")).isEqualTo(1);
  }

  @Test
  void evictsTheLeastRecentlyUsedBeyondTheBound() {
    LeafCache<String> cache = cache(3, 10_000, Function.identity());
    cache.get("a");
    cache.get("b");
    cache.get("c");
    cache.get("a"); // a is now more recent than b
    cache.get("d"); // over the bound: b goes
    assertThat(cache.size()).isEqualTo(3);
    cache.get("a");
    cache.get("c");
    cache.get("d");
    assertThat(loadsOf("a") + loadsOf("c") + loadsOf("d")).as("a, c, d still cached").isEqualTo(3);
    cache.get("b");
    assertThat(loadsOf("b")).as("b was evicted").isEqualTo(2);
    assertThat(cache.size()).isEqualTo(3);
  }

  @Test
  void sizeNeverExceedsTheBound() {
    LeafCache<String> cache = cache(50, 10_000, Function.identity());
    for (int i = 0; i < 1_000; i++) {
      cache.get("host" + i);
      assertThat(cache.size()).isLessThanOrEqualTo(50);
    }
  }

  @Test
  void staleEntriesAreReloaded() {
    LeafCache<String> cache = cache(10, 100, Function.identity());
    assertThat(cache.get("a")).isEqualTo("a#1");
    now.addAndGet(99);
    assertThat(cache.get("a")).isEqualTo("a#1");
    now.addAndGet(1);
    assertThat(cache.get("a")).isEqualTo("a#2");
    assertThat(cache.get("a")).isEqualTo("a#2");
  }

  @Test
  void failedLoadsAreNotCached() {
    AtomicInteger attempts = new AtomicInteger();
    LeafCache<String> cache =
        cache(10, 10_000, key -> {
          if (attempts.incrementAndGet() == 1) {
            throw new IllegalStateException("boom");
          }
          return key;
        });
    assertThatThrownBy(() -> cache.get("a")).isInstanceOf(IllegalStateException.class).hasMessage("boom");
    assertThat(cache.size()).isZero();
    assertThat(cache.get("a")).isEqualTo("a#1");
  }

  @Test
  void clearForgetsEverything() {
    LeafCache<String> cache = cache(10, 10_000, Function.identity());
    cache.get("a");
    cache.clear();
    assertThat(cache.size()).isZero();
    assertThat(cache.get("a")).isEqualTo("a#2");
  }

  @Test
  void rejectsANonPositiveBound() {
    assertThatThrownBy(() -> cache(0, 1, Function.identity()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
