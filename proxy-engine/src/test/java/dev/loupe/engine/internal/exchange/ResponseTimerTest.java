package dev.loupe.engine.internal.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The response timeout in fake time: one wake-up per connection, a deadline that moves. */
@Timeout(30)
class ResponseTimerTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final ResponseTimer<String> timer = new ResponseTimer<>(clock::get, 100);

  @Test
  void timesOutWhenTheDeadlinePasses() {
    assertThat(timer.arm("a")).isEqualTo(100);
    clock.addAndGet(100);
    assertThat(timer.fired("a", false)).isInstanceOf(ResponseTimer.TimedOut.class);
    assertThat(timer.timed()).isNull();
  }

  @Test
  void reArmingMovesTheDeadlineWithoutANewWakeUp() {
    assertThat(timer.arm("a")).isEqualTo(100);
    clock.addAndGet(60);
    assertThat(timer.arm("b")).as("a wake-up is already scheduled").isEqualTo(-1);
    clock.addAndGet(40); // the first wake-up: b has 60 left
    assertThat(timer.fired("b", false)).isEqualTo(new ResponseTimer.Later(60));
    clock.addAndGet(60);
    assertThat(timer.fired("b", false)).isInstanceOf(ResponseTimer.TimedOut.class);
  }

  @Test
  void aStartedResponseOrAnEndedExchangeIsNotTimedOut() {
    timer.arm("a");
    timer.disarm();
    clock.addAndGet(500);
    assertThat(timer.fired("a", false)).isInstanceOf(ResponseTimer.Idle.class);
    assertThat(timer.arm("b")).as("the wake-up fired: a new one is needed").isEqualTo(100);
    clock.addAndGet(100);
    assertThat(timer.fired("b", true)).as("finished meanwhile").isInstanceOf(ResponseTimer.Idle.class);
    timer.arm("c");
    clock.addAndGet(100);
    assertThat(timer.fired("d", false)).as("another exchange runs now").isInstanceOf(ResponseTimer.Idle.class);
  }
}
