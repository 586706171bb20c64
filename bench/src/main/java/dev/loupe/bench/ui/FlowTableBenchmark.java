package dev.loupe.bench.ui;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import dev.loupe.ui.flows.FlowTableView;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/**
 * The live flow table with 100,000 flows: the real {@link FlowListViewModel} and
 * {@link FlowTableView} in a window (headless Monocle, software rendering), fed through a real
 * {@link FlowStore} as fast as one producer thread can record flows.
 *
 * <p>Reports, for half the flows arriving at a steady 5,000/s and the other half in one burst: how
 * long the table takes to show them, and how long a task posted to the UI thread every 10 ms waits
 * (what a click or keypress would wait while flows arrive); then the
 * median time from typing a filter until its result over all N rows is laid out, and how much of
 * it the UI thread was busy (the matching itself runs on a worker).
 * Run: {@code bench/ui-flows.sh [N]}.
 */
public final class FlowTableBenchmark {
  private FlowTableBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    System.setProperty("glass.platform", System.getProperty("glass.platform", "Monocle"));
    System.setProperty("monocle.platform", System.getProperty("monocle.platform", "Headless"));
    System.setProperty("prism.order", System.getProperty("prism.order", "sw"));
    CountDownLatch started = new CountDownLatch(1);
    Platform.startup(started::countDown);
    started.await();

    RecordingStore store = new RecordingStore(Long.MAX_VALUE);
    CompletableFuture<Object[]> ui = new CompletableFuture<>();
    Platform.runLater(() -> {
      // UI-thread time of what the view model posts (batches, filter answers) is added up
      FlowListViewModel vm = new FlowListViewModel(store, task -> Platform.runLater(() -> {
        long s0 = System.nanoTime();
        task.run();
        UI_BUSY.addAndGet(System.nanoTime() - s0);
      }));
      FlowTableView table = new FlowTableView(vm);
      Stage stage = new Stage();
      stage.setScene(new Scene(table, 1200, 760));
      stage.show();
      ui.complete(new Object[] {vm, table});
    });
    Object[] parts = ui.get(30, TimeUnit.SECONDS);
    FlowListViewModel vm = (FlowListViewModel) parts[0];
    FlowTableView table = (FlowTableView) parts[1];

    // UI-thread responsiveness while ingesting: a probe posts a task every 10 ms and records how
    // long each waited to run (what a click or a keypress would wait).
    List<Long> waits = java.util.Collections.synchronizedList(new ArrayList<>());
    java.util.concurrent.atomic.AtomicBoolean probing = new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread probe = new Thread(() -> {
      while (probing.get()) {
        long posted = System.nanoTime();
        CountDownLatch ran = new CountDownLatch(1);
        Platform.runLater(() -> {
          long w = System.nanoTime() - posted;
          waits.add(w);
          if (w > 300_000_000L) {
            System.out.printf(Locale.ROOT, "  (a %.0f ms wait, posted %.1f s into the run)%n", w / 1e6, (posted - RUN_START) / 1e9);
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
    }, "ui-probe");
    probe.start();

    CapturePolicy capture = new CapturePolicy(1 << 20, false, Path.of(System.getProperty("java.io.tmpdir")));
    // Phase 1: half the flows at a steady 5,000 a second (a busy browser session is far less);
    // phase 2: the other half as fast as one thread can record them.
    int paced = n / 2;
    long t0 = System.nanoTime();
    for (int i = 0; i < paced; i++) {
      record(store, capture, i);
      long due = t0 + i * 200_000L; // 5,000 per second
      while (System.nanoTime() < due) {
        java.util.concurrent.locks.LockSupport.parkNanos(due - System.nanoTime());
      }
    }
    awaitRows(vm, paced);
    long pacedDone = System.nanoTime();
    long[] pacedWaits = drain(waits);
    long t1 = System.nanoTime();
    for (int i = paced; i < n; i++) {
      record(store, capture, i);
    }
    long produced = System.nanoTime();
    awaitRows(vm, n);
    long shown = System.nanoTime();
    probing.set(false);
    probe.join();
    long[] burstWaits = drain(waits);

    String[] filters = {"~d host-7\\.example & status>=400", "~m POST", "size>300 & ~t json", "/items/9999", ""};
    List<String> filterLines = new ArrayList<>();
    for (String expr : filters) {
      double[] ms = new double[7];
      double[] listMs = new double[7];
      int[] matched = new int[1];
      for (int rep = 0; rep < ms.length; rep++) {
        CompletableFuture<Double> done = new CompletableFuture<>();
        String e = rep % 2 == 0 ? expr : "~c 999"; // alternate so each run filters all N rows again
        int run = rep;
        Platform.runLater(() -> {
          long s = System.nanoTime();
          long busyBefore = UI_BUSY.get();
          vm.filter(e);
          long called = System.nanoTime() - s;
          // done when the answer is applied and the next pulse has laid out the table with it
          Runnable[] once = new Runnable[1];
          once[0] = () -> {
            if (vm.filteringProperty().get()) {
              Platform.requestNextPulse();
              return;
            }
            table.getScene().removePostLayoutPulseListener(once[0]);
            matched[0] = table.rowCount();
            if (run % 2 == 0) {
              listMs[run] = (called + UI_BUSY.get() - busyBefore) / 1e6;
            }
            done.complete((System.nanoTime() - s) / 1e6);
          };
          table.getScene().addPostLayoutPulseListener(once[0]);
          Platform.requestNextPulse();
        });
        double t = done.get(60, TimeUnit.SECONDS);
        if (rep % 2 == 0) {
          ms[rep] = t;
        }
      }
      CompletableFuture<Integer> count = new CompletableFuture<>();
      Platform.runLater(() -> {
        vm.filter(expr);
        count.complete(table.rowCount());
      });
      double[] measured = Arrays.stream(ms).filter(x -> x > 0).sorted().toArray();
      double[] listOnly = Arrays.stream(listMs).filter(x -> x > 0).sorted().toArray();
      filterLines.add(String.format(Locale.ROOT, "  filter %-36s results shown after %6.1f ms (median of %d; UI thread busy"
          + " %.1f ms of it, the matching runs on a worker), %,d rows match", "'" + expr + "'", measured[measured.length / 2],
          measured.length, listOnly[listOnly.length / 2], count.get(30, TimeUnit.SECONDS)));
    }

    Runtime rt = Runtime.getRuntime();
    System.gc();
    long heap = rt.totalMemory() - rt.freeMemory();
    System.out.printf(Locale.ROOT, "flows: %,d (JDK %s, %d CPUs)%n", n, System.getProperty("java.version"),
        rt.availableProcessors());
    System.out.printf(Locale.ROOT, "  paced: %,d flows at 5,000/s, in the table %.0f ms after the first; UI thread %s%n",
        paced, (pacedDone - t0) / 1e6, waits(pacedWaits));
    System.out.printf(Locale.ROOT, "  burst: %,d flows recorded in %.0f ms (%,.0f flows/s), all in the table after %.0f ms"
        + " (%,.0f flows/s end to end); UI thread %s%n", n - paced, (produced - t1) / 1e6,
        (n - paced) / ((produced - t1) / 1e9), (shown - t1) / 1e6, (n - paced) / ((shown - t1) / 1e9), waits(burstWaits));
    filterLines.forEach(System.out::println);
    System.out.printf(Locale.ROOT, "  heap after GC with %,d flows: %s%n", n, FlowRow.humanBytes(heap));
    vm.close();
    Platform.exit();
    System.exit(0);
  }

  private static void record(RecordingStore store, CapturePolicy capture, int i) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), capture);
    f.clientProtocol(i % 3 == 0 ? "HTTP/2" : "HTTP/1.1");
    f.serverProtocol("HTTP/1.1");
    f.request(new RequestHead(i % 5 == 0 ? "POST" : "GET", "https", "host-" + (i % 50) + ".example", 443,
        "/api/v1/items/" + i + "?page=" + (i % 7), "HTTP/1.1", Headers.of("accept", "*/*", "user-agent", "bench")));
    store.add(f);
    f.response(new ResponseHead(i % 20 == 0 ? 404 : i % 97 == 0 ? 500 : 200, "", "HTTP/1.1",
        Headers.of("content-type", TYPES[i % TYPES.length])));
    f.responseBody().append(ByteBuffer.wrap(BODY, 0, 64 + (i % 448)));
    f.complete();
    store.completed(f);
  }

  private static final long RUN_START = System.nanoTime();
  private static final byte[] BODY = new byte[512];
  private static final java.util.concurrent.atomic.AtomicLong UI_BUSY = new java.util.concurrent.atomic.AtomicLong();
  private static final String[] TYPES = {"application/json", "text/html", "image/png", "application/javascript"};

  /** Waits until the table shows {@code n} rows, the last one completed. */
  private static void awaitRows(FlowListViewModel vm, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
    while (true) {
      CompletableFuture<Boolean> ok = new CompletableFuture<>();
      Platform.runLater(() -> ok.complete(vm.visibleRows().size() == n && vm.visibleRows().get(n - 1).status() != 0));
      if (ok.get(300, TimeUnit.SECONDS)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the table did not catch up");
      }
      Thread.sleep(5);
    }
  }

  private static long[] drain(List<Long> waits) {
    synchronized (waits) {
      long[] w = waits.stream().mapToLong(Long::longValue).sorted().toArray();
      waits.clear();
      return w;
    }
  }

  private static String waits(long[] w) {
    if (w.length == 0) {
      return "(no probes)";
    }
    return String.format(Locale.ROOT, "waits p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d probes, one per 10 ms)",
        w[w.length / 2] / 1e6, w[(int) (w.length * 0.99)] / 1e6, w[w.length - 1] / 1e6, w.length);
  }
}
