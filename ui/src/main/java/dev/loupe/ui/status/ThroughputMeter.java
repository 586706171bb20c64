package dev.loupe.ui.status;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowStore;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts what the proxy finished since the last {@link #take()}: flows and their body bytes (both
 * directions; for a tunnel, the bytes relayed). Fed by the store's delivery thread; read by
 * whoever samples it (the status bar, once a second).
 */
public final class ThroughputMeter implements AutoCloseable {
  /** Flows and bytes finished in one interval. */
  public record Sample(long flows, long bytes) {}

  private final LongAdder flows = new LongAdder();
  private final LongAdder bytes = new LongAdder();
  private final FlowStore.Subscription subscription;

  public ThroughputMeter(FlowStore store) {
    this.subscription = store.subscribe(this::onEvent);
  }

  private void onEvent(FlowEvent e) {
    if (e.type() != FlowEvent.Type.COMPLETED) {
      return;
    }
    Flow f = e.flow();
    flows.increment();
    bytes.add(f.isTunnel()
        ? f.tunnelBytesClientToServer() + f.tunnelBytesServerToClient()
        : f.requestBody().size() + f.responseBody().size());
  }

  /** What finished since the previous call. */
  public Sample take() {
    return new Sample(flows.sumThenReset(), bytes.sumThenReset());
  }

  /** Waits until every event published so far has been counted (tests). */
  boolean awaitCounted() {
    return subscription.awaitIdle(5, java.util.concurrent.TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    subscription.close();
  }
}
