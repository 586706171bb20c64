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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
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
 * {@link RecordingStore#subscribeInline}), which only appends the flow's reference to a list (no
 * lookup, no allocation but the list's amortised growth) under a lock the writer holds just long
 * enough to swap the list for an empty one. The writer drops repeats (a flow noted several times is
 * written once, as it is when written) and flows the store no longer holds (a late event for a flow
 * forgotten once written, or cleared: the file has it, or should not). Every {@link #FLUSH_MILLIS} ms, or sooner when many are waiting, the writer
 * thread writes every noted flow in one transaction: its row as it is now, new WebSocket messages,
 * and, once it has ended, its bodies. A flow noted in flight waits for one more batch first (most
 * flows end within it, and are then written once instead of twice); one still in flight then is
 * written as it is, so a long request is on disk within about two batches of its start. After the
 * commit, ended flows beyond the newest {@code keep} ({@link #CACHE} unless the caller chose fewer:
 * headless keeps none, as nobody browses its flows) leave the store's memory ({@link FlowStore#forget});
 * the session reads them back from the file. Every flow kept in memory longer is one more the young
 * collections copy: a recording Loupe's GC cost and heap grow with it. Nothing on an event loop
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
 * {@link #noted}, {@link #newFlows} and {@link #triggered} are guarded by {@link #lock}; {@link #carried}
 * is written by the writer and read by publishers; everything else is confined to the writer thread.
 */
public final class Recorder implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(Recorder.class.getName());
  /** How often noted flows are written: a killed Loupe loses at most about this much. */
  static final long FLUSH_MILLIS = 100;
  /** Noted flows that trigger a batch before the next tick. */
  static final int BATCH_TRIGGER = 4000;
  /** Ended, written flows the live store keeps in memory (the newest), for quick access. */
  static final int CACHE = dev.loupe.engine.api.session.Session.KEEP_IN_MEMORY;
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
  /** Flows as events noted them since the writer last took them, with repeats (guarded by lock). */
  private ArrayList<Flow> noted = new ArrayList<>();
  /** New flows among {@link #noted} (guarded by lock). */
  private int newFlows;
  private boolean triggered;
  /** The writer's empty list, swapped for {@link #noted} when it takes them (writer thread only). */
  private ArrayList<Flow> spare = new ArrayList<>();
  /**
   * Flows taken from {@link #noted} and waiting to be written, first-noted order, each once (held
   * back in flight, kept after a failed batch, or not yet written); {@link #carrying} holds the same
   * flows (writer thread only).
   */
  private ArrayList<Flow> carry = new ArrayList<>();
  private IdentityHashMap<Flow, Flow> carrying = new IdentityHashMap<>();
  /** {@link #carry}'s size, for publishers' backlog check. */
  private volatile int carried;
  private final FlowStore.Subscription subscription;
  private final ScheduledFuture<?> ticks;
  // writer thread only:
  private final Map<Long, Integer> messagesWritten = new HashMap<>();
  private final Set<Long> bodiesWritten = new HashSet<>();
  /** Flows a batch held back once because they were in flight (until they end). */
  private final Set<Long> heldBack = new HashSet<>();
  private final ArrayDeque<Flow> written = new ArrayDeque<>();
  /** Ended, written flows kept in the store's memory (the newest). */
  private final int keep;
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
    this(db, writer, store, thread, problems, CACHE);
  }

  /**
   * As above, keeping the newest {@code keep} ended, written flows in the store's memory (0: every
   * flow leaves it once it is on disk).
   */
  public Recorder(SessionDb db, FlowWriter writer, FlowStore store, ScheduledExecutorService thread,
      Consumer<String> problems, int keep) {
    if (keep < 0) {
      throw new IllegalArgumentException("keep: " + keep);
    }
    this.keep = keep;
    this.db = db;
    this.writer = writer;
    this.store = store;
    this.thread = thread;
    this.problems = problems;
    this.subscription = RecordingStore.of(store).subscribeInline(this::onEvent);
    for (Flow f : store.snapshot()) {
      note(f, true);
    }
    this.ticks = thread.scheduleWithFixedDelay(this::tick, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** On the publishing thread (an event loop): hands the flow's reference over, nothing else. */
  private void onEvent(FlowEvent e) {
    note(e.flow(), e.type() == FlowEvent.Type.ADDED);
  }

  private void note(Flow f, boolean isNew) {
    boolean trigger;
    int waiting;
    synchronized (lock) {
      noted.add(f);
      if (isNew) {
        newFlows++;
      }
      waiting = newFlows + carried;
      // many events of a few flows (WebSocket messages) also trigger one: the list stays short
      trigger = (waiting >= BATCH_TRIGGER || noted.size() >= 4 * BATCH_TRIGGER) && !triggered;
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
    take(); // also while paused: the noted list stays as short as the flows waiting
    if (problem != null) {
      return false; // paused until resume()
    }
    if (carry.isEmpty()) {
      return true;
    }
    long t0 = System.nanoTime();
    if (overloaded && !overloadTold) {
      overloadTold = true;
      String why = "Loupe cannot write flows to " + db.file() + " as fast as they come (" + carry.size()
          + " waiting): capture is paused until they are written (traffic is still relayed).";
      LOG.warning(why);
      problems.accept(why);
    }
    Flow[] flows = carry.toArray(new Flow[0]);
    uncarry();
    List<Flow> later = new ArrayList<>();
    int count = 0;
    for (int from = 0; from < flows.length; from += TRANSACTION) {
      int to = Math.min(flows.length, from + TRANSACTION);
      Exception e = transaction(flows, from, to, all, later);
      if (e != null) {
        for (Flow f : later) { // held back first, then the rest (what was noted meanwhile comes after)
          carry(f);
        }
        for (int i = from; i < flows.length; i++) {
          carry(flows[i]);
        }
        carried = carry.size();
        fail(e);
        return false;
      }
      count += to - from;
    }
    for (Flow f : later) { // held back: in front of what was noted meanwhile
      carry(f);
    }
    carried = carry.size();
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
   * Takes what publishers noted: each flow once, after those already waiting, unless the store no
   * longer holds it (forgotten once written, or cleared: its spill files may be gone, and the file
   * already has it, or should not).
   */
  private void take() {
    ArrayList<Flow> got;
    synchronized (lock) {
      got = noted;
      noted = spare;
      newFlows = 0;
      triggered = false;
    }
    for (int i = 0, n = got.size(); i < n; i++) {
      Flow f = got.get(i);
      if (!carrying.containsKey(f) && store.get(f.id()) == f) {
        carry(f);
      }
    }
    got.clear();
    spare = got;
    carried = carry.size();
  }

  private void carry(Flow f) {
    if (carrying.put(f, f) == null) {
      carry.add(f);
    }
  }

  /** Empties {@link #carry} (its flows are being written). */
  private void uncarry() {
    if (carry.size() > 4 * BATCH_TRIGGER) { // a backlog: don't keep (and clear) its big tables
      carry = new ArrayList<>();
      carrying = new IdentityHashMap<>();
    } else {
      carry.clear();
      carrying.clear();
    }
  }

  /**
   * Writes {@code flows[from, to)} in one transaction (flows in flight noted for the first time go
   * to {@code later} instead, unless {@code all}); after the commit, ended flows beyond the cache
   * leave memory. Returns the failure, after rolling back, or null.
   */
  private Exception transaction(Flow[] flows, int from, int to, boolean all, List<Flow> later) {
    int laterBefore = later.size();
    Map<Long, Integer> messagesBefore = null;
    // the flows whose bodies this transaction wrote: decided once per flow, as it may end while we write
    List<Flow> ended = new ArrayList<>(to - from);
    Connection c = db.writer();
    try {
      c.setAutoCommit(false);
      for (int i = from; i < to; i++) {
        Flow f = flows[i];
        // the state is read once: a flow that ends while we write waits for the next batch
        FlowState state = f.state();
        if (!all && state == FlowState.IN_FLIGHT && heldBack.add(f.id())) {
          later.add(f);
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
      // held back in this transaction: written as they are when tried again (they are in flows[from..])
      later.subList(laterBefore, later.size()).clear();
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
      if (keep > 0) { // else forgotten below: a late event finds it gone from the store
        bodiesWritten.add(id);
      }
      if (!messagesWritten.isEmpty()) {
        messagesWritten.remove(id);
      }
      written.add(f);
    }
    while (written.size() > keep) {
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
      noted.clear();
      newFlows = 0;
    }
    uncarry();
    carried = 0;
    messagesWritten.clear();
    bodiesWritten.clear();
    heldBack.clear();
    written.clear();
  }

  /** Flows written, batches, total and longest batch time (for benchmarks and the status line). */
  public Stats stats() {
    int waiting;
    synchronized (lock) {
      waiting = newFlows + carried;
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
