package dev.loupe.engine.flow;

/** Lifecycle of a flow. Moves forward only. */
public enum FlowState {
  /** Request or response still streaming. */
  IN_FLIGHT,
  /** The response (or tunnel) ended normally. */
  COMPLETE,
  /** Ended with an {@link FlowError}. */
  FAILED
}
