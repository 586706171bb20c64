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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder's batches hold a flow noted in flight back once: one that ends before the next batch
 * is written once, ended; one still in flight then is written as it is (a kill loses at most about
 * two batches of it); an explicit flush writes everything at once. Batches are run by hand here.
 */
class RecorderHoldBackTest {
  @TempDir
  Path dir;

  @Test
  void aFlowInFlightWaitsOneBatchOnly() throws Exception {
    ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1) {
      @Override
      public ScheduledFuture<?> scheduleWithFixedDelay(Runnable r, long initial, long delay, TimeUnit unit) {
        return schedule(() -> { }, 1, TimeUnit.DAYS); // no timer: this test runs the batches
      }
    };
    RecordingStore store = new RecordingStore();
    try (SessionDb db = SessionDb.open(dir.resolve("s.loupe"), false); FlowWriter writer = new FlowWriter(db);
        Recorder r = new Recorder(db, writer, store, thread, p -> { })) {
      RecordedFlow slow = flow(store);
      assertThat(r.flush(false)).isTrue();
      assertThat(rows(db)).as("held back once").isZero();
      assertThat(r.flush(false)).isTrue();
      assertThat(rows(db)).as("still in flight at the next batch: written as it is").isEqualTo(1);
      assertThat(state(db, slow.id())).isEqualTo(FlowState.IN_FLIGHT.ordinal());

      long before = r.stats().flowsWritten();
      RecordedFlow quick = flow(store);
      assertThat(r.flush(false)).isTrue();
      assertThat(rows(db)).isEqualTo(1);
      end(store, quick);
      assertThat(r.flush(false)).isTrue();
      assertThat(rows(db)).isEqualTo(2);
      assertThat(state(db, quick.id())).isEqualTo(FlowState.COMPLETE.ordinal());
      assertThat(r.stats().flowsWritten() - before).as("ended within the batch window: one row written").isEqualTo(1);

      flow(store);
      assertThat(r.flush()).isTrue();
      assertThat(rows(db)).as("an explicit flush holds nothing back").isEqualTo(3);
      end(store, slow);
      assertThat(r.flush(false)).isTrue();
      assertThat(state(db, slow.id())).isEqualTo(FlowState.COMPLETE.ordinal());
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void aWriterFarBehindPausesCaptureUntilItHasCaughtUp() throws Exception {
    ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1) {
      @Override
      public ScheduledFuture<?> scheduleWithFixedDelay(Runnable r, long initial, long delay, TimeUnit unit) {
        return schedule(() -> { }, 1, TimeUnit.DAYS); // no timer
      }

      @Override
      public void execute(Runnable r) {
        // no triggered batches either: the writer is "starved", this test runs its batch
      }
    };
    RecordingStore store = new RecordingStore();
    java.util.List<String> told = new java.util.ArrayList<>();
    try (SessionDb db = SessionDb.open(dir.resolve("s.loupe"), false); FlowWriter writer = new FlowWriter(db);
        Recorder r = new Recorder(db, writer, store, thread, told::add)) {
      for (int i = 0; i < Recorder.MAX_BACKLOG; i++) {
        flow(store);
      }
      assertThat(store.capturing()).as("at the limit, still capturing").isTrue();
      flow(store);
      assertThat(store.capturing()).as("past the limit: paused").isFalse();
      RecordedFlow unseen = flow(store);
      assertThat(store.get(unseen.id())).as("a new flow is not recorded while paused").isNull();
      assertThat(r.flush()).isTrue();
      assertThat(rows(db)).as("everything that waited is written").isEqualTo(Recorder.MAX_BACKLOG + 1);
      assertThat(told).hasSize(2);
      assertThat(told.get(0)).contains("as fast as they come").contains("capture is paused");
      assertThat(told.get(1)).as("the notice is taken back").isNull();
      assertThat(store.capturing()).as("caught up: capturing again").isTrue();
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
