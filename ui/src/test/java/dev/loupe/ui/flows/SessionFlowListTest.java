package dev.loupe.ui.flows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.ui.flows.FlowListViewModelTest.ManualFx;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flow table's model over a session file: flows written and let go by the live store still
 * show, in order, read a page at a time; filters and sorts are answered by the store together with
 * the flows still in memory; rows held in memory stay bounded however many flows there are.
 */
@Timeout(120)
class SessionFlowListTest {
  @TempDir Path dir;

  private RecordedFlow record(RecordingStore store, int i, String method, int status, String body) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.parse("2026-01-01T00:00:00Z").plusMillis(i),
        new CapturePolicy(1 << 20, true, dir));
    f.clientProtocol("HTTP/1.1");
    f.timings().requestStart(1);
    f.request(new RequestHead(method, "https", "h" + (i % 5) + ".example", 443, "/item/" + i, "HTTP/1.1", Headers.EMPTY));
    store.add(f);
    f.response(new ResponseHead(status, "", "HTTP/1.1", Headers.of("content-type", "text/plain")));
    f.responseBody().append(ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)));
    f.timings().responseEnd(1 + i * 1000L);
    f.complete();
    store.completed(f);
    return f;
  }

  private static void pulse(FlowListViewModel vm, ManualFx fx) {
    assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
    vm.postBatch();
    fx.runAll();
  }

  @Test
  void storedAndLiveFlowsShowTogetherFilteredAndSortedByTheStore() throws Exception {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("t.loupe"), dir)) {
      session.record(store, p -> { });
      List<Flow> flows = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        flows.add(record(store, i, i % 3 == 0 ? "POST" : "GET", i % 10 == 0 ? 500 : 200, "body " + i));
      }
      session.flush();
      assertThat(store.size()).as("older flows left memory").isLessThan(3000);

      try (FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
        fx.runAll();
        assertThat(vm.rows()).hasSize(3000);
        assertThat(vm.countProperty().get()).isEqualTo(3000);
        assertThat(vm.rows().get(0).path()).isEqualTo("/item/0");
        assertThat(vm.rows().get(2999).path()).isEqualTo("/item/2999");
        assertThat(vm.rows().get(1234).flow().responseBody().bytes()).asString().isEqualTo("body 1234");

        // two new flows: one live still in flight, one ended
        RecordedFlow inFlight = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, dir));
        inFlight.timings().requestStart(1);
        inFlight.request(new RequestHead("POST", "https", "late.example", 443, "/late", "HTTP/1.1", Headers.EMPTY));
        store.add(inFlight);
        flows.add(record(store, 3001, "POST", 500, "last"));
        pulse(vm, fx);
        assertThat(vm.rows()).hasSize(3002);
        assertThat(vm.rows().get(3000).path()).isEqualTo("/late");

        vm.filter("~m POST & status>=500"); // column atoms: answered by SQL, plus the live flows
        fx.runAll();
        List<String> expected = new ArrayList<>();
        for (Flow f : flows) {
          if (f.request().method().equals("POST") && f.response().status() >= 500) {
            expected.add(f.request().target());
          }
        }
        assertThat(vm.visibleRows()).extracting(FlowRow::path).containsExactlyElementsOf(expected);

        vm.filter("~b \"body 29\""); // a body search: a streamed scan of the file
        fx.runAll();
        assertThat(vm.visibleRows()).extracting(FlowRow::path)
            .containsExactly("/item/29", "/item/290", "/item/291", "/item/292", "/item/293", "/item/294",
                "/item/295", "/item/296", "/item/297", "/item/298", "/item/299", "/item/2900", "/item/2901",
                "/item/2902", "/item/2903", "/item/2904", "/item/2905", "/item/2906", "/item/2907", "/item/2908",
                "/item/2909", "/item/2910", "/item/2911", "/item/2912", "/item/2913", "/item/2914", "/item/2915",
                "/item/2916", "/item/2917", "/item/2918", "/item/2919", "/item/2920", "/item/2921", "/item/2922",
                "/item/2923", "/item/2924", "/item/2925", "/item/2926", "/item/2927", "/item/2928", "/item/2929",
                "/item/2930", "/item/2931", "/item/2932", "/item/2933", "/item/2934", "/item/2935", "/item/2936",
                "/item/2937", "/item/2938", "/item/2939", "/item/2940", "/item/2941", "/item/2942", "/item/2943",
                "/item/2944", "/item/2945", "/item/2946", "/item/2947", "/item/2948", "/item/2949", "/item/2950",
                "/item/2951", "/item/2952", "/item/2953", "/item/2954", "/item/2955", "/item/2956", "/item/2957",
                "/item/2958", "/item/2959", "/item/2960", "/item/2961", "/item/2962", "/item/2963", "/item/2964",
                "/item/2965", "/item/2966", "/item/2967", "/item/2968", "/item/2969", "/item/2970", "/item/2971",
                "/item/2972", "/item/2973", "/item/2974", "/item/2975", "/item/2976", "/item/2977", "/item/2978",
                "/item/2979", "/item/2980", "/item/2981", "/item/2982", "/item/2983", "/item/2984", "/item/2985",
                "/item/2986", "/item/2987", "/item/2988", "/item/2989", "/item/2990", "/item/2991", "/item/2992",
                "/item/2993", "/item/2994", "/item/2995", "/item/2996", "/item/2997", "/item/2998", "/item/2999");

        vm.filter("");
        vm.sort(SortKey.STATUS, true); // 500s first (by id within), then 200s, the flow in flight (0) last
        fx.runAll();
        List<FlowRow> sorted = new ArrayList<>(vm.visibleRows());
        assertThat(sorted).hasSize(3002);
        for (int i = 1; i < sorted.size(); i++) {
          FlowRow a = sorted.get(i - 1);
          FlowRow b = sorted.get(i);
          assertThat(a.status() > b.status() || (a.status() == b.status() && a.id() > b.id()))
              .as("row %d (%d #%d) before row %d (%d #%d)", i - 1, a.status(), a.id(), i, b.status(), b.id())
              .isTrue();
        }
        assertThat(sorted.get(sorted.size() - 1).path()).isEqualTo("/late");

        // the flow in flight gets its response: it moves to its place among the 500s
        inFlight.response(new ResponseHead(503, "", "HTTP/1.1", Headers.EMPTY));
        inFlight.timings().responseEnd(2);
        inFlight.complete();
        store.completed(inFlight);
        pulse(vm, fx);
        assertThat(vm.visibleRows().get(0).path()).isEqualTo("/late");
        assertThat(vm.visibleRows()).hasSize(3002);

        // (rows of flows the store let go since the last sweep, every few batches, are moved to the cache then)
        assertThat(vm.liveRows()).as("rows held for live flows are bounded by the live store, not the session")
            .isLessThanOrEqualTo(store.size() + 64).isLessThan(1100);
      }
    }
  }

  @Test
  void aStarvedUiThreadStillLetsWrittenFlowsGo() throws Exception {
    // few, big batches (the UI thread seldom runs) and then no flow at all: the rows of flows the
    // session wrote and the store let go must not keep those flows in memory
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("starved.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { });
      fx.runAll();
      for (int batch = 0; batch < 3; batch++) {
        for (int i = 0; i < 6000; i++) {
          record(store, batch * 6000 + i, "GET", 200, "b");
        }
        session.flush();
        pulse(vm, fx);
        assertThat(vm.liveRows()).as("after big batch %d", batch)
            .isLessThanOrEqualTo(store.size() + FlowListViewModel.SWEEP_SLACK);
      }
      session.flush();
      for (int i = 0; i < 64; i++) { // pulses with nothing pending: one of them sweeps
        pulse(vm, fx);
      }
      assertThat(store.size()).isLessThan(2000);
      assertThat(vm.liveRows()).as("no flow arrives any more").isLessThanOrEqualTo(store.size());
      assertThat(vm.rows()).hasSize(18000);
      assertThat(vm.rows().get(17999).path()).isEqualTo("/item/17999");
    }
  }

  @Test
  void rowsOfFlowsTheSessionWroteLetTheirFlowsGoAndStillOpenFromTheFile() throws Exception {
    // the sweep moved such rows to the cache with their flows: up to 8,192 flows the store had let go stayed on the
    // heap, long enough for the collector to copy them again and again (issue 15: young pauses during an ingest)
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("swept.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { });
      fx.runAll();
      RecordedFlow first = record(store, 0, "POST", 201, "body 0");
      long id = first.id();
      java.lang.ref.ReferenceQueue<Flow> collected = new java.lang.ref.ReferenceQueue<>();
      WeakReference<Flow> firstFlow = new WeakReference<>(first, collected);
      first = null;
      for (int i = 1; i < 3000; i++) {
        record(store, i, "GET", 200, "body " + i);
      }
      pulse(vm, fx); // one batch: 3,000 live rows
      assertThat(vm.rows().get(0).flow()).as("a live row holds its flow").isSameAs(firstFlow.get());
      session.flush(); // written; the store keeps the newest 1,000
      assertThat(store.get(id)).isNull();
      for (int b = 1; b < FlowListViewModel.SWEEP_EVERY; b++) { // a few more batches, a flow each: a sweep
        record(store, 3000 + b, "GET", 200, "late");
        pulse(vm, fx);
      }
      assertThat(vm.liveRows()).as("swept within a few batches").isLessThanOrEqualTo(store.size());

      FlowRow row = vm.rows().get(0);
      assertThat(row.id()).isEqualTo(id);
      assertThat(row.ref()).as("a swept row holds no flow").isInstanceOf(RowSource.StoredRef.class);
      assertThat(row.paused()).isNull();
      assertThat(List.of(row.method(), row.status(), row.path())).as("its columns as shown")
          .containsExactly("POST", 201, "/item/0");
      row = null;
      for (int i = 0; i < 50 && firstFlow.get() != null; i++) {
        System.gc();
        collected.remove(20); // waits for the collector to enqueue it (or 20 ms, then asks again)
      }
      assertThat(firstFlow.get()).as("the flow left memory").isNull();

      Flow opened = vm.rows().get(0).flow(); // as the detail pane opens the row: read back from the file
      assertThat(opened).isNotNull();
      assertThat(opened.id()).isEqualTo(id);
      assertThat(opened.response().status()).isEqualTo(201);
      assertThat(opened.responseBody().bytes()).asString().isEqualTo("body 0");
    }
  }

  @Test
  void theRowOfAnEndedFlowHoldsNoFlowSoTheFlowLeavesWithTheStoreBeforeAnySweep() throws Exception {
    // the row made for an ended flow refers to it by id: while the store holds the flow the row gives the store's
    // object, and once the session wrote it and the store let it go nothing in the UI keeps it, not even until the
    // next sweep (a live row held it for up to a sweep's few batches: at 5,000 flows/s, 600 flows on the heap that
    // each young collection copied; docs/PERFORMANCE.md, "The UI thread at 10^6, fifth pass")
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("unheld.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { });
      fx.runAll();
      RecordedFlow first = record(store, 0, "POST", 201, "body 0");
      long id = first.id();
      java.lang.ref.ReferenceQueue<Flow> collected = new java.lang.ref.ReferenceQueue<>();
      WeakReference<Flow> firstFlow = new WeakReference<>(first, collected);
      first = null;
      RecordedFlow last = null;
      for (int i = 1; i <= 1200; i++) {
        last = record(store, i, "GET", 200, "body " + i);
      }
      pulse(vm, fx); // one batch, no sweep yet
      assertThat(vm.rows().get(0).flow()).as("the store's own object while it holds the flow")
          .isSameAs(firstFlow.get());
      assertThat(vm.rows().get(1200).flow()).isSameAs(last);
      session.flush(); // written; the store keeps the newest 1,000
      assertThat(store.get(id)).isNull();
      assertThat(vm.liveRows()).as("not swept").isEqualTo(1201);
      for (int i = 0; i < 50 && firstFlow.get() != null; i++) {
        System.gc();
        collected.remove(20);
      }
      assertThat(firstFlow.get()).as("the flow left memory with the store").isNull();

      FlowRow row = vm.rows().get(0);
      assertThat(List.of(row.method(), row.status(), row.path())).containsExactly("POST", 201, "/item/0");
      Flow opened = row.flow(); // read back from the file
      assertThat(opened.id()).isEqualTo(id);
      assertThat(opened.responseBody().bytes()).asString().isEqualTo("body 0");
      assertThat(vm.rows().get(1200).flow()).as("still the store's").isSameAs(last);
    }
  }

  @Test
  void flowsInFlightOrAtABreakpointKeepTheirLiveRowsUntilTheStoreLetsThemGo() throws Exception {
    // a flow the engine still writes, or the user edits at a breakpoint, is the store's object: its row must give
    // that object (the detail pane, the breakpoint editor), even after the session wrote the flow as it was
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("kept.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { });
      fx.runAll();
      RecordedFlow inFlight = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, dir));
      inFlight.timings().requestStart(1);
      inFlight.request(new RequestHead("GET", "https", "slow.example", 443, "/slow", "HTTP/1.1", Headers.EMPTY));
      store.add(inFlight);
      RecordedFlow atBreakpoint = new RecordedFlow(store.nextId(), Instant.now(),
          new CapturePolicy(1 << 20, true, dir));
      atBreakpoint.timings().requestStart(1);
      atBreakpoint.request(new RequestHead("PUT", "https", "edit.example", 443, "/edit", "HTTP/1.1", Headers.EMPTY));
      store.add(atBreakpoint);
      atBreakpoint.paused(Flow.Paused.REQUEST);
      store.updated(atBreakpoint);
      for (int i = 0; i < 3000; i++) {
        record(store, i, "GET", 200, "b");
      }
      pulse(vm, fx);
      session.flush(); // writes the two as they are, in flight
      assertThat(session.summaries(new long[] {inFlight.id(), atBreakpoint.id()}, 0, 2)).as("in the file")
          .hasSize(2);
      for (int b = 0; b < 2 * FlowListViewModel.SWEEP_EVERY; b++) {
        record(store, 3000 + b, "GET", 200, "b");
        pulse(vm, fx);
      }
      for (int i = 0; i < 64; i++) { // and the sweep of pulses with nothing pending
        pulse(vm, fx);
      }
      assertThat(vm.liveRows()).isLessThanOrEqualTo(store.size());

      FlowRow slow = vm.rows().get(0);
      FlowRow edited = vm.rows().get(1);
      assertThat(slow.id()).isEqualTo(inFlight.id());
      assertThat(slow.ref()).isInstanceOf(FlowRow.LiveRef.class);
      assertThat(slow.flow()).isSameAs(inFlight);
      assertThat(edited.id()).isEqualTo(atBreakpoint.id());
      assertThat(edited.flow()).as("the object the breakpoint editor changes").isSameAs(atBreakpoint);
      assertThat(edited.paused()).isEqualTo(Flow.Paused.REQUEST);

      // the flow ends, is written, and the store lets it go after 1,000 newer ones: then its row is swept, with
      // the columns of its end, and opens from the file as it ended
      inFlight.response(new ResponseHead(504, "", "HTTP/1.1", Headers.EMPTY));
      inFlight.timings().responseEnd(2);
      inFlight.complete();
      store.completed(inFlight);
      pulse(vm, fx);
      for (int i = 0; i < 1200; i++) {
        record(store, 4000 + i, "GET", 200, "b");
      }
      session.flush();
      assertThat(store.get(inFlight.id())).isNull();
      for (int b = 0; b < FlowListViewModel.SWEEP_EVERY; b++) {
        record(store, 6000 + b, "GET", 200, "b");
        pulse(vm, fx);
      }
      slow = vm.rows().get(0);
      assertThat(slow.ref()).isInstanceOf(RowSource.StoredRef.class);
      assertThat(slow.status()).isEqualTo(504);
      assertThat(slow.flow().response().status()).isEqualTo(504);
      assertThat(vm.rows().get(1).flow()).as("still paused: still the store's").isSameAs(atBreakpoint);
    }
  }

  @Test
  void aStateStillPendingWhenItsRowIsSweptMovesThatRowAndAddsNoOther() throws Exception {
    // the flow ends, the session writes it and the store lets it go before the UI's batch with its end is applied:
    // the sweep takes its row (a stored one now), then that batch comes; sorted by status, the row must move, not
    // be shown twice
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("race.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { });
      vm.sort(SortKey.STATUS, true);
      fx.runAll();
      RecordedFlow x = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, dir));
      x.timings().requestStart(1);
      x.request(new RequestHead("GET", "https", "x.example", 443, "/x", "HTTP/1.1", Headers.EMPTY));
      store.add(x);
      for (int b = 1; b < FlowListViewModel.SWEEP_EVERY; b++) { // the batch after these sweeps
        record(store, b, "GET", 200, "b");
        pulse(vm, fx);
      }
      record(store, 100, "GET", 200, "b");
      assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
      vm.postBatch(); // posted, not applied yet
      x.response(new ResponseHead(504, "", "HTTP/1.1", Headers.EMPTY));
      x.timings().responseEnd(2);
      x.complete();
      store.completed(x);
      for (int i = 0; i < 1200; i++) {
        record(store, 1000 + i, "GET", 200, "b");
      }
      session.flush();
      assertThat(store.get(x.id())).isNull();
      fx.runAll(); // the posted batch, and its sweep
      assertThat(vm.liveRows()).isLessThanOrEqualTo(store.size());
      pulse(vm, fx); // x's end

      assertThat(vm.visibleRows()).hasSize(1 + FlowListViewModel.SWEEP_EVERY + 1200);
      assertThat(vm.visibleRows().stream().mapToLong(FlowRow::id).distinct().count()).as("each flow once")
          .isEqualTo(vm.visibleRows().size());
      assertThat(vm.visibleRows().get(0).id()).isEqualTo(x.id());
      assertThat(vm.visibleRows().get(0).status()).isEqualTo(504);
    }
  }

  @Test
  void inIdOrderSweptRowsTheTableNeverReadAreDroppedAndReadBackWhenAsked() throws Exception {
    // every swept row went to the 8,192-row cache: at 5,000 flows/s the newest 1.6 s of rows, each outliving a young
    // collection, copied and promoted, although the table showed none of them (docs/PERFORMANCE.md, "The 10^6-flow
    // window's UI p99"); only rows the table read are kept now
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("dropped.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { });
      fx.runAll();
      for (int i = 0; i < 3000; i++) {
        record(store, i, i % 7 == 0 ? "POST" : "GET", 200 + i % 3, "body " + i);
      }
      pulse(vm, fx); // one batch: 3,000 live rows
      for (int i = 0; i < 10; i++) { // what the table shows
        assertThat(vm.visibleRows().get(i).path()).isEqualTo("/item/" + i);
      }
      session.flush(); // written; the store keeps the newest 1,000
      for (int b = 0; b < FlowListViewModel.SWEEP_EVERY; b++) { // a few more batches, a flow each: a sweep
        record(store, 3000 + b, "GET", 200, "late");
        pulse(vm, fx);
      }
      assertThat(vm.liveRows()).isLessThanOrEqualTo(store.size());
      assertThat(vm.cachedRows()).as("only the rows the table read are kept").isEqualTo(10);

      for (int i : new int[] {0, 9, 10, 1234, 1999}) { // every row still shows its columns, read from the file
        FlowRow row = vm.visibleRows().get(i);
        assertThat(List.of(row.id(), row.method(), row.status(), row.path()))
            .containsExactly(row.id(), i % 7 == 0 ? "POST" : "GET", 200 + i % 3, "/item/" + i);
        assertThat(row.ref()).isInstanceOf(RowSource.StoredRef.class);
      }
      assertThat(vm.visibleRows().get(1234).flow().responseBody().bytes()).asString().isEqualTo("body 1234");
    }
  }

  @Test
  void aStateStillPendingWhenItsRowWasDroppedFindsItsRowAfterTheOrderChanged() throws Exception {
    // in id order the sweep drops the row of a flow the table never read; its end, still pending then, comes after
    // the user sorted by status: the row must be found by the columns the file has (as the sorted list placed it),
    // not added a second time
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("dropped-race.loupe"), dir);
        FlowListViewModel vm = new FlowListViewModel(store, FlowCatalog.of(session), fx, 0, Runnable::run)) {
      session.record(store, p -> { }, 0); // the store forgets a flow as soon as it is written
      fx.runAll();
      RecordedFlow x = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, dir));
      x.timings().requestStart(1);
      x.request(new RequestHead("GET", "https", "x.example", 443, "/x", "HTTP/1.1", Headers.EMPTY));
      store.add(x);
      for (int b = 1; b < FlowListViewModel.SWEEP_EVERY; b++) { // the batch after these sweeps
        record(store, b, "GET", 200, "b");
        pulse(vm, fx);
      }
      record(store, 100, "GET", 200, "b");
      assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
      vm.postBatch(); // posted, not applied yet
      x.response(new ResponseHead(504, "", "HTTP/1.1", Headers.EMPTY));
      x.timings().responseEnd(2);
      x.complete();
      store.completed(x);
      session.flush();
      assertThat(store.get(x.id())).isNull();
      fx.runAll(); // the posted batch, and its sweep: every row (none read) dropped, x's among them
      assertThat(vm.cachedRows()).as("the rows were dropped").isZero();
      assertThat(vm.liveRows()).isZero();
      vm.sort(SortKey.STATUS, true);
      fx.runAll(); // the sorted answer, from the file: x (504) first
      assertThat(vm.visibleRows()).hasSize(1 + FlowListViewModel.SWEEP_EVERY);
      pulse(vm, fx); // x's end

      assertThat(vm.visibleRows()).hasSize(1 + FlowListViewModel.SWEEP_EVERY);
      assertThat(vm.visibleRows().stream().mapToLong(FlowRow::id).distinct().count()).as("each flow once")
          .isEqualTo(vm.visibleRows().size());
      assertThat(vm.visibleRows().get(0).id()).isEqualTo(x.id());
      assertThat(vm.visibleRows().get(0).status()).isEqualTo(504);
    }
  }

  @Test
  void storedRowsShowTheirClientWithoutLoadingTheFlow() throws Exception {
    // the Client column read the whole flow back from the file for every stored row it showed
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("client.loupe"), dir)) {
      session.record(store, p -> { });
      for (int i = 0; i < 3000; i++) {
        RecordedFlow f = new RecordedFlow(store.nextId(), Instant.parse("2026-01-01T00:00:00Z").plusMillis(i),
            new CapturePolicy(1 << 20, true, dir));
        f.request(new RequestHead("GET", "https", "h.example", 443, "/c/" + i, "HTTP/1.1", Headers.EMPTY));
        f.client(i % 2 == 0 ? "chrome-1" : null);
        store.add(f);
        f.complete();
        store.completed(f);
      }
      session.flush();
      CountingCatalog counting = new CountingCatalog(FlowCatalog.of(session));
      try (FlowListViewModel vm = new FlowListViewModel(store, counting, fx, 0, Runnable::run)) {
        fx.runAll();
        assertThat(store.get(vm.rows().get(10).id())).as("a stored row").isNull();
        assertThat(vm.rows().get(10).client()).isEqualTo("chrome-1");
        assertThat(vm.rows().get(11).client()).isEmpty();
        assertThat(vm.rows().get(2999).client()).isEmpty(); // live
        assertThat(vm.rows().get(2998).client()).isEqualTo("chrome-1");
        assertThat(counting.loads).as("no flow read whole for its row").hasValue(0);
      }
    }
  }

  @Test
  void aNewFilterDoesNotReadTheRowsItReplaces() throws Exception {
    // JavaFX's change builder reads a removed list element by element: replacing the rows reported every old row,
    // read back from the file a page at a time on the UI thread
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (Session session = Session.open(dir.resolve("replace.loupe"), dir)) {
      session.record(store, p -> { });
      for (int i = 0; i < 20_000; i++) {
        record(store, i, i % 3 == 0 ? "POST" : "GET", 200, "b");
      }
      session.flush();
      CountingCatalog counting = new CountingCatalog(FlowCatalog.of(session));
      try (FlowListViewModel vm = new FlowListViewModel(store, counting, fx, 0, Runnable::run)) {
        fx.runAll();
        assertThat(vm.visibleRows()).hasSize(20_000);
        int before = counting.pages.get();
        vm.filter("~m POST");
        fx.runAll();
        vm.filter("");
        fx.runAll();
        vm.sort(SortKey.STATUS, true);
        fx.runAll();
        assertThat(vm.visibleRows()).hasSize(20_000);
        // (placing the live flows among the stored ones sorted by status reads a few pages; reporting the old rows read
        // all 20,000 of them each time: 79 pages)
        assertThat(counting.pages.get() - before).as("pages read to replace 20,000 rows three times").isLessThan(40);
      }
    }
  }

  /** The catalog of a session, counting what is read through it. */
  private static final class CountingCatalog implements FlowCatalog {
    final FlowCatalog files;
    final java.util.concurrent.atomic.AtomicInteger loads = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.atomic.AtomicInteger pages = new java.util.concurrent.atomic.AtomicInteger();

    CountingCatalog(FlowCatalog files) {
      this.files = files;
    }

    @Override
    public void ids(dev.loupe.engine.filter.Filter filter, SortKey key, boolean descending,
        java.util.function.LongPredicate sink, java.util.function.BooleanSupplier stop)
        throws dev.loupe.engine.api.session.model.SessionException {
      files.ids(filter, key, descending, sink, stop);
    }

    @Override
    public java.util.Map<Long, dev.loupe.engine.api.session.model.FlowSummary> summaries(long[] ids, int from, int to)
        throws dev.loupe.engine.api.session.model.SessionException {
      pages.incrementAndGet();
      return files.summaries(ids, from, to);
    }

    @Override
    public Flow load(long id) throws dev.loupe.engine.api.session.model.SessionException {
      loads.incrementAndGet();
      return files.load(id);
    }

    @Override
    public void release(Flow loaded) {
      files.release(loaded);
    }
  }
}
