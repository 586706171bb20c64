package dev.loupe.bench.ui;

import dev.loupe.bench.session.SessionScaleBenchmark;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.session.SessionFile;
import dev.loupe.ui.flows.FlowCatalog;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowTableView;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/**
 * The window's flow table over a session of N flows (default 1,000,000), as the desktop app wires it
 * (a {@link FlowStore} recorded into a session ({@link SessionFile}), the table's rows paged from the session's
 * file through {@link FlowCatalog}), in a real window (headless Monocle, software rendering).
 *
 * <p>Flows (shaped as {@link SessionScaleBenchmark}'s) arrive at a paced rate (default 5,000/s; the
 * producer also waits while the session's writer has more than 20,000 flows to write, so the rate
 * is what the writer sustains). Meanwhile a scroller jumps the table to a random row every 100 ms
 * (as a user dragging the scroll bar), and a heartbeat posts a task to the UI thread every 10 ms and
 * records how long each waited to run: what a click would wait. After the ingest, 20 s of scrolling
 * alone. Reports the waits (p50, p99, max) for both phases, the ingest rate, and the process RSS at
 * the end of the ingest and at its peak. Run with the launcher's JVM options:
 * {@code bench/session-window.sh [N] [RATE]}.
 */
public final class SessionWindowBenchmark {
  private SessionWindowBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 1_000_000;
    int rate = args.length > 1 ? Integer.parseInt(args[1].replace("_", "")) : 5_000;
    // the scrolling-alone phase after the ingest (20 s; bench/session-window.sh's AOT training run asks for less)
    int scrollSeconds = Integer.getInteger("loupe.bench.scrollSeconds", 20);
    System.setProperty("glass.platform", System.getProperty("glass.platform", "Monocle"));
    System.setProperty("monocle.platform", System.getProperty("monocle.platform", "Headless"));
    System.setProperty("prism.order", System.getProperty("prism.order", "sw"));
    Path dir = Files.createTempDirectory("loupe-window-bench");
    Path file = dir.resolve("window.loupe");
    System.out.printf(Locale.ROOT, "session window: %,d flows at %,d/s into %s; java %s, %s, %d cpus%n", n, rate, file,
        System.getProperty("java.version"), ManagementFactory.getRuntimeMXBean().getInputArguments(),
        Runtime.getRuntime().availableProcessors());
    System.out.println("load average at start: " + loadAverage());
    CountDownLatch started = new CountDownLatch(1);
    Platform.startup(started::countDown);
    started.await();

    RecordingStore store = new RecordingStore(); // what the window records with (LoupeCommand: the UI keeps every flow)
    // the engine's own (its writer statistics), indexed as the window's SessionManager opens it (ON_DEMAND);
    // -Dloupe.bench.indexing=LIVE as the window did before 2026-12-03 evening
    SessionFile session = SessionFile.open(file, dir,
        dev.loupe.engine.api.session.Session.Indexing.valueOf(System.getProperty("loupe.bench.indexing", "ON_DEMAND")));
    session.record(store, p -> System.out.println("PROBLEM: " + p));
    CompletableFuture<Object[]> ui = new CompletableFuture<>();
    Platform.runLater(() -> {
      FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), Platform::runLater);
      FlowTableView table = new FlowTableView(vm);
      Stage stage = new Stage();
      stage.setScene(new Scene(table, 1200, 760));
      stage.show();
      ui.complete(new Object[] {vm, table, Thread.currentThread().getId()});
    });
    Object[] parts = ui.get(60, TimeUnit.SECONDS);
    FlowListViewModel vm = (FlowListViewModel) parts[0];
    FlowTableView table = (FlowTableView) parts[1];

    Heartbeat heartbeat = new Heartbeat();
    heartbeat.uiThread = (Long) parts[2];
    heartbeat.start();
    // -Dloupe.bench.scroll=false: no scroller (bench/session-window.sh's AOT training: load into the window only, as
    // the installer's AotTraining does)
    AtomicBoolean scrolling = new AtomicBoolean(Boolean.parseBoolean(System.getProperty("loupe.bench.scroll", "true")));
    AtomicInteger scrolls = new AtomicInteger();
    Thread scroller = new Thread(() -> {
      java.util.Random random = new java.util.Random(42);
      while (scrolling.get()) {
        Platform.runLater(() -> {
          int size = table.rowCount(); // all rows (the TableView holds a window of them)
          if (size > 0) {
            table.scrollToRow(random.nextInt(size));
            scrolls.incrementAndGet();
          }
        });
        LockSupport.parkNanos(100_000_000L);
      }
    }, "scroller");
    scroller.setDaemon(true);
    scroller.start();

    CapturePolicy capture = CapturePolicy.defaults();
    long uiCpu0 = heartbeat.uiCpu();
    long peakRss = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      SessionScaleBenchmark.record(store, capture, i, false);
      long due = t0 + (long) (i * (1e9 / rate));
      while (System.nanoTime() < due) {
        LockSupport.parkNanos(due - System.nanoTime());
      }
      while (session.stats().pending() > 20_000) {
        Thread.sleep(5);
      }
      if ((i & 0xFFFF) == 0xFFFF) {
        long rss = rss("VmRSS");
        peakRss = Math.max(peakRss, rss);
        System.out.printf(Locale.ROOT, "  %,9d flows, %5.1f s, waiting %,d, heap %s, rss %s; UI waits so far: %s%n", i + 1,
            (System.nanoTime() - t0) / 1e9, session.stats().pending(), mib(heapUsed()), mib(rss), heartbeat.summary());
      }
    }
    long produced = System.nanoTime();
    session.flush();
    long flushed = System.nanoTime();
    awaitCount(table, n);
    long shown = System.nanoTime();
    long rssEnd = rss("VmRSS");
    String ingestWindows = heartbeat.windows(t0, 20);
    String ingestWaits = heartbeat.drain();
    int ingestScrolls = scrolls.getAndSet(0);
    long uiCpu1 = heartbeat.uiCpu();
    System.out.printf(Locale.ROOT, "ingest: %,d flows made in %.1f s, on disk after %.1f s (%,.0f flows/s sustained),"
        + " all %,d rows in the table after %.1f s%n", n, (produced - t0) / 1e9, (flushed - t0) / 1e9,
        n / ((flushed - t0) / 1e9), n, (shown - t0) / 1e9);
    System.out.printf(Locale.ROOT, "  UI thread while ingesting and scrolling (%,d jumps): waits %s%n", ingestScrolls,
        ingestWaits);
    System.out.printf(Locale.ROOT, "  the same per 20 s of the ingest (from its start): %s%n", ingestWindows);
    System.out.printf(Locale.ROOT, "  UI thread's CPU while ingesting and scrolling: %.1f s (%.1f ms per jump, all work counted)%n",
        (uiCpu1 - uiCpu0) / 1e9, (uiCpu1 - uiCpu0) / 1e6 / Math.max(1, ingestScrolls));
    System.out.printf(Locale.ROOT, "  RSS at the end of the ingest %s (sampled peak %s, VmHWM %s); heap used %s%n",
        mib(rssEnd), mib(Math.max(peakRss, rssEnd)), mib(rss("VmHWM")), mib(heapUsed()));

    long s0 = System.nanoTime();
    while (System.nanoTime() - s0 < TimeUnit.SECONDS.toNanos(scrollSeconds)) {
      Thread.sleep(100);
    }
    scrolling.set(false);
    scroller.join();
    String scrollWaits = heartbeat.drain();
    long uiCpu2 = heartbeat.uiCpu();
    System.out.printf(Locale.ROOT, "  UI thread scrolling %,d flows for %d s (%,d jumps): waits %s%n", n, scrollSeconds,
        scrolls.get(),
        scrollWaits);
    System.out.printf(Locale.ROOT, "  UI thread's CPU scrolling alone: %.2f s (%.1f ms per jump)%n", (uiCpu2 - uiCpu1) / 1e9,
        (uiCpu2 - uiCpu1) / 1e6 / Math.max(1, scrolls.get()));
    System.out.printf(Locale.ROOT, "  RSS after scrolling %s, VmHWM %s%n", mib(rss("VmRSS")), mib(rss("VmHWM")));
    System.gc();
    System.out.printf(Locale.ROOT, "  heap used after a full GC (the live set with %,d flows in the window): %s%n", n,
        mib(heapUsed()));
    heartbeat.interrupt();
    System.out.println("load average at end: " + loadAverage());
    vm.close();
    session.close();
    Files.deleteIfExists(file);
    Platform.exit();
    System.exit(0);
  }

  /**
   * Posts a task to the UI thread every 10 ms and keeps how long each waited to run (wall time), and
   * how much CPU the UI thread used meanwhile: on a box where other processes take the cores, the wall
   * wait is mostly the scheduler's; the CPU the UI thread spent ahead of the task is Loupe's work, and
   * what the wait would be with a core free.
   */
  private static final class Heartbeat extends Thread {
    private final java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final List<Long> waits = new ArrayList<>();
    private final List<Long> busy = new ArrayList<>();
    /** When each wait in {@link #waits} was posted (System.nanoTime). */
    private final List<Long> postedAt = new ArrayList<>();
    private volatile long uiThread = -1;

    Heartbeat() {
      super("ui-heartbeat");
      setDaemon(true);
    }

    @Override
    public void run() {
      while (!isInterrupted()) {
        long posted = System.nanoTime();
        long cpuAtPost = uiThread < 0 ? -1 : threads.getThreadCpuTime(uiThread);
        CountDownLatch ran = new CountDownLatch(1);
        Platform.runLater(() -> {
          long w = System.nanoTime() - posted;
          uiThread = Thread.currentThread().getId();
          long b = cpuAtPost < 0 ? -1 : threads.getCurrentThreadCpuTime() - cpuAtPost;
          synchronized (waits) {
            waits.add(w);
            postedAt.add(posted);
            if (b >= 0) {
              busy.add(b);
            }
          }
          ran.countDown();
        });
        try {
          ran.await();
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** The UI thread's CPU time so far (ns), or 0 before the first probe ran. */
    long uiCpu() {
      long id = uiThread;
      return id < 0 ? 0 : Math.max(0, threads.getThreadCpuTime(id));
    }

    /** The waits and the UI thread's CPU during them since the last drain, as a sentence; clears them. */
    String drain() {
      synchronized (waits) {
        String out = summary();
        waits.clear();
        busy.clear();
        postedAt.clear();
        return out;
      }
    }

    /**
     * The waits since the last drain per {@code seconds}-long window from {@code t0}: "0-20 s p99 .. ms (n probes)"
     * for each window, so that the first seconds (class loading, JIT warm-up) show apart from the rest.
     */
    String windows(long t0, int seconds) {
      synchronized (waits) {
        long width = TimeUnit.SECONDS.toNanos(seconds);
        java.util.TreeMap<Long, List<Long>> by = new java.util.TreeMap<>();
        for (int i = 0; i < waits.size(); i++) {
          by.computeIfAbsent(Math.max(0, postedAt.get(i) - t0) / width, k -> new ArrayList<>()).add(waits.get(i));
        }
        StringBuilder out = new StringBuilder();
        by.forEach((k, w) -> {
          long[] sorted = sorted(w);
          out.append(String.format(Locale.ROOT, "%s%d-%d s p99 %.1f ms, max %.1f ms (%,d)", out.length() == 0 ? "" : "; ",
              k * seconds, (k + 1) * seconds, sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))] / 1e6,
              sorted[sorted.length - 1] / 1e6, sorted.length));
        });
        // the five longest, with when they were posted: a stall at start-up and one at a young collection look alike
        Integer[] order = new Integer[waits.size()];
        for (int i = 0; i < order.length; i++) {
          order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> Long.compare(waits.get(b), waits.get(a)));
        out.append("; longest:");
        for (int i = 0; i < Math.min(5, order.length); i++) {
          out.append(String.format(Locale.ROOT, " %.1f ms at %.1f s", waits.get(order[i]) / 1e6,
              (postedAt.get(order[i]) - t0) / 1e9));
        }
        return out.toString();
      }
    }

    String summary() {
      synchronized (waits) {
        return waits(sorted(waits)) + "; UI thread's own CPU during those waits " + waits(sorted(busy));
      }
    }

    private static long[] sorted(List<Long> values) {
      return values.stream().mapToLong(Long::longValue).sorted().toArray();
    }
  }

  private static void awaitCount(FlowTableView table, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (System.nanoTime() < deadline) {
      CompletableFuture<Integer> size = new CompletableFuture<>();
      Platform.runLater(() -> size.complete(table.rowCount()));
      if (size.get(300, TimeUnit.SECONDS) >= n) {
        return;
      }
      Thread.sleep(20);
    }
    throw new IllegalStateException("the table did not reach " + n + " rows");
  }

  private static String waits(long[] w) {
    if (w.length == 0) {
      return "(no probes)";
    }
    return String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms, max %.1f ms (%,d probes)",
        w[w.length / 2] / 1e6, w[Math.min(w.length - 1, (int) (w.length * 0.99))] / 1e6, w[w.length - 1] / 1e6, w.length);
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static long rss(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
        }
      }
    } catch (java.io.IOException ignored) {
      // not Linux
    }
    return -1;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  private static String mib(long bytes) {
    return bytes < 0 ? "?" : String.format(Locale.ROOT, "%,.0f MiB", bytes / 1048576.0);
  }
}
