package dev.loupe.engine.internal.record;

import dev.loupe.engine.flow.Timings;

/**
 * The engine's side of {@link Timings}: the moments of one exchange as the legs record them
 * ({@link System#nanoTime()} readings, 0 = did not happen). Written by the event loop, read by
 * anyone; everything outside the engine sees the read-only {@link Timings}.
 */
public final class RecordedTimings implements Timings {
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
  /** When a flow ended without a response end (failed, reset): its total stops there. */
  private volatile long failedAt;

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
  public void failedAt(long now) { failedAt = now; }

  @Override public long requestStartNanos() { return requestStart; }
  @Override public long responseEndNanos() { return responseEnd; }
  @Override public long dnsStartNanos() { return dnsStart; }
  @Override public long dnsEndNanos() { return dnsEnd; }
  @Override public long connectStartNanos() { return connectStart; }
  @Override public long connectEndNanos() { return connectEnd; }
  @Override public long tlsStartNanos() { return tlsStart; }
  @Override public long tlsEndNanos() { return tlsEnd; }
  @Override public long sendStartNanos() { return sendStart; }
  @Override public long sendEndNanos() { return sendEnd; }
  @Override public long responseStartNanos() { return responseStart; }
  @Override public long failedAtNanos() { return failedAt; }
}
