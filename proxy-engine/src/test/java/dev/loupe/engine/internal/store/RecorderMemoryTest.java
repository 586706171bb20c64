package dev.loupe.engine.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the recorder keeps in memory: written flows beyond {@code keep} leave the live store (none
 * kept: each leaves once it is on disk, and reads come from the file); events hand over only a
 * reference, so a flow noted many times between batches is written once, and a burst of events of
 * a few flows triggers a batch instead of growing the noted list. Batches are run by hand.
 */
class RecorderMemoryTest {
  @TempDir
  Path dir;

  /** A writer thread without the timer; triggered batches are counted and not run. */
  private static final class HandRun extends ScheduledThreadPoolExecutor {
    final AtomicInteger triggered = new AtomicInteger();

    HandRun() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable r, long initial, long delay, TimeUnit unit) {
      return schedule(() -> { }, 1, TimeUnit.DAYS);
    }

    @Override
    public void execute(Runnable r) {
      triggered.incrementAndGet();
    }
  }

  @Test
  void keepingNoneEveryEndedFlowLeavesMemoryOnceWritten() throws Exception {
    HandRun thread = new HandRun();
    RecordingStore store = new RecordingStore();
    try (SessionDb db = SessionDb.open(dir.resolve("s.loupe"), false); FlowWriter writer = new FlowWriter(db);
        Recorder r = new Recorder(db, writer, store, thread, p -> { }, 0)) {
      List<RecordedFlow> ended = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        RecordedFlow f = flow(store);
        end(store, f);
        ended.add(f);
      }
      RecordedFlow open = flow(store);
      assertThat(r.flush()).isTrue();
      assertThat(rows(db)).isEqualTo(6);
      for (RecordedFlow f : ended) {
        assertThat(store.get(f.id())).as("ended and written: forgotten").isNull();
        assertThat(single(db, "SELECT count(*) FROM body WHERE flow = " + f.id())).as("its body is in the file")
            .isEqualTo(1);
      }
      assertThat(store.get(open.id())).as("in flight: kept until it ends").isSameAs(open);
      end(store, open);
      assertThat(r.flush()).isTrue();
      assertThat(store.get(open.id())).isNull();
      assertThat(state(db, open.id())).isEqualTo(FlowState.COMPLETE.ordinal());
      assertThat(store.size()).isZero();
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void theNewestKeepStayInMemory() throws Exception {
    HandRun thread = new HandRun();
    RecordingStore store = new RecordingStore();
    try (SessionDb db = SessionDb.open(dir.resolve("s.loupe"), false); FlowWriter writer = new FlowWriter(db);
        Recorder r = new Recorder(db, writer, store, thread, p -> { }, 2)) {
      List<RecordedFlow> flows = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        RecordedFlow f = flow(store);
        end(store, f);
        flows.add(f);
      }
      assertThat(r.flush()).isTrue();
      assertThat(rows(db)).isEqualTo(5);
      assertThat(store.snapshot()).containsExactly(flows.get(3), flows.get(4));
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void aFlowNotedManyTimesIsWrittenOnceAndABurstOfEventsTriggersABatch() throws Exception {
    HandRun thread = new HandRun();
    RecordingStore store = new RecordingStore();
    try (SessionDb db = SessionDb.open(dir.resolve("s.loupe"), false); FlowWriter writer = new FlowWriter(db);
        Recorder r = new Recorder(db, writer, store, thread, p -> { }, 0)) {
      RecordedFlow a = flow(store);
      RecordedFlow b = flow(store);
      for (int i = 0; i < Recorder.BATCH_TRIGGER; i++) {
        store.updated(a);
        store.updated(b);
      }
      assertThat(thread.triggered).as("two flows waiting: no batch yet").hasValue(0);
      for (int i = 0; i < 2 * Recorder.BATCH_TRIGGER; i++) {
        store.updated(b);
      }
      assertThat(thread.triggered).as("the noted list is long: a batch is asked for").hasValue(1);
      assertThat(r.stats().pending()).as("two flows wait, however often noted").isEqualTo(2);
      end(store, b);
      end(store, a);
      assertThat(r.flush()).isTrue();
      assertThat(r.stats().flowsWritten()).isEqualTo(2);
      assertThat(r.stats().pending()).isZero();
      assertThat(state(db, a.id())).isEqualTo(FlowState.COMPLETE.ordinal());
      assertThat(state(db, b.id())).isEqualTo(FlowState.COMPLETE.ordinal());
    } finally {
      thread.shutdownNow();
    }
  }

  private static RecordedFlow flow(RecordingStore store) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
    f.timings().requestStart(System.nanoTime());
    f.request(new RequestHead("GET", "http", "h.example", 80, "/", "HTTP/1.1", Headers.EMPTY));
    store.add(f);
    return f;
  }

  private static void end(RecordingStore store, RecordedFlow f) {
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain")));
    f.responseBody().append(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)));
    f.timings().responseEnd(System.nanoTime());
    f.complete();
    store.completed(f);
  }

  private static int rows(SessionDb db) throws Exception {
    return single(db, "SELECT count(*) FROM flow");
  }

  private static int state(SessionDb db, long id) throws Exception {
    return single(db, "SELECT state FROM flow WHERE id = " + id);
  }

  private static int single(SessionDb db, String sql) throws Exception {
    Connection c = db.borrowReader();
    try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
      return r.next() ? r.getInt(1) : -1;
    } finally {
      db.returnReader(c);
    }
  }
}
