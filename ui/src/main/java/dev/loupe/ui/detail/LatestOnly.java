package dev.loupe.ui.detail;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Hands work to an executor keeping only the newest task that has not started: while one task runs,
 * later submissions replace each other, and just the last runs after it. A body that grows while it
 * streams (the pane refreshed many times a second) is then decoded once per finished decode, not
 * once per refresh. Thread-safe.
 */
final class LatestOnly {
  private final Executor executor;
  private final AtomicReference<Runnable> next = new AtomicReference<>();
  private final AtomicBoolean scheduled = new AtomicBoolean();

  LatestOnly(Executor executor) {
    this.executor = executor;
  }

  /** Queues {@code task}; after the executor has shut down (the window closed) it is dropped. */
  void submit(Runnable task) {
    next.set(task);
    if (scheduled.compareAndSet(false, true)) {
      try {
        executor.execute(this::drain);
      } catch (java.util.concurrent.RejectedExecutionException closed) {
        next.set(null); // rows that arrive after the detail pane closed have nothing to show
      }
    }
  }

  private void drain() {
    scheduled.set(false);
    Runnable task = next.getAndSet(null);
    if (task != null) {
      task.run();
    }
  }
}
