package dev.loupe.ui.flows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.ui.common.FxThread;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlowListViewModelTest {
  @TempDir Path spillDir;

  /** A UI thread run by hand: posted tasks wait until {@link #runAll()} or {@link #runNext}. */
  static final class ManualFx implements FxThread {
    final java.util.concurrent.LinkedBlockingQueue<Runnable> tasks = new java.util.concurrent.LinkedBlockingQueue<>();

    @Override
    public void post(Runnable task) {
      tasks.add(task);
    }

    int runAll() {
      List<Runnable> now = new ArrayList<>();
      tasks.drainTo(now);
      now.forEach(Runnable::run);
      return now.size();
    }

    /** Waits for the next posted task and runs it; false if none came in time. */
    boolean runNext(long timeout, TimeUnit unit) throws InterruptedException {
      Runnable task = tasks.poll(timeout, unit);
      if (task != null) {
        task.run();
      }
      return task != null;
    }
  }

  private RecordedFlow flow(RecordingStore store, String method, String host, String path) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
    f.clientProtocol("HTTP/2");
    f.request(new RequestHead(method, "https", host, 443, path, "HTTP/2", Headers.EMPTY));
    return f;
  }

  private static void respond(RecordedFlow f, int status, String type, int bytes) {
    f.serverProtocol("HTTP/1.1");
    f.response(new ResponseHead(status, "", "HTTP/1.1", Headers.of(List.of(new Headers.Field("content-type", type)))));
    f.responseBody().append(ByteBuffer.wrap(new byte[bytes]));
    f.complete();
  }

  /** Delivers the store's events and applies the batch they make, as the pulse would. */
  private static void pulse(FlowListViewModel vm, ManualFx fx) {
    assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
    vm.postBatch();
    fx.runAll();
  }

  @Test
  void flowsBecomeRowsInArrivalOrderAndUpdatesReplaceTheirRow() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      RecordedFlow a = flow(store, "GET", "example.com", "/a");
      RecordedFlow b = flow(store, "POST", "api.example.com", "/b?x=1");
      store.add(a);
      store.add(b);
      pulse(vm, fx);
      assertThat(vm.rows()).extracting(FlowRow::path).containsExactly("/a", "/b?x=1");
      assertThat(vm.rows().get(0).state()).isEqualTo(FlowState.IN_FLIGHT);
      assertThat(vm.rows().get(0).durationMs()).isEqualTo(-1);

      respond(a, 200, "application/json; charset=utf-8", 1234);
      store.completed(a);
      pulse(vm, fx);
      FlowRow row = vm.rows().get(0);
      assertThat(row.status()).isEqualTo(200);
      assertThat(row.contentType()).isEqualTo("application/json");
      assertThat(row.size()).isEqualTo(1234);
      assertThat(row.clientProto()).isEqualTo("h2");
      assertThat(row.serverProto()).isEqualTo("h1");
      assertThat(row.state()).isEqualTo(FlowState.COMPLETE);
      assertThat(vm.countProperty().get()).isEqualTo(2);
    }
  }

  @Test
  void aBurstOfEventsIsOneBatchWithOneAdditionPerBatch() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      List<ListChangeListener.Change<? extends FlowRow>> changes = new ArrayList<>();
      vm.rows().addListener((ListChangeListener<FlowRow>) c -> changes.add(c));
      for (int i = 0; i < 5_000; i++) {
        RecordedFlow f = flow(store, "GET", "h" + (i % 50) + ".example", "/" + i);
        store.add(f);
        for (int u = 0; u < 3; u++) {
          store.updated(f); // coalesced: the newest state per flow wins
        }
      }
      assertThat(vm.awaitRecorded(30, TimeUnit.SECONDS)).isTrue();
      vm.postBatch();
      vm.postBatch(); // one batch in flight at most
      assertThat(fx.runAll()).isEqualTo(1);
      assertThat(vm.rows()).hasSize(5_000);
      assertThat(changes).as("one list change for the whole burst").hasSize(1);
    }
  }

  @Test
  void theFilterNarrowsTheVisibleRowsAndASyntaxErrorKeepsThePreviousOne() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      RecordedFlow ok = flow(store, "GET", "example.com", "/ok");
      RecordedFlow bad = flow(store, "POST", "api.example.com", "/fail");
      store.add(ok);
      store.add(bad);
      respond(ok, 200, "text/html", 10);
      respond(bad, 500, "application/json", 10);
      store.completed(ok);
      store.completed(bad);
      pulse(vm, fx);

      vm.filter("status>=400 & ~m POST");
      fx.runAll(); // the worker's answer
      assertThat(vm.visibleRows()).extracting(FlowRow::path).containsExactly("/fail");
      assertThat(vm.filterErrorProperty().get()).isEmpty();

      vm.filter("(~d example");
      fx.runAll();
      assertThat(vm.filterErrorProperty().get()).contains("')'");
      assertThat(vm.visibleRows()).as("previous filter still applies").extracting(FlowRow::path)
          .containsExactly("/fail");

      vm.filter("");
      assertThat(vm.visibleRows()).hasSize(2);
    }
  }

  @Test
  void thePulseAppliesBatchesByItself() throws Exception {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 30, Runnable::run)) {
      store.add(flow(store, "GET", "example.com", "/pulsed"));
      assertThat(fx.runNext(10, TimeUnit.SECONDS)).as("the pulse posted a batch").isTrue();
      assertThat(vm.rows()).extracting(FlowRow::path).containsExactly("/pulsed");
    }
  }

  @Test
  void sizesReadAsBinaryUnits() {
    assertThat(FlowRow.humanBytes(335)).isEqualTo("335 B");
    assertThat(FlowRow.humanBytes(2048)).isEqualTo("2.0 KiB");
    assertThat(FlowRow.humanBytes(19_415_010)).isEqualTo("19 MiB");
  }

  @Test
  void theFilterRunsOnAWorkerAndOnlyTheNewestAnswerIsAppliedWithRowsUpdatedMeanwhileMatchedAnew() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    java.util.concurrent.LinkedBlockingQueue<Runnable> worker = new java.util.concurrent.LinkedBlockingQueue<>();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, worker::add)) {
      RecordedFlow done = flow(store, "GET", "example.com", "/done");
      RecordedFlow late = flow(store, "POST", "example.com", "/late");
      store.add(done);
      store.add(late);
      respond(done, 404, "text/html", 10);
      store.completed(done);
      pulse(vm, fx);

      vm.filter("~m GET");
      vm.filter("status>=400"); // typed on before the first answer came
      assertThat(vm.filteringProperty().get()).isTrue();
      assertThat(vm.visibleRows()).as("nothing changes until the answer").hasSize(2);

      respond(late, 503, "text/html", 10); // /late answers while the worker matches the old rows
      store.completed(late);
      pulse(vm, fx);

      worker.forEach(Runnable::run);
      fx.runAll();
      assertThat(vm.filteringProperty().get()).isFalse();
      assertThat(vm.visibleRows()).extracting(FlowRow::path).as("status>=400, /late matched with its new status")
          .containsExactly("/done", "/late");
    }
  }

  @Test
  void rowsMadeBeforeAClearAreDroppedAndABatchMatchedWithAnOlderFilterIsMatchedAgain() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      store.add(flow(store, "GET", "example.com", "/before-clear"));
      assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
      vm.postBatch(); // the rows are made here (the pulse thread), applied when the UI thread runs
      vm.clear();
      fx.runAll();
      assertThat(vm.rows()).as("made before the clear").isEmpty();

      store.add(flow(store, "POST", "example.com", "/post"));
      store.add(flow(store, "GET", "example.com", "/get"));
      assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
      vm.filter("~m POST"); // answered on the worker (inline here); shown when the UI thread runs
      vm.postBatch(); // matched with the filter shown until then (everything): matched again once applied
      fx.runAll();
      assertThat(vm.rows()).extracting(FlowRow::path).containsExactly("/post", "/get");
      assertThat(vm.visibleRows()).extracting(FlowRow::path).containsExactly("/post");
    }
  }
}
