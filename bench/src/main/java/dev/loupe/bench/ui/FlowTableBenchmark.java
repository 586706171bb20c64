package dev.loupe.bench.ui;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
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
import javafx.animation.AnimationTimer;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/**
 * The live flow table with 100,000 flows: the real {@link FlowListViewModel} and
 * {@link FlowTableView} in a window (headless Monocle, software rendering), fed through a real
 * {@link FlowStore} as fast as one producer thread can record flows.
 *
 * <p>Reports: time until the table holds all N flows (ingest rate), the longest gap between two
 * UI-thread waits while ingesting (how long a click would wait: the UI thread never stalls for long), and the
 * median time to apply a filter over all N rows (on the UI thread, including the table's layout).
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

    FlowStore store = new FlowStore(Long.MAX_VALUE);
    CompletableFuture<Object[]> ui = new CompletableFuture<>();
    Platform.runLater(() -> {
      FlowListViewModel vm = new FlowListViewModel(store, Platform::runLater);
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
          waits.add(System.nanoTime() - posted);
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
    byte[] body = new byte[512];
    String[] types = {"application/json", "text/html", "image/png", "application/javascript"};
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      Flow f = new Flow(store.nextId(), Instant.now(), capture);
      f.clientProtocol(i % 3 == 0 ? "HTTP/2" : "HTTP/1.1");
      f.serverProtocol("HTTP/1.1");
      f.request(new RequestHead(i % 5 == 0 ? "POST" : "GET", "https", "host-" + (i % 50) + ".example", 443,
          "/api/v1/items/" + i + "?page=" + (i % 7), "HTTP/1.1", Headers.of("accept", "*/*", "user-agent", "bench")));
      store.add(f);
      f.response(new ResponseHead(i % 20 == 0 ? 404 : i % 97 == 0 ? 500 : 200, "", "HTTP/1.1",
          Headers.of("content-type", types[i % types.length])));
      f.responseBody().append(ByteBuffer.wrap(body, 0, 64 + (i % 448)));
      f.complete();
      store.completed(f);
    }
    long produced = System.nanoTime();
    CompletableFuture<Long> caughtUp = new CompletableFuture<>();
    AnimationTimer watch = new AnimationTimer() {
      @Override
      public void handle(long now) {
        if (table.getItems().size() == n && table.getItems().get(n - 1).status() != 0) {
          caughtUp.complete(System.nanoTime());
          stop();
        }
      }
    };
    Platform.runLater(watch::start);
    long shown = caughtUp.get(300, TimeUnit.SECONDS);
    probing.set(false);
    probe.join();
    long[] w = waits.stream().mapToLong(Long::longValue).sorted().toArray();

    String[] filters = {"~d host-7\\.example & status>=400", "~m POST", "size>300 & ~t json", "/items/9999", ""};
    List<String> filterLines = new ArrayList<>();
    for (String expr : filters) {
      double[] ms = new double[7];
      int[] matched = new int[1];
      for (int rep = 0; rep < ms.length; rep++) {
        CompletableFuture<Double> done = new CompletableFuture<>();
        String e = rep % 2 == 0 ? expr : "~c 999"; // alternate so each run filters all N rows again
        Platform.runLater(() -> {
          long s = System.nanoTime();
          vm.filter(e);
          table.applyCss();
          table.layout();
          matched[0] = table.getItems().size();
          done.complete((System.nanoTime() - s) / 1e6);
        });
        double t = done.get(60, TimeUnit.SECONDS);
        if (rep % 2 == 0) {
          ms[rep] = t;
        }
      }
      CompletableFuture<Integer> count = new CompletableFuture<>();
      Platform.runLater(() -> {
        vm.filter(expr);
        count.complete(table.getItems().size());
      });
      double[] measured = Arrays.stream(ms).filter(x -> x > 0).sorted().toArray();
      filterLines.add(String.format(Locale.ROOT, "  filter %-36s %7.1f ms median (%d runs), %,d rows match",
          "'" + expr + "'", measured[measured.length / 2], measured.length, count.get(30, TimeUnit.SECONDS)));
    }

    Runtime rt = Runtime.getRuntime();
    System.gc();
    long heap = rt.totalMemory() - rt.freeMemory();
    System.out.printf(Locale.ROOT, "flows: %,d (JDK %s, %d CPUs)%n", n, System.getProperty("java.version"),
        rt.availableProcessors());
    System.out.printf(Locale.ROOT, "  recorded by the producer in %.0f ms (%,.0f flows/s)%n",
        (produced - t0) / 1e6, n / ((produced - t0) / 1e9));
    System.out.printf(Locale.ROOT, "  all in the table after   %.0f ms (%,.0f flows/s end to end)%n",
        (shown - t0) / 1e6, n / ((shown - t0) / 1e9));
    System.out.printf(Locale.ROOT, "  UI thread while ingesting: a task posted every 10 ms waited p50 %.1f ms, p99 %.1f ms,"
        + " max %.1f ms (%d probes)%n", w[w.length / 2] / 1e6, w[(int) (w.length * 0.99)] / 1e6, w[w.length - 1] / 1e6, w.length);
    filterLines.forEach(System.out::println);
    System.out.printf(Locale.ROOT, "  heap after GC with %,d flows: %s%n", n, FlowRow.humanBytes(heap));
    vm.close();
    Platform.exit();
    System.exit(0);
  }
}
