package dev.loupe.ui.flows;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.ui.flows.FlowListViewModelTest.ManualFx;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The table's window over the visible rows: it always holds the rows {@code [start, start + size)} of the list, its
 * changes rebuild it exactly (a copy kept only from the changes stays equal, removed rows included), and it changes
 * only when what it shows changes.
 */
@Timeout(60)
class RowWindowTest {
  @TempDir Path spillDir;

  private RecordedFlow flow(RecordingStore store, int i) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
    f.request(new RequestHead(i % 3 == 0 ? "POST" : "GET", "https", "h.example", 443, "/" + i, "HTTP/1.1",
        Headers.EMPTY));
    return f;
  }

  private static void respond(RecordingStore store, RecordedFlow f, int status) {
    f.response(new ResponseHead(status, "", "HTTP/1.1", Headers.EMPTY));
    f.complete();
    store.completed(f);
  }

  private static void pulse(FlowListViewModel vm, ManualFx fx) {
    assertThat(vm.awaitRecorded(10, TimeUnit.SECONDS)).isTrue();
    vm.postBatch();
    fx.runAll();
  }

  /**
   * The window's rows as rebuilt from its changes alone (a row updated in place is a new row object, so an update not
   * reported leaves the old one here); checks each change's removed rows on the way.
   */
  private static final class Mirror implements ListChangeListener<FlowRow> {
    final List<Long> ids = new ArrayList<>();
    final List<FlowRow> rows = new ArrayList<>();
    int changes;

    Mirror(RowWindow w) {
      for (int i = 0; i < w.size(); i++) {
        ids.add(w.idAt(i));
        rows.add(w.get(i));
      }
      w.addListener(this);
    }

    @Override
    public void onChanged(Change<? extends FlowRow> c) {
      changes++;
      while (c.next()) {
        assertThat(c.wasPermutated()).isFalse();
        List<Long> removed = ids.subList(c.getFrom(), c.getFrom() + c.getRemovedSize());
        assertThat(c.getRemoved()).extracting(FlowRow::id).containsExactlyElementsOf(removed);
        removed.clear();
        rows.subList(c.getFrom(), c.getFrom() + c.getRemovedSize()).clear();
        for (int i = c.getFrom(); i < c.getTo(); i++) {
          ids.add(i, c.getList().get(i).id());
          rows.add(i, c.getList().get(i));
        }
      }
    }
  }

  private static void assertWindow(RowWindow w, FlowListViewModel vm, Mirror mirror) {
    int total = vm.visibleRows().size();
    assertThat(w.total()).isEqualTo(total);
    assertThat(w.size()).isEqualTo(Math.min(w.capacity(), total));
    assertThat(w.start()).isBetween(0, Math.max(0, total - w.capacity()));
    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < w.size(); i++) {
      expected.add(vm.visibleRows().get(w.start() + i).id());
      assertThat(w.get(i)).isSameAs(vm.visibleRows().get(w.start() + i));
      assertThat(mirror.rows.get(i)).as("row %d as last reported", i).isSameAs(w.get(i));
    }
    assertThat(mirror.ids).as("rebuilt from the changes").containsExactlyElementsOf(expected);
  }

  @Test
  void followsEveryKindOfChangeExactly() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    Random random = new Random(7);
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      RowWindow w = new RowWindow(vm.visibleList(), 20);
      Mirror mirror = new Mirror(w);
      List<RecordedFlow> inFlight = new ArrayList<>();
      String[] filters = {"", "~m POST", "!~m POST", "status>=400 | ~m GET", ""};
      SortKey[] keys = {SortKey.ID, SortKey.STATUS, SortKey.PATH};
      int made = 0;
      for (int step = 0; step < 400; step++) {
        int op = random.nextInt(10);
        if (op < 4) { // new flows, some answered at once
          for (int k = random.nextInt(12); k >= 0; k--) {
            RecordedFlow f = flow(store, made++);
            store.add(f);
            if (random.nextBoolean()) {
              respond(store, f, random.nextBoolean() ? 200 : 404);
            } else {
              inFlight.add(f);
            }
          }
          pulse(vm, fx);
        } else if (op < 6 && !inFlight.isEmpty()) { // flows answered: rows updated in place or moved (by status)
          for (int k = random.nextInt(4); k >= 0 && !inFlight.isEmpty(); k--) {
            respond(store, inFlight.remove(random.nextInt(inFlight.size())), random.nextBoolean() ? 500 : 201);
          }
          pulse(vm, fx);
        } else if (op == 6) {
          vm.filter(filters[random.nextInt(filters.length)]);
          fx.runAll();
        } else if (op == 7) {
          vm.sort(keys[random.nextInt(keys.length)], random.nextBoolean());
          fx.runAll();
        } else {
          w.moveTo(random.nextInt(Math.max(1, w.total())));
        }
        assertWindow(w, vm, mirror);
      }
      assertThat(made).isGreaterThan(200);
    }
  }

  @Test
  void aFullWindowAwayFromTheEndDoesNotChangeWhileRowsArriveThere() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      RowWindow w = new RowWindow(vm.visibleList(), 10);
      for (int i = 0; i < 30; i++) {
        RecordedFlow f = flow(store, i);
        store.add(f);
        respond(store, f, 200);
      }
      pulse(vm, fx);
      w.moveTo(5);
      Mirror mirror = new Mirror(w);
      for (int i = 30; i < 60; i++) {
        RecordedFlow f = flow(store, i);
        store.add(f);
        respond(store, f, 200);
        pulse(vm, fx);
      }
      assertThat(mirror.changes).as("nothing the table holds changed").isZero();
      assertThat(w.start()).isEqualTo(5);
      assertThat(w.total()).isEqualTo(60);
      assertWindow(w, vm, mirror);

      w.moveTo(8); // a small move: one change, three rows out at the top, three in at the bottom
      assertThat(mirror.changes).isEqualTo(1);
      assertWindow(w, vm, mirror);
    }
  }

  @Test
  void aWindowAtTheTopShowsNewestFirstRowsAndOneFurtherDownKeepsItsRows() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      vm.sort(SortKey.ID, true); // newest first: new rows come at the top
      fx.runAll();
      RowWindow w = new RowWindow(vm.visibleList(), 10);
      Mirror mirror = new Mirror(w);
      for (int i = 0; i < 25; i++) {
        RecordedFlow f = flow(store, i);
        store.add(f);
        respond(store, f, 200);
      }
      pulse(vm, fx);
      assertThat(w.start()).isZero();
      assertThat(w.get(0).path()).isEqualTo("/24");
      assertWindow(w, vm, mirror);

      w.moveTo(10);
      long firstShown = w.idAt(0);
      for (int i = 25; i < 30; i++) {
        RecordedFlow f = flow(store, i);
        store.add(f);
        respond(store, f, 200);
      }
      int before = mirror.changes;
      pulse(vm, fx);
      assertThat(mirror.changes).as("rows added above the window change nothing in it").isEqualTo(before);
      assertThat(w.start()).isEqualTo(15);
      assertThat(w.idAt(0)).isEqualTo(firstShown);
      assertWindow(w, vm, mirror);
    }
  }

  @Test
  void aRowInsertedInsideTheWindowIsOneAdditionAndTheRowsAroundItStay() {
    RecordingStore store = new RecordingStore();
    ManualFx fx = new ManualFx();
    try (FlowListViewModel vm = new FlowListViewModel(store, fx, 0, Runnable::run)) {
      vm.sort(SortKey.STATUS, false);
      fx.runAll();
      for (int i = 0; i < 16; i++) {
        RecordedFlow f = flow(store, i);
        store.add(f);
        respond(store, f, i < 8 ? 200 : 500);
      }
      pulse(vm, fx);
      RowWindow w = new RowWindow(vm.visibleList(), 20);
      Mirror mirror = new Mirror(w);
      List<String> seen = new ArrayList<>();
      w.addListener((ListChangeListener<FlowRow>) c -> {
        while (c.next()) {
          seen.add(c.getFrom() + ".." + c.getTo() + " -" + c.getRemovedSize());
        }
      });
      RecordedFlow f = flow(store, 99);
      store.add(f);
      respond(store, f, 404);
      pulse(vm, fx);
      assertThat(seen).containsExactly("8..9 -0");
      assertThat(w.get(8).path()).isEqualTo("/99");
      assertWindow(w, vm, mirror);
    }
  }
}
