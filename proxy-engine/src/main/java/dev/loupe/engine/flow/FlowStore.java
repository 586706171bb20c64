package dev.loupe.engine.flow;

import java.util.ArrayList;
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
 * Holds the session's flows in arrival order and publishes {@link FlowEvent}s to listeners.
 *
 * <h3>Delivery</h3>
 * Publishing never blocks the caller (an event loop): each listener has its own queue and delivery
 * thread. {@code UPDATED} events for a flow already waiting in the queue are coalesced, and are
 * dropped once a queue holds more than its capacity; {@code ADDED} and {@code COMPLETED} always go
 * through.
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
public final class FlowStore {
  private static final Logger LOG = Logger.getLogger(FlowStore.class.getName());
  public static final long DEFAULT_MEMORY_BUDGET = 256L << 20;

  private final Map<Long, Flow> flows = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Flow> order = new ConcurrentLinkedQueue<>();
  /** Completed flows whose bodies still hold heap, oldest completion first. */
  private final ConcurrentLinkedQueue<Flow> resident = new ConcurrentLinkedQueue<>();
  private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
  private final AtomicLong nextId = new AtomicLong(1);
  private final AtomicLong heapBytes = new AtomicLong();
  private final long memoryBudget;
  private final int maxRetained;
  private final boolean rolling;
  private volatile boolean capturing = true;

  public FlowStore() {
    this(DEFAULT_MEMORY_BUDGET);
  }

  /** Keeps every flow; bodies beyond {@code memoryBudgetBytes} on the heap spill to disk, oldest first. */
  public FlowStore(long memoryBudgetBytes) {
    this(memoryBudgetBytes, Integer.MAX_VALUE, false);
  }

  private FlowStore(long memoryBudgetBytes, int maxRetained, boolean rolling) {
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
  public static FlowStore rolling(int maxFlows, long maxBodyBytes) {
    return new FlowStore(maxBodyBytes, maxFlows, true);
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
    flows.put(flow.id(), flow);
    order.add(flow);
    publish(new FlowEvent(FlowEvent.Type.ADDED, flow));
  }

  /** Pauses ({@code false}) or resumes recording new flows; flows already recorded carry on. */
  public void capturing(boolean on) {
    capturing = on;
  }

  /** Whether new flows are recorded. */
  public boolean capturing() {
    return capturing;
  }

  public void updated(Flow flow) {
    if (flows.containsKey(flow.id())) {
      publish(new FlowEvent(FlowEvent.Type.UPDATED, flow));
    }
  }

  public void completed(Flow flow) {
    if (!flows.containsKey(flow.id())) {
      return; // added while capture was paused (or forgotten by a rolling store)
    }
    enforceBudget(flow);
    publish(new FlowEvent(FlowEvent.Type.COMPLETED, flow));
    if (rolling && (flows.size() > maxRetained || heapBytes.get() > memoryBudget)) {
      evictOldest();
    }
  }

  /** Forgets the oldest flows while over either limit, stopping at one still in flight. */
  private synchronized void evictOldest() {
    Flow old;
    while ((flows.size() > maxRetained || heapBytes.get() > memoryBudget)
        && (old = order.peek()) != null && old.state() != FlowState.IN_FLIGHT) {
      order.poll();
      flows.remove(old.id());
      if (resident.remove(old)) { // near the head: completions come in roughly arrival order
        heapBytes.addAndGet(-bodyHeap(old));
      }
      old.requestBody().discard(); // its full-size chunks capture the next bodies
      old.responseBody().discard();
    }
  }

  private void enforceBudget(Flow justCompleted) {
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
    Flow old;
    while (heapBytes.get() > memoryBudget && (old = resident.poll()) != null) {
      long freed = old.requestBody().spillToDisk() + old.responseBody().spillToDisk();
      heapBytes.addAndGet(-freed);
    }
  }

  private static long bodyHeap(Flow flow) {
    return flow.requestBody().memoryFootprint() + flow.responseBody().memoryFootprint();
  }

  /**
   * Stops holding the completed {@code flow} (a session store has saved it and reads it back from
   * disk): it leaves {@link #get}, {@link #snapshot} and the memory budget, and no more events are
   * published for it. Its bodies are left as they are (whoever still holds the flow may read them).
   */
  public void forget(Flow flow) {
    if (flows.remove(flow.id(), flow)) {
      order.remove(flow);
      if (resident.remove(flow)) {
        heapBytes.addAndGet(-bodyHeap(flow));
      }
    }
  }

  public Flow get(long id) {
    return flows.get(id);
  }

  public int size() {
    return flows.size();
  }

  /** All flows in arrival order (a copy). */
  public List<Flow> snapshot() {
    return new ArrayList<>(order);
  }

  /** Heap bytes accounted to completed flows' bodies. */
  public long heapBytes() {
    return heapBytes.get();
  }

  /** Forgets every flow and deletes their spill files. */
  public void clear() {
    for (Flow f : order) {
      f.requestBody().release();
      f.responseBody().release();
    }
    order.clear();
    resident.clear();
    flows.clear();
    heapBytes.set(0);
  }

  public Subscription subscribe(FlowListener listener) {
    return subscribe(listener, 10_000);
  }

  /** Subscribes with a queue that holds at most {@code capacity} updates before dropping them. */
  public Subscription subscribe(FlowListener listener, int capacity) {
    Subscription s = new Subscription(listener, capacity);
    subscriptions.add(s);
    s.thread.start();
    return s;
  }

  private void publish(FlowEvent event) {
    for (Subscription s : subscriptions) {
      s.offer(event);
    }
  }

  /** A listener's queue and delivery thread. */
  public final class Subscription implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private final FlowListener listener;
    private final int capacity;
    private final ConcurrentLinkedQueue<FlowEvent> queue = new ConcurrentLinkedQueue<>();
    private final Set<Long> pendingUpdates = ConcurrentHashMap.newKeySet();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final Thread thread;
    private volatile boolean closed;

    private Subscription(FlowListener listener, int capacity) {
      this.listener = listener;
      this.capacity = capacity;
      this.thread = new Thread(this::run, "loupe-flow-listener-" + COUNTER.incrementAndGet());
      this.thread.setDaemon(true);
    }

    void offer(FlowEvent e) {
      if (closed) {
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
      LockSupport.unpark(thread);
    }

    private void run() {
      while (!closed || !queue.isEmpty()) {
        FlowEvent e = queue.poll();
        if (e == null) {
          if (closed) {
            break;
          }
          LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(50));
          continue;
        }
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

    /** UPDATED events dropped because the queue was full. */
    public long droppedUpdates() {
      return dropped.get();
    }

    /** Waits until every event published so far has been delivered, or the timeout passes. */
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

    /** Stops delivery after the events already queued; waits up to 5 s for them. */
    @Override
    public void close() {
      closed = true;
      subscriptions.remove(this);
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
