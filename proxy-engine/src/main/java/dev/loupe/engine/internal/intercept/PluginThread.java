package dev.loupe.engine.internal.intercept;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The one thread a plugin's hooks run on, with a deadline per call.
 *
 * <h3>Contract</h3>
 * {@link #call} runs a body on the thread, after the calls queued before it; the returned future
 * completes with the body's result, its exception, or a {@link TimeoutException} when the body has
 * not returned {@code timeout} after it <em>started</em> (looked at every {@value #SWEEP_MS} ms). A
 * timed-out thread is abandoned: it is
 * interrupted, and the calls queued behind it move, in order, to a fresh thread, so one hung hook
 * holds up nothing else of the plugin. A body that returns after its deadline has its result dropped.
 *
 * <h3>Bounds</h3>
 * Observing calls ({@code droppable}) are refused with {@link RejectedExecutionException} once
 * {@link #MAX_QUEUED_OBSERVATIONS} of them wait, so a plugin slower than the traffic costs skipped
 * observations, not memory. In-flight and lifecycle calls are never refused (a flow waits on them).
 *
 * <p>Thread-safe.
 */
final class PluginThread {
  /** Observing calls allowed to wait at once. */
  static final int MAX_QUEUED_OBSERVATIONS = 10_000;

  /** How often the watchdog looks at the calls running now (the precision of the timeout). */
  static final long SWEEP_MS = 50;

  /**
   * Looks at every plugin's running call each {@link #SWEEP_MS} ms. One periodic look instead of a
   * timer per call: a call then costs no timer queue operations and wakes no other thread, which
   * is what keeps an observing plugin cheap at thousands of flows per second.
   */
  private static final ScheduledExecutorService WATCHDOG = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "loupe-plugin-watchdog");
    t.setDaemon(true);
    return t;
  });
  private static final java.util.Set<PluginThread> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static {
    WATCHDOG.scheduleWithFixedDelay(PluginThread::sweep, SWEEP_MS, SWEEP_MS, TimeUnit.MILLISECONDS);
  }

  /** The call running on a plugin's thread: its result, when it must have returned, its executor. */
  private record Running(CompletableFuture<?> result, long deadline, Duration limit, ThreadPoolExecutor executor) {}

  private static void sweep() {
    long now = System.nanoTime();
    for (PluginThread t : LIVE) {
      Running r = t.current;
      if (r != null && now - r.deadline() >= 0 && r.result().completeExceptionally(
          new TimeoutException("did not return within " + r.limit().toMillis() + " ms"))) {
        t.abandon(r.executor());
      }
    }
  }

  private final String name;
  private final Supplier<Duration> timeout;
  private final AtomicInteger queuedObservations = new AtomicInteger();
  private volatile ThreadPoolExecutor executor;
  private volatile boolean shutdown;
  /** The call running now, or null; written by the plugin's thread, read by the watchdog. */
  private volatile Running current;

  PluginThread(String name, Supplier<Duration> timeout) {
    this.name = name;
    this.timeout = timeout;
    this.executor = newExecutor();
    LIVE.add(this);
  }

  private ThreadPoolExecutor newExecutor() {
    return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "loupe-plugin-" + name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Runs {@code body} on the plugin's thread (see the class doc). A call after {@link #shutdown}
   * fails with {@link RejectedExecutionException}.
   */
  <T> CompletableFuture<T> call(Callable<T> body, boolean droppable) {
    CompletableFuture<T> result = new CompletableFuture<>();
    if (droppable && queuedObservations.incrementAndGet() > MAX_QUEUED_OBSERVATIONS) {
      queuedObservations.decrementAndGet();
      result.completeExceptionally(new RejectedExecutionException(
          "more than " + MAX_QUEUED_OBSERVATIONS + " observed flows wait for this plugin: skipped"));
      return result;
    }
    Runnable task = () -> run(body, result, droppable);
    if (!enqueue(task)) {
      if (droppable) {
        queuedObservations.decrementAndGet();
      }
      result.completeExceptionally(new RejectedExecutionException("the plugin was unloaded"));
    }
    return result;
  }

  private boolean enqueue(Runnable task) {
    while (!shutdown) {
      ThreadPoolExecutor ex = executor;
      try {
        ex.execute(task);
        return true;
      } catch (RejectedExecutionException e) {
        if (ex == executor) {
          return false; // shut down for good, not replaced under us
        }
      }
    }
    return false;
  }

  private <T> void run(Callable<T> body, CompletableFuture<T> result, boolean droppable) {
    if (droppable) {
      queuedObservations.decrementAndGet();
    }
    Duration limit = timeout.get();
    Running running = new Running(result, System.nanoTime() + limit.toNanos(), limit, executor);
    current = running;
    try {
      result.complete(body.call());
    } catch (Throwable ex) {
      result.completeExceptionally(ex);
    } finally {
      if (current == running) {
        current = null; // an abandoned thread that returns late leaves its successor's call alone
      }
    }
  }

  /** The thread of {@code stuck} hung: move what waits behind it to a fresh thread, interrupt it. */
  private synchronized void abandon(ThreadPoolExecutor stuck) {
    if (executor != stuck || shutdown) {
      return;
    }
    ThreadPoolExecutor fresh = newExecutor();
    executor = fresh;
    List<Runnable> waiting = stuck.shutdownNow();
    waiting.forEach(fresh::execute);
  }

  /** Whether the calling thread is this plugin's (waiting on its own work there would never end). */
  boolean isCurrent() {
    return Thread.currentThread().getName().equals("loupe-plugin-" + name);
  }

  /** Runs what is queued, then stops; {@code awaitMillis} bounds the wait for it. */
  void shutdown(long awaitMillis) {
    ThreadPoolExecutor ex;
    synchronized (this) {
      shutdown = true;
      ex = executor;
    }
    LIVE.remove(this);
    ex.shutdown();
    if (awaitMillis > 0) {
      try {
        ex.awaitTermination(awaitMillis, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
