package dev.loupe.engine.internal.store;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Writes the flows of a live {@link FlowStore} into a session file, in batches, off the event loops.
 *
 * <h3>Path of a flow</h3>
 * Flow events reach {@link #onEvent} on the thread that publishes them (an event loop; see
 * {@link RecordingStore#subscribeInline}), which only notes the flow (newest state wins) under a lock
 * the writer holds just long enough to take the noted map. Every {@link #FLUSH_MILLIS} ms, or sooner when many are waiting, the writer
 * thread writes every noted flow in one transaction: its row as it is now, new WebSocket messages,
 * and, once it has ended, its bodies. A flow noted in flight waits for one more batch first (most
 * flows end within it, and are then written once instead of twice); one still in flight then is
 * written as it is, so a long request is on disk within about two batches of its start. After the
 * commit, ended flows beyond the newest {@link #CACHE} leave the store's memory
 * ({@link FlowStore#forget}); the session reads them back from the file. Nothing on an event loop
 * ever waits for this.
 *
 * <h3>Failures</h3>
 * A batch that cannot be written (a full disk, above all) is rolled back and kept; capture is paused
 * ({@link FlowStore#capturing(boolean)}: the proxy keeps relaying, new flows are not recorded) and the
 * problem is reported to the listener. Everything committed before stays. {@link #resume} retries
 * the batch and, if it goes through, turns capture back on. A writer that cannot keep up (more than
 * {@link #MAX_BACKLOG} flows waiting: a starved CPU, a slow disk) pauses capture the same way until
 * it has written them, so the waiting flows cannot fill the heap.
 *
 * <h3>Threads</h3>
 * {@link #pending} is guarded by its own lock; everything else is confined to the writer thread.
 */
public final class Recorder implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Recorder.class.getName());
  /** How often noted flows are written: a killed Loupe loses at most about this much. */
  static final long FLUSH_MILLIS = 100;
  /** Noted flows that trigger a batch before the next tick. */
  static final int BATCH_TRIGGER = 4000;
  /** Ended, written flows the live store keeps in memory (the newest), for quick access. */
  static final int CACHE = 1000;
  /** Flows written per transaction at most: a writer catching up commits (and frees memory) as it goes. */
  static final int TRANSACTION = 4000;
  /**
   * Flows waiting to be written beyond which capture pauses until they are (the proxy keeps
   * relaying): a writer that cannot keep up (a slow disk, a starved CPU) must not fill the heap.
   */
  static final int MAX_BACKLOG = 100_000;

  private final SessionDb db;
  private final FlowWriter writer;
  private final FlowStore store;
  private final ScheduledExecutorService thread;
  private final Consumer<String> problems;
  private final Object lock = new Object();
  /** Flows noted since the last batch, first-noted order (guarded by lock). */
  private LinkedHashMap<Long, Flow> pending = new LinkedHashMap<>();
  private boolean triggered;
  private final FlowStore.Subscription subscription;
  private final ScheduledFuture<?> ticks;
  // writer thread only:
  private final Map<Long, Integer> messagesWritten = new HashMap<>();
  private final Set<Long> bodiesWritten = new HashSet<>();
  /** Flows a batch held back once because they were in flight (until they end). */
  private final Set<Long> heldBack = new HashSet<>();
  private final ArrayDeque<Flow> written = new ArrayDeque<>();
  private volatile String problem;
  /** Capture paused because more than {@link #MAX_BACKLOG} flows waited (set by a publisher, cleared by the writer). */
  private volatile boolean overloaded;
  /** Whether the listener was told of it (writer thread only). */
  private boolean overloadTold;
  private final AtomicLong flowsWritten = new AtomicLong();
  private final AtomicLong batches = new AtomicLong();
  private final AtomicLong writeNanos = new AtomicLong();
  private volatile long maxBatchNanos;

  /**
   * Starts following {@code store} (flows already in it are noted first).
   *
   * @param problems told (on the writer thread) a sentence when writing fails and capture pauses,
   *     and null when it works again
   */
  public Recorder(SessionDb db, FlowWriter writer, FlowStore store, ScheduledExecutorService thread,
      Consumer<String> problems) {
    this.db = db;
    this.writer = writer;
    this.store = store;
    this.thread = thread;
    this.problems = problems;
    this.subscription = RecordingStore.of(store).subscribeInline(this::onEvent);
    for (Flow f : store.snapshot()) {
      note(f);
    }
    this.ticks = thread.scheduleWithFixedDelay(this::tick, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void onEvent(FlowEvent e) {
    // a late event for a flow the store no longer holds (forgotten once written, or cleared) is
    // ignored: its spill files may be gone, and the file already has it (or should not)
    if (store.get(e.flow().id()) == e.flow()) {
      note(e.flow());
    }
  }

  private void note(Flow f) {
    boolean trigger;
    int waiting;
    synchronized (lock) {
      pending.put(f.id(), f);
      waiting = pending.size();
      trigger = waiting >= BATCH_TRIGGER && !triggered;
      if (trigger) {
        triggered = true;
      }
    }
    if (waiting > MAX_BACKLOG && !overloaded) {
      overloaded = true; // the writer says why, and turns capture back on once it has caught up
      store.capturing(false);
    }
    if (trigger) {
      thread.execute(this::tick);
    }
  }

  /** A batch of the writer's own (timer or trigger): young flows in flight may wait for the next. */
  private void tick() {
    try {
      flush(false);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "writing the session " + db.file() + " failed", e);
    }
  }

  /** On the writer thread: writes everything noted. False when writing failed (and capture paused). */
  boolean flush() {
    return flush(true);
  }

  /**
   * On the writer thread: writes what is noted. Unless {@code all}, a flow noted in flight that was
   * not held back before waits for the next batch instead (most end before it, and are then written
   * once, ended, instead of twice); a flow still in flight then is written as it is. So a flow is on
   * disk at most about two batches ({@code 2 x FLUSH_MILLIS}) after it started.
   */
  boolean flush(boolean all) {
    if (problem != null) {
      return false; // paused until resume()
    }
    LinkedHashMap<Long, Flow> batch;
    synchronized (lock) {
      if (pending.isEmpty()) {
        triggered = false;
        return true;
      }
      batch = pending;
      pending = new LinkedHashMap<>();
      triggered = false;
    }
    long t0 = System.nanoTime();
    if (overloaded && !overloadTold) {
      overloadTold = true;
      String why = "Loupe cannot write flows to " + db.file() + " as fast as they come (" + batch.size()
          + " waiting): capture is paused until they are written (traffic is still relayed).";
      LOG.warning(why);
      problems.accept(why);
    }
    Flow[] flows = batch.values().toArray(new Flow[0]);
    LinkedHashMap<Long, Flow> later = new LinkedHashMap<>();
    int count = 0;
    for (int from = 0; from < flows.length; from += TRANSACTION) {
      int to = Math.min(flows.length, from + TRANSACTION);
      Exception e = transaction(flows, from, to, all, later);
      if (e != null) {
        LinkedHashMap<Long, Flow> back = later; // held back first, then the rest, then what was noted meanwhile
        for (int i = from; i < flows.length; i++) {
          back.put(flows[i].id(), flows[i]);
        }
        synchronized (lock) {
          back.putAll(pending);
          pending = back;
        }
        fail(e);
        return false;
      }
      count += to - from;
    }
    if (!later.isEmpty()) {
      synchronized (lock) { // held back: in front of what was noted meanwhile
        later.putAll(pending);
        pending = later;
      }
    }
    if (overloaded) {
      overloaded = false;
      store.capturing(true);
      if (overloadTold) {
        overloadTold = false;
        problems.accept(null);
      }
    }
    long took = System.nanoTime() - t0;
    flowsWritten.addAndGet(count - later.size());
    batches.incrementAndGet();
    writeNanos.addAndGet(took);
    maxBatchNanos = Math.max(maxBatchNanos, took);
    return true;
  }

  /**
   * Writes {@code flows[from, to)} in one transaction (flows in flight noted for the first time go
   * to {@code later} instead, unless {@code all}); after the commit, ended flows beyond the cache
   * leave memory. Returns the failure, after rolling back, or null.
   */
  private Exception transaction(Flow[] flows, int from, int to, boolean all, Map<Long, Flow> later) {
    Map<Long, Integer> messagesBefore = null;
    // the flows whose bodies this transaction wrote: decided once per flow, as it may end while we write
    java.util.List<Flow> ended = new java.util.ArrayList<>(to - from);
    Connection c = db.writer();
    try {
      c.setAutoCommit(false);
      for (int i = from; i < to; i++) {
        Flow f = flows[i];
        // the state is read once: a flow that ends while we write waits for the next batch
        FlowState state = f.state();
        if (!all && state == FlowState.IN_FLIGHT && heldBack.add(f.id())) {
          later.put(f.id(), f);
          continue;
        }
        boolean end = state != FlowState.IN_FLIGHT && !bodiesWritten.contains(f.id());
        writer.queueRow(f, state);
        if (f.isWebSocket() || !f.webSocketMessages().isEmpty()) {
          int before = messagesWritten.getOrDefault(f.id(), 0);
          if (messagesBefore == null) {
            messagesBefore = new HashMap<>();
          }
          messagesBefore.put(f.id(), before);
          messagesWritten.put(f.id(), writer.messages(f, before));
        }
        if (end) {
          writer.queueBodies(f);
          ended.add(f);
        }
      }
      writer.flushQueued();
      c.commit();
    } catch (SQLException | IOException | FlowWriter.WriteFailure e) {
      rollback(c);
      if (messagesBefore != null) {
        messagesWritten.putAll(messagesBefore);
      }
      for (int i = from; i < to; i++) { // held back in this transaction: written as they are when tried again
        later.remove(flows[i].id());
      }
      return e;
    } finally {
      try {
        c.setAutoCommit(true);
      } catch (SQLException ignored) {
        // the next batch sets it again
      }
    }
    for (Flow f : ended) {
      Long id = f.id();
      if (!heldBack.isEmpty()) {
        heldBack.remove(id);
      }
      bodiesWritten.add(id);
      if (!messagesWritten.isEmpty()) {
        messagesWritten.remove(id);
      }
      written.add(f);
    }
    while (written.size() > CACHE) {
      forget(written.poll());
    }
    return null;
  }

  /** The flow leaves memory; its spill files (saved in the session) are deleted. */
  private void forget(Flow f) {
    bodiesWritten.remove(f.id());
    store.forget(f);
    RecordedFlow r = RecordedFlow.of(f);
    for (RecordedBody b : new RecordedBody[] {r.requestBody(), r.responseBody(), r.originalRequestBody(),
        r.originalResponseBody()}) {
      if (b != null && b.spilled()) {
        b.release();
      }
    }
  }

  private void rollback(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // SQLite rolled back already (a full disk aborts the transaction)
    }
    writer.rolledBack();
  }

  private void fail(Exception e) {
    Throwable cause = e instanceof FlowWriter.WriteFailure w ? w.sql() : e;
    String why = SessionDb.diskFull(cause)
        ? "The disk holding " + db.file() + " is full: capture is paused (traffic is still relayed; the flows saved"
            + " so far are safe). Free some space, then resume."
        : "Cannot write the session " + db.file() + " (" + cause.getMessage() + "): capture is paused (traffic is"
            + " still relayed; the flows saved so far are safe).";
    LOG.log(Level.WARNING, why, cause);
    problem = why;
    store.capturing(false);
    problems.accept(why);
  }

  /** Why writing stopped, or null while it works. */
  public String problem() {
    return problem;
  }

  /**
   * On the writer thread: tries the waiting flows again; on success clears the problem and turns
   * capture back on. Returns whether writing works now.
   */
  boolean resume() {
    if (problem == null) {
      return true;
    }
    problem = null;
    if (flush()) {
      store.capturing(true);
      problems.accept(null);
      return true;
    }
    return false;
  }

  /** Waits (up to {@code millis}) until every flow event published so far has been noted. */
  public boolean awaitNoted(long millis) {
    return subscription.awaitIdle(millis, TimeUnit.MILLISECONDS);
  }

  /** On the writer thread: drops what is noted and what is known of written flows (the session was cleared). */
  void cleared() {
    synchronized (lock) {
      pending = new LinkedHashMap<>();
    }
    messagesWritten.clear();
    bodiesWritten.clear();
    heldBack.clear();
    written.clear();
  }

  /** Flows written, batches, total and longest batch time (for benchmarks and the status line). */
  public Stats stats() {
    int waiting;
    synchronized (lock) {
      waiting = pending.size();
    }
    return new Stats(flowsWritten.get(), batches.get(), writeNanos.get(), maxBatchNanos, waiting);
  }

  /** Writing statistics; {@code pending} is what waits for the next batch. */
  public record Stats(long flowsWritten, long batches, long writeNanos, long maxBatchNanos, int pending) {}

  /** Stops following the store. The caller flushes first (on the writer thread) if it wants the rest. */
  @Override
  public void close() {
    ticks.cancel(false);
    subscription.close();
  }
}
