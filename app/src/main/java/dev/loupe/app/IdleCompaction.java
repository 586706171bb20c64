package dev.loupe.app;

import java.lang.ref.WeakReference;
import java.time.Duration;
import javafx.application.Platform;
import javafx.collections.ListChangeListener;
import javafx.scene.input.InputEvent;
import javafx.stage.Window;

/**
 * The window's heap compacted when Loupe goes idle, and given back to the system.
 *
 * <p>The launcher asks G1 for a periodic collection after 15 s without one ({@code G1PeriodicGCInterval}):
 * a concurrent cycle, which can shrink the heap's free end but moves nothing, and no mixed collection
 * follows while nothing allocates. So old regions half full of what the window's start left (CSS, FXML,
 * class initialisation: a few hundred MiB allocated, ~40 MiB live) stay resident. A full collection
 * compacts them, and the heap shrinks to the live set plus {@code MaxHeapFreeRatio}. Headless keeps
 * G1's periodic cycle alone (a full collection of a large {@code --har} capture each idle period would
 * cost CPU for nothing the user sees); the window runs one full collection ({@link System#gc}) when a
 * whole {@link #PERIOD} passed without any collection and the heap in use grew by {@link #GROWTH} since
 * the last one, so a window left idle compacts once and not again until it has worked. Nothing
 * allocating for 10 s means no traffic to speak of (the young generation is at most 32 MiB), and no key,
 * mouse or scroll event in any of the window's stages for as long means nobody is using it: the pause,
 * that of a full collection of the window's live set (191 ms measured with a 10<sup>6</sup>-flow session
 * open, 58 MiB live, on a loaded 2-core box), falls when nothing is happening rather than under a
 * user's hand. docs/PERFORMANCE.md, "The window's idle RSS, third pass".
 *
 * <p>Collections are noticed without {@code java.management} (not in the packaged runtime): a weakly
 * referenced object, new at each check, is cleared by the next collection.
 *
 * <p>One daemon thread, {@code loupe-idle-gc}, from {@link #start} until {@link #stop}.
 */
final class IdleCompaction {
  /** How long without a collection counts as idle. */
  static final Duration PERIOD = Duration.ofSeconds(10);
  /** Growth of the heap in use since the last compaction that makes another worth a pause. */
  static final long GROWTH = 16L << 20;

  /** {@link System#nanoTime} of the last input event in any of the toolkit's windows. */
  private static volatile long lastInput = System.nanoTime();

  private final Thread thread;

  private IdleCompaction(Thread thread) {
    this.thread = thread;
  }

  /** Whether to compact, asked every {@link #PERIOD}. Confined to one thread. */
  static final class Decision {
    /** Heap in use after the last compaction; 0 before the first. */
    private long compactedUsed;

    /**
     * {@code collected}: whether a collection ran since the previous check (true at the first); {@code touched}:
     * whether the user gave the window input since then; {@code used}: bytes of heap in use now.
     */
    boolean due(boolean collected, boolean touched, long used) {
      return !collected && !touched && used - compactedUsed >= GROWTH;
    }

    /** A compaction ran, leaving {@code used} bytes in use. */
    void compacted(long used) {
      compactedUsed = used;
    }
  }

  /** Starts compacting the heap when Loupe is idle. */
  static IdleCompaction start() {
    Thread t = new Thread(IdleCompaction::run, "loupe-idle-gc");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
    return new IdleCompaction(t);
  }

  /** Stops compacting (the window closed). */
  void stop() {
    thread.interrupt();
  }

  /**
   * Notes every input event of the toolkit's windows, present and future (from the JavaFX thread): false
   * while the toolkit has not started yet, so the caller asks again later.
   */
  static boolean watchInput() {
    try {
      Platform.runLater(() -> {
        Window.getWindows().forEach(IdleCompaction::watch);
        Window.getWindows().addListener((ListChangeListener<Window>) c -> {
          while (c.next()) {
            c.getAddedSubList().forEach(IdleCompaction::watch);
          }
        });
      });
      return true;
    } catch (IllegalStateException e) { // "Toolkit not initialized": the window is still starting
      return false;
    }
  }

  private static void watch(Window w) {
    w.addEventFilter(InputEvent.ANY, e -> lastInput = System.nanoTime());
  }

  /** Whether any input event arrived after {@code since} ({@link System#nanoTime}). */
  static boolean inputSince(long since) {
    return lastInput - since > 0;
  }

  private static void run() {
    Decision decision = new Decision();
    Runtime runtime = Runtime.getRuntime();
    WeakReference<Object> sentinel = null; // cleared by the next collection
    boolean watching = false;
    long checked = System.nanoTime();
    try {
      while (true) {
        watching = watching || watchInput();
        boolean collected = sentinel == null || sentinel.get() == null;
        boolean touched = inputSince(checked);
        checked = System.nanoTime();
        if (decision.due(collected, touched, runtime.totalMemory() - runtime.freeMemory())) {
          System.gc(); // G1: a full, compacting collection, after which the heap shrinks (MaxHeapFreeRatio)
          decision.compacted(runtime.totalMemory() - runtime.freeMemory());
        }
        sentinel = new WeakReference<>(new Object());
        Thread.sleep(PERIOD.toMillis());
      }
    } catch (InterruptedException e) {
      // stopped
    }
  }
}
