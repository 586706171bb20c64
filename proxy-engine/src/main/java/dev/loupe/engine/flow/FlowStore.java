package dev.loupe.engine.flow;

import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

/**
 * The session's flows in arrival order, and the {@link FlowEvent}s that tell listeners about them.
 *
 * <p>This is what the UI, the control API and plugins see of the store: reading, subscribing, and
 * the user's actions on it (pause capture, clear, forget a flow). Recording (adding flows, publishing
 * their updates and completion, handing out ids) is the engine's, through its own implementation (an
 * internal recorder), which {@link #create} finds through {@link ServiceLoader} ({@code
 * META-INF/services/dev.loupe.engine.flow.FlowStore$Factory}), so this package depends on no internal
 * one.
 *
 * <h3>Delivery</h3>
 * Publishing never blocks the engine (an event loop): each listener has its own queue and delivery
 * thread. {@code UPDATED} events for a flow already waiting in the queue are coalesced, and are
 * dropped once a queue holds more than its capacity; {@code ADDED} and {@code COMPLETED} always go
 * through.
 *
 * <h3>Memory budget</h3>
 * When captured bodies held on the heap exceed the budget, the bodies of the oldest completed flows
 * (in order of completion) move to spill files until the store is back under the budget. Nothing
 * captured is dropped.
 *
 * <h3>Rolling retention</h3>
 * By default every flow is kept for the session (the UI, HAR export). A {@link #rolling rolling}
 * store keeps only the newest completed flows: at most a number of them, and instead of spilling
 * bodies over the budget it forgets the oldest flows (a headless session with no HAR to write, like
 * mitmdump: its memory stays flat however long it runs). Flows in flight are never dropped.
 *
 * <p>Thread-safe.
 */
public interface FlowStore {
  long DEFAULT_MEMORY_BUDGET = 256L << 20;

  /** A store that keeps every flow, with the {@linkplain #DEFAULT_MEMORY_BUDGET default} memory budget. */
  static FlowStore create() {
    return create(DEFAULT_MEMORY_BUDGET);
  }

  /** Keeps every flow; bodies beyond {@code memoryBudgetBytes} on the heap spill to disk, oldest first. */
  static FlowStore create(long memoryBudgetBytes) {
    return Provider.FACTORY.create(memoryBudgetBytes);
  }

  /**
   * A store that keeps only the newest completed flows: at most {@code maxFlows}, and no more
   * than {@code maxBodyBytes} of their bodies on the heap (older flows are forgotten, not spilled).
   */
  static FlowStore rolling(int maxFlows, long maxBodyBytes) {
    return Provider.FACTORY.rolling(maxFlows, maxBodyBytes);
  }

  /** Makes stores; the engine's recorder is the one implementation. */
  interface Factory {
    FlowStore create(long memoryBudgetBytes);

    FlowStore rolling(int maxFlows, long maxBodyBytes);
  }

  /** Pauses ({@code false}) or resumes recording new flows; flows already recorded carry on. */
  void capturing(boolean on);

  /** Whether new flows are recorded. */
  boolean capturing();

  /**
   * Stops holding the completed {@code flow} (a session store has saved it and reads it back from
   * disk): it leaves {@link #get}, {@link #snapshot} and the memory budget, and no more events are
   * published for it. Its bodies are left as they are (whoever still holds the flow may read them).
   */
  void forget(Flow flow);

  /** The flow {@code id}, or null when the store does not hold it. */
  Flow get(long id);

  int size();

  /** All flows in arrival order (a copy). */
  List<Flow> snapshot();

  /** Heap bytes accounted to completed flows' bodies. */
  long heapBytes();

  /** Forgets every flow and deletes their spill files. */
  void clear();

  /** Subscribes {@code listener} with a queue of 10,000 updates. */
  Subscription subscribe(FlowListener listener);

  /** Subscribes with a queue that holds at most {@code capacity} updates before dropping them. */
  Subscription subscribe(FlowListener listener, int capacity);

  /**
   * Like {@link #subscribe(FlowListener, int)}, delivering only events of {@code types}: the others
   * are not queued at all, so a listener that acts on some types only (the headless per-flow line:
   * {@code COMPLETED}; plugin observers: {@code ADDED} and {@code COMPLETED}) costs the engine's
   * event loops nothing for the rest. This default delivers every type (the listener must still
   * ignore the others); the engine's recorder filters before queueing.
   */
  default Subscription subscribe(FlowListener listener, int capacity, java.util.Set<FlowEvent.Type> types) {
    return subscribe(listener, capacity);
  }

  /** A listener's queue and delivery thread. */
  interface Subscription extends AutoCloseable {
    /** UPDATED events dropped because the queue was full. */
    long droppedUpdates();

    /** Waits until every event published so far has been delivered, or the timeout passes. */
    boolean awaitIdle(long timeout, TimeUnit unit);

    /** Stops delivery after the events already queued; waits up to 5 s for them. */
    @Override
    void close();
  }

  /** The engine's recorder, loaded once. */
  final class Provider {
    static final Factory FACTORY = ServiceLoader.load(Factory.class, FlowStore.class.getClassLoader())
        .findFirst().orElseThrow(() -> new IllegalStateException("the engine's flow recorder is missing from"
            + " the class path (META-INF/services/" + Factory.class.getName() + ")"));

    private Provider() {}
  }
}
