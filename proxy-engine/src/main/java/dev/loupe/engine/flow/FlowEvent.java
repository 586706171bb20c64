package dev.loupe.engine.flow;

import java.util.Objects;

/**
 * A change to a flow, published by the {@link FlowStore}.
 *
 * @param type what happened
 * @param flow the flow (read its current state; it may have moved on since the event)
 */
public record FlowEvent(Type type, Flow flow) {
  /** What happened. */
  public enum Type {
    /** A new flow; its request head is known (or, for a tunnel, its target). */
    ADDED,
    /** Something changed (response head, body progress, messages). May be coalesced or dropped for slow listeners. */
    UPDATED,
    /** The flow ended, normally or with an error. Always delivered, after ADDED. */
    COMPLETED
  }

  public FlowEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(flow, "flow");
  }
}
