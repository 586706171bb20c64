package dev.loupe.engine.flow;

/**
 * Receives flow events on its own delivery thread, in order. A slow listener never stalls the
 * proxy: its {@code UPDATED} events are coalesced (and dropped when its queue is long), while
 * {@code ADDED} and {@code COMPLETED} are always delivered. Exceptions thrown here are logged and
 * ignored.
 */
@FunctionalInterface
public interface FlowListener {
  void onFlowEvent(FlowEvent event);
}
