package dev.loupe.engine.internal.relay;

import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ResponseTimer;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The response timeout of one client leg: the sans-io {@link ResponseTimer} and its one wake-up
 * task on the leg's event loop. Confined to that loop.
 */
final class ResponseTimeout {
  private final ResponseTimer<Exchange> timer;
  private final EventExecutor loop;
  private final Supplier<Exchange> current;
  private final Consumer<Exchange> timedOut;
  private ScheduledFuture<?> wake;

  /**
   * @param current  the exchange now running on the leg, or null
   * @param timedOut what to do with an exchange that timed out
   */
  ResponseTimeout(EventExecutor loop, long timeoutNanos, Supplier<Exchange> current, Consumer<Exchange> timedOut) {
    this.timer = new ResponseTimer<>(System::nanoTime, timeoutNanos);
    this.loop = loop;
    this.current = current;
    this.timedOut = timedOut;
  }

  /** Starts (or restarts) the timeout for {@code ex}: the origin's time to answer counts from now. */
  void arm(Exchange ex) {
    long delay = timer.arm(ex);
    if (delay >= 0) {
      schedule(delay);
    }
  }

  /** Stops the timeout (the response started, or the exchange ended). */
  void disarm() {
    timer.disarm();
  }

  /** The leg is gone: drop the pending wake-up too. */
  void stop() {
    timer.stop();
    if (wake != null) {
      wake.cancel(false);
      wake = null;
    }
  }

  private void schedule(long delayNanos) {
    wake = loop.schedule(this::fired, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void fired() {
    wake = null;
    Exchange ex = timer.timed();
    Exchange now = current.get();
    ResponseTimer.Verdict v = timer.fired(now, now == null || now.finished());
    if (v instanceof ResponseTimer.Later later) {
      schedule(later.delayNanos());
    } else if (v instanceof ResponseTimer.TimedOut) {
      timedOut.accept(ex);
    }
  }
}
