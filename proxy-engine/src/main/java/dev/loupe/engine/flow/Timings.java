package dev.loupe.engine.flow;

/**
 * Moments in one exchange, as {@link System#nanoTime()} readings (0 = did not happen). Durations are
 * derived in milliseconds, -1 when unknown, which is what HAR needs.
 *
 * <p>This is the read-only view the UI, the control API and plugins get; the engine records the
 * moments through its own implementation (an internal recorder), from the event loop. Any thread
 * may read.
 */
public interface Timings {
  long requestStartNanos();

  long responseEndNanos();

  // The raw readings, so a saved session keeps every moment (a session file stores them as they are).
  long dnsStartNanos();

  long dnsEndNanos();

  long connectStartNanos();

  long connectEndNanos();

  long tlsStartNanos();

  long tlsEndNanos();

  long sendStartNanos();

  long sendEndNanos();

  long responseStartNanos();

  /** When a flow that ended without a response end failed (0 otherwise). */
  long failedAtNanos();

  private static double ms(long from, long to) {
    if (from == 0 || to == 0 || to - from < 0) { // nanoTime readings compare by difference only
      return -1;
    }
    return (to - from) / 1_000_000.0;
  }

  /** From the request head arriving to the first upstream step (DNS, connect, or send on a pooled connection). */
  default double blockedMs() {
    long dnsStart = dnsStartNanos();
    long connectStart = connectStartNanos();
    long next = dnsStart != 0 ? dnsStart : connectStart != 0 ? connectStart : sendStartNanos();
    return ms(requestStartNanos(), next);
  }

  default double dnsMs() {
    return ms(dnsStartNanos(), dnsEndNanos());
  }

  /** TCP connect, including TLS as HAR requires. */
  default double connectMs() {
    long tlsEnd = tlsEndNanos();
    long end = tlsEnd != 0 ? tlsEnd : connectEndNanos();
    return ms(connectStartNanos(), end);
  }

  default double sslMs() {
    return ms(tlsStartNanos(), tlsEndNanos());
  }

  default double sendMs() {
    return ms(sendStartNanos(), sendEndNanos());
  }

  default double waitMs() {
    return ms(sendEndNanos(), responseStartNanos());
  }

  default double receiveMs() {
    return ms(responseStartNanos(), responseEndNanos());
  }

  /** From the request head arriving to the response ending (or the failure, or now while in flight). */
  default double totalMs() {
    long responseEnd = responseEndNanos();
    long failedAt = failedAtNanos();
    long end = responseEnd != 0 ? responseEnd : failedAt != 0 ? failedAt : System.nanoTime();
    return ms(requestStartNanos(), end);
  }
}
