package dev.loupe.engine.internal.exchange;

import java.util.function.LongSupplier;

/**
 * The response timeout of a connection's exchanges, without I/O: how long the origin may take to
 * start answering, counted from the last request byte sent. The caller owns at most one scheduled
 * wake-up per connection and moves a deadline instead of scheduling and cancelling a task per
 * request (a keep-alive connection serving back-to-back requests would otherwise churn the timer
 * queue); {@link #fired} tells, when the wake-up comes, whether the exchange timed out, or when to
 * wake up again.
 *
 * <p>Confined to the client leg's event loop. {@code E} is the exchange type (an identity).
 */
public final class ResponseTimer<E> {
  /** What to do when a wake-up fires. */
  public sealed interface Verdict {}

  /** Nothing is being timed (the response started, or the exchange ended): no new wake-up. */
  public record Idle() implements Verdict {}

  /** Not yet: wake up again after {@code delayNanos}. */
  public record Later(long delayNanos) implements Verdict {}

  /** The exchange that was being timed has timed out. */
  public record TimedOut() implements Verdict {}

  private static final Idle IDLE = new Idle();
  private static final TimedOut TIMED_OUT = new TimedOut();

  private final LongSupplier clock;
  private final long timeoutNanos;
  private E timed;
  private long deadline;
  private boolean wakeScheduled;

  public ResponseTimer(LongSupplier clock, long timeoutNanos) {
    this.clock = clock;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * Starts (or restarts) timing {@code exchange}: the origin has until now + the timeout. Returns
   * the delay of the wake-up to schedule, or -1 when one is already scheduled (it will find the
   * moved deadline and ask for a later one).
   */
  public long arm(E exchange) {
    timed = exchange;
    deadline = clock.getAsLong() + timeoutNanos;
    if (wakeScheduled) {
      return -1;
    }
    wakeScheduled = true;
    return timeoutNanos;
  }

  /** Stops timing (the response started or the exchange ended); a scheduled wake-up finds nothing. */
  public void disarm() {
    timed = null;
  }

  /** Whether a wake-up is scheduled (the caller cancels it when the connection goes away). */
  public boolean wakeScheduled() {
    return wakeScheduled;
  }

  /** The connection is gone: forget everything (the caller cancelled its wake-up). */
  public void stop() {
    timed = null;
    wakeScheduled = false;
  }

  /**
   * The scheduled wake-up fired; {@code current} is the exchange now running on the connection (or
   * null) and {@code finished} whether it has ended.
   */
  public Verdict fired(E current, boolean finished) {
    wakeScheduled = false;
    E ex = timed;
    if (ex == null || ex != current || finished) {
      timed = null;
      return IDLE;
    }
    long left = deadline - clock.getAsLong();
    if (left > 0) {
      wakeScheduled = true;
      return new Later(left);
    }
    timed = null;
    return TIMED_OUT;
  }

  /** The exchange being timed, or null. */
  public E timed() {
    return timed;
  }
}
