package dev.loupe.engine.flow;

/**
 * Moments in one exchange, as {@link System#nanoTime()} readings (0 = did not happen). Written by
 * the event loop, read by anyone. Durations are derived in milliseconds, -1 when unknown, which is
 * what HAR needs.
 */
public final class Timings {
  private volatile long requestStart;
  private volatile long dnsStart;
  private volatile long dnsEnd;
  private volatile long connectStart;
  private volatile long connectEnd;
  private volatile long tlsStart;
  private volatile long tlsEnd;
  private volatile long sendStart;
  private volatile long sendEnd;
  private volatile long responseStart;
  private volatile long responseEnd;

  public void requestStart(long t) { requestStart = t; }
  public void dnsStart(long t) { dnsStart = t; }
  public void dnsEnd(long t) { dnsEnd = t; }
  public void connectStart(long t) { connectStart = t; }
  public void connectEnd(long t) { connectEnd = t; }
  public void tlsStart(long t) { tlsStart = t; }
  public void tlsEnd(long t) { tlsEnd = t; }
  public void sendStart(long t) { sendStart = t; }
  public void sendEnd(long t) { sendEnd = t; }
  public void responseStart(long t) { responseStart = t; }
  public void responseEnd(long t) { responseEnd = t; }

  public long requestStartNanos() { return requestStart; }
  public long responseEndNanos() { return responseEnd; }
  // The raw readings, so a saved session keeps every moment (a session file stores them as they are).
  public long dnsStartNanos() { return dnsStart; }
  public long dnsEndNanos() { return dnsEnd; }
  public long connectStartNanos() { return connectStart; }
  public long connectEndNanos() { return connectEnd; }
  public long tlsStartNanos() { return tlsStart; }
  public long tlsEndNanos() { return tlsEnd; }
  public long sendStartNanos() { return sendStart; }
  public long sendEndNanos() { return sendEnd; }
  public long responseStartNanos() { return responseStart; }
  /** When a flow that ended without a response end failed (0 otherwise). */
  public long failedAtNanos() { return failedAt; }

  private static double ms(long from, long to) {
    if (from == 0 || to == 0 || to - from < 0) { // nanoTime readings compare by difference only
      return -1;
    }
    return (to - from) / 1_000_000.0;
  }

  /** From the request head arriving to the first upstream step (DNS, connect, or send on a pooled connection). */
  public double blockedMs() {
    long next = dnsStart != 0 ? dnsStart : connectStart != 0 ? connectStart : sendStart;
    return ms(requestStart, next);
  }

  public double dnsMs() { return ms(dnsStart, dnsEnd); }

  /** TCP connect, including TLS as HAR requires. */
  public double connectMs() {
    long end = tlsEnd != 0 ? tlsEnd : connectEnd;
    return ms(connectStart, end);
  }

  public double sslMs() { return ms(tlsStart, tlsEnd); }

  public double sendMs() { return ms(sendStart, sendEnd); }

  public double waitMs() { return ms(sendEnd, responseStart); }

  public double receiveMs() { return ms(responseStart, responseEnd); }

  /** When a flow ended without a response end (failed, reset): its total stops there. */
  private volatile long failedAt;

  public void failedAt(long now) {
    failedAt = now;
  }

  /** From the request head arriving to the response ending (or the failure, or now while in flight). */
  public double totalMs() {
    long end = responseEnd != 0 ? responseEnd : failedAt != 0 ? failedAt : System.nanoTime();
    return ms(requestStart, end);
  }
}
