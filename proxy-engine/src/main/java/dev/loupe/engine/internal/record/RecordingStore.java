package dev.loupe.engine.internal.record;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowListener;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The engine's side of a {@link FlowStore}: the one implementation, with the methods that record
 * into it ({@link #nextId}, {@link #continueAfter}, {@link #add}, {@link #updated}, {@link
 * #completed}). The legs, replay and the session store record through these; everything outside the
 * engine sees the {@link FlowStore} interface (reading, subscribing, the user's actions). A store
 * made by {@link FlowStore#create} is one of these ({@link Factory}); {@link #of} gets it back.
 *
 * <p>Holds the session's flows in arrival order and publishes {@link FlowEvent}s to listeners.
 *
 * <h3>Delivery</h3>
 * Publishing never blocks the caller (an event loop): each listener has its own queue and delivery
 * thread. {@code UPDATED} events for a flow already waiting in the queue are coalesced, and are
 * dropped once a queue holds more than its capacity; {@code ADDED} and {@code COMPLETED} always go
 * through. Inside the engine, {@link #subscribeInline} delivers on the publishing thread instead, to
 * a listener that only notes the flow (the session recorder): a queue and a thread woken per event
 * cost the event loops more than the noting does.
 *
 * <h3>Memory budget</h3>
 * When captured bodies held on the heap exceed the budget, the bodies of the oldest completed flows
 * (in order of completion) move to spill files until the store is back under the budget. Nothing
 * captured is dropped. Each completed flow is spilled at most once, so keeping to the budget costs
 * amortised O(1) per completion however many flows the session holds.
 *
 * <h3>Rolling retention</h3>
 * By default every flow is kept for the session (the UI, HAR export). A {@link #rolling rolling}
 * store keeps only the newest completed flows: at most a number of them, and instead of spilling
 * bodies over the budget it forgets the oldest flows (a headless session with no HAR to write, like
 * mitmdump: its memory stays flat however long it runs, and nothing is written to disk). Flows in
 * flight are never dropped.
 */
public final class RecordingStore implements FlowStore {
  private static final Logger LOG = Logger.getLogger(RecordingStore.class.getName());

  private final Map<Long, RecordedFlow> flows = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<RecordedFlow> order = new ConcurrentLinkedQueue<>();
  /** Completed flows whose bodies still hold heap, oldest completion first. */
  private final ConcurrentLinkedQueue<RecordedFlow> resident = new ConcurrentLinkedQueue<>();
  private final List<Listening> subscriptions = new CopyOnWriteArrayList<>();
  private final List<FlowListener> inline = new CopyOnWriteArrayList<>();
  /**
   * Snapshots of {@link #subscriptions} and {@link #inline} that {@link #publish} walks (an event
   * loop publishes a few times per flow; a list's iterator is an object each time). Renewed under
   * the store's lock after every change to either list, so the last renewal sees every change.
   */
  private volatile Listening[] subscribed = new Listening[0];
  private volatile FlowListener[] inlined = new FlowListener[0];
  private final AtomicLong nextId = new AtomicLong(1);
  private final AtomicLong heapBytes = new AtomicLong();
  private final long memoryBudget;
  private final int maxRetained;
  private final boolean rolling;
  private volatile boolean capturing = true;

  /** {@link FlowStore#create()}, for the engine's tests and benchmarks. */
  public RecordingStore() {
    this(DEFAULT_MEMORY_BUDGET);
  }

  /** Keeps every flow; bodies beyond {@code memoryBudgetBytes} on the heap spill to disk, oldest first. */
  public RecordingStore(long memoryBudgetBytes) {
    this(memoryBudgetBytes, Integer.MAX_VALUE, false);
  }

  private RecordingStore(long memoryBudgetBytes, int maxRetained, boolean rolling) {
    if (maxRetained < 1) {
      throw new IllegalArgumentException("maxRetained must be at least 1: " + maxRetained);
    }
    this.memoryBudget = memoryBudgetBytes;
    this.maxRetained = maxRetained;
    this.rolling = rolling;
  }

  /**
   * A store that keeps only the newest completed flows: at most {@code maxFlows}, and no more
   * than {@code maxBodyBytes} of their bodies on the heap (older flows are forgotten, not spilled).
   */
  public static RecordingStore rolling(int maxFlows, long maxBodyBytes) {
    return new RecordingStore(maxBodyBytes, maxFlows, true);
  }

  /**
   * {@code store} as the engine records into it: every store {@link FlowStore#create} makes is one
   * of these.
   *
   * @throws IllegalArgumentException for a store made elsewhere
   */
  public static RecordingStore of(FlowStore store) {
    if (store instanceof RecordingStore r) {
      return r;
    }
    throw new IllegalArgumentException("not a store the engine records into: " + store);
  }

  /** Makes the stores of {@link FlowStore#create} (registered in META-INF/services). */
  public static final class Factory implements FlowStore.Factory {
    @Override
    public FlowStore create(long memoryBudgetBytes) {
      return new RecordingStore(memoryBudgetBytes);
    }

    @Override
    public FlowStore rolling(int maxFlows, long maxBodyBytes) {
      return RecordingStore.rolling(maxFlows, maxBodyBytes);
    }
  }

  /** The next flow id (ids increase in arrival order). */
  public long nextId() {
    return nextId.getAndIncrement();
  }

  /**
   * Makes every id handed out from now on larger than {@code lastId} (a session opened from a file
   * already holds flows up to it), so flows recorded into that session keep one id space.
   */
  public void continueAfter(long lastId) {
    nextId.accumulateAndGet(lastId + 1, Math::max);
  }

  /**
   * Records {@code flow}, unless capture is {@linkplain #capturing(boolean) paused}: then the flow
   * is relayed as usual but not kept or published (nor are its updates).
   */
  public void add(Flow flow) {
    if (!capturing) {
      return;
    }
    RecordedFlow recorded = RecordedFlow.of(flow);
    flows.put(recorded.key(), recorded);
    order.add(recorded);
    publish(FlowEvent.Type.ADDED, flow);
  }

  @Override
  public void capturing(boolean on) {
    capturing = on;
  }

  @Override
  public boolean capturing() {
    return capturing;
  }

  /** The map key of {@code flow}: its boxed id, made once per recorded flow. */
  private static Long key(Flow flow) {
    return flow instanceof RecordedFlow r ? r.key() : Long.valueOf(flow.id());
  }

  /** Tells listeners that {@code flow} changed (coalesced per listener). */
  public void updated(Flow flow) {
    if (flows.containsKey(key(flow))) {
      publish(FlowEvent.Type.UPDATED, flow);
    }
  }

  /** Tells listeners that {@code flow} ended; keeps the memory budget (or the rolling limits). */
  public void completed(Flow flow) {
    if (!flows.containsKey(key(flow))) {
      return; // added while capture was paused (or forgotten by a rolling store)
    }
    enforceBudget(RecordedFlow.of(flow));
    publish(FlowEvent.Type.COMPLETED, flow);
    if (rolling && (flows.size() > maxRetained || heapBytes.get() > memoryBudget)) {
      evictOldest();
    }
  }

  /** Forgets the oldest flows while over either limit, stopping at one still in flight. */
  private synchronized void evictOldest() {
    RecordedFlow old;
    while ((flows.size() > maxRetained || heapBytes.get() > memoryBudget)
        && (old = order.peek()) != null && old.state() != FlowState.IN_FLIGHT) {
      order.poll();
      flows.remove(old.key());
      if (resident.remove(old)) { // near the head: completions come in roughly arrival order
        heapBytes.addAndGet(-bodyHeap(old));
      }
      old.requestBody().discard(); // its full-size chunks capture the next bodies
      old.responseBody().discard();
    }
  }

  private void enforceBudget(RecordedFlow justCompleted) {
    // Only body bytes are counted: they are what spilling frees. Counting anything else (heads,
    // WebSocket payloads) would keep the store over budget for good and rescan it on every completion.
    long held = bodyHeap(justCompleted);
    if (held > 0) {
      resident.add(justCompleted);
      heapBytes.addAndGet(held);
    }
    if (rolling) {
      return; // over the budget, a rolling store forgets the oldest flows instead (completed)
    }
    RecordedFlow old;
    while (heapBytes.get() > memoryBudget && (old = resident.poll()) != null) {
      long freed = old.requestBody().spillToDisk() + old.responseBody().spillToDisk();
      heapBytes.addAndGet(-freed);
    }
  }

  private static long bodyHeap(RecordedFlow flow) {
    return flow.requestBody().memoryFootprint() + flow.responseBody().memoryFootprint();
  }

  @Override
  public void forget(Flow flow) {
    if (flows.remove(flow.id(), flow)) {
      order.remove(flow);
      if (resident.remove(flow)) {
        heapBytes.addAndGet(-bodyHeap(RecordedFlow.of(flow)));
      }
    }
  }

  @Override
  public RecordedFlow get(long id) {
    return flows.get(id);
  }

  @Override
  public int size() {
    return flows.size();
  }

  @Override
  public List<Flow> snapshot() {
    return new ArrayList<>(order);
  }

  @Override
  public long heapBytes() {
    return heapBytes.get();
  }

  @Override
  public void clear() {
    for (RecordedFlow f : order) {
      f.requestBody().release();
      f.responseBody().release();
    }
    order.clear();
    resident.clear();
    flows.clear();
    heapBytes.set(0);
  }

  @Override
  public Subscription subscribe(FlowListener listener) {
    return subscribe(listener, 10_000);
  }

  @Override
  public Subscription subscribe(FlowListener listener, int capacity) {
    return subscribe(listener, capacity, EnumSet.allOf(FlowEvent.Type.class));
  }

  /**
   * Like {@link #subscribe(FlowListener, int)}, delivering only events of {@code types}: the others
   * are not queued at all, so a listener that ignores updates (the plugins' observers) costs the
   * event loops nothing for them.
   */
  @Override
  public Subscription subscribe(FlowListener listener, int capacity, Set<FlowEvent.Type> types) {
    Listening s = new Listening(listener, capacity, EnumSet.copyOf(types));
    subscriptions.add(s);
    listenersChanged();
    s.thread.start();
    return s;
  }

  /**
   * Delivers every event to {@code listener} on the thread that publishes it (an event loop, for
   * most), before {@code add}, {@code updated} or {@code completed} returns, uncoalesced. For engine
   * listeners that only note the flow: it must be quick (a map put under a lock held as briefly) and
   * must never wait for anything else. Always idle; closing stops delivery at once.
   */
  public Subscription subscribeInline(FlowListener listener) {
    inline.add(listener);
    listenersChanged();
    return new Subscription() {
      @Override
      public long droppedUpdates() {
        return 0;
      }

      @Override
      public boolean awaitIdle(long timeout, TimeUnit unit) {
        return true; // delivered before the publisher went on
      }

      @Override
      public void close() {
        inline.remove(listener);
        listenersChanged();
      }
    };
  }

  private synchronized void listenersChanged() {
    subscribed = subscriptions.toArray(new Listening[0]);
    inlined = inline.toArray(new FlowListener[0]);
  }

  /** Delivers an event of {@code type} for {@code flow} to every listener (made only when there is one). */
  private void publish(FlowEvent.Type type, Flow flow) {
    FlowListener[] inl = inlined;
    Listening[] subs = subscribed;
    if (inl.length == 0 && subs.length == 0) {
      return;
    }
    FlowEvent event = new FlowEvent(type, flow);
    for (FlowListener l : inl) {
      try {
        l.onFlowEvent(event);
      } catch (RuntimeException ex) {
        LOG.log(Level.WARNING, "flow listener failed on " + event.type() + " of flow " + event.flow().id(), ex);
      }
    }
    for (Listening s : subs) {
      s.offer(event);
    }
  }

  /** A listener's queue and delivery thread. */
  private final class Listening implements Subscription {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    /** How long a listener that just delivered naps before its next round (the most it adds to an event's delay). */
    static final long BUSY_NAP_NANOS = TimeUnit.MILLISECONDS.toNanos(4);
    private final FlowListener listener;
    private final int capacity;
    private final Set<FlowEvent.Type> types;
    private final ConcurrentLinkedQueue<FlowEvent> queue = new ConcurrentLinkedQueue<>();
    private final Set<Long> pendingUpdates = ConcurrentHashMap.newKeySet();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final Thread thread;
    private volatile boolean closed;
    /**
     * Set by the delivery thread just before it parks on an empty queue after an idle round.
     * Producers (the event loops) unpark it only then: a busy listener costs them no wake-up system
     * call per event.
     */
    private volatile boolean parked;

    private Listening(FlowListener listener, int capacity, Set<FlowEvent.Type> types) {
      this.listener = listener;
      this.capacity = capacity;
      this.types = types;
      this.thread = new Thread(this::run, "loupe-flow-listener-" + COUNTER.incrementAndGet());
      this.thread.setDaemon(true);
    }

    void offer(FlowEvent e) {
      if (closed || !types.contains(e.type())) {
        return;
      }
      if (e.type() == FlowEvent.Type.UPDATED) {
        if (!pendingUpdates.add(e.flow().id())) {
          return; // one already waiting: the listener will read the latest state anyway
        }
        if (queued.get() >= capacity) {
          pendingUpdates.remove(e.flow().id());
          dropped.incrementAndGet();
          return;
        }
      }
      accepted.incrementAndGet();
      queue.add(e);
      queued.incrementAndGet();
      if (parked) {
        LockSupport.unpark(thread);
      }
    }

    /**
     * Delivers in rounds. A round that delivered something is followed by a nap of
     * {@link #BUSY_NAP_NANOS} that no producer cuts short: under traffic the events of a few
     * milliseconds are taken in one go, with no wake-up per event on either side (at tens of
     * thousands of flows a second those wake-ups cost the event loops and this thread more than the
     * delivery). After an idle round the thread parks until a producer wakes it, so the first event
     * after a quiet spell is delivered at once and an idle Loupe has no timer ticking fast.
     */
    private void run() {
      boolean busy = false;
      while (!closed || !queue.isEmpty()) {
        FlowEvent e = queue.poll();
        if (e == null) {
          if (closed) {
            break;
          }
          if (busy) {
            busy = false;
            LockSupport.parkNanos(this, BUSY_NAP_NANOS);
            continue;
          }
          // Announce the park, then look once more: an event added after that look sees the flag
          // and unparks us; one added before it is found by the look (both sides are volatile).
          parked = true;
          if (queue.isEmpty() && !closed) {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(50));
          }
          parked = false;
          continue;
        }
        busy = true;
        queued.decrementAndGet();
        if (e.type() == FlowEvent.Type.UPDATED) {
          pendingUpdates.remove(e.flow().id());
        }
        try {
          listener.onFlowEvent(e);
        } catch (RuntimeException ex) {
          LOG.log(Level.WARNING, "flow listener failed on " + e.type() + " of flow " + e.flow().id(), ex);
        }
        delivered.incrementAndGet();
      }
    }

    @Override
    public long droppedUpdates() {
      return dropped.get();
    }

    @Override
    public boolean awaitIdle(long timeout, TimeUnit unit) {
      long deadline = System.nanoTime() + unit.toNanos(timeout);
      long target = accepted.get();
      while (delivered.get() < target) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        LockSupport.parkNanos(1_000_000);
      }
      return true;
    }

    @Override
    public void close() {
      closed = true;
      subscriptions.remove(this);
      listenersChanged();
      LockSupport.unpark(thread);
      if (Thread.currentThread() == thread) {
        return; // closed from inside the listener: the loop ends after this event; joining would wait 5 s
      }
      try {
        thread.join(5_000);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
