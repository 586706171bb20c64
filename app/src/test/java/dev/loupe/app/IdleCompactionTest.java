package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When the window compacts its heap: idle for a whole period, and grown since the last compaction. */
@Timeout(30)
class IdleCompactionTest {
  private static final long MIB = 1L << 20;

  @Test
  void compactsOnceWhenIdleAndAgainOnlyAfterTheHeapGrew() {
    IdleCompaction.Decision d = new IdleCompaction.Decision();
    assertThat(d.due(true, 60 * MIB)).as("collections ran: busy").isFalse();
    assertThat(d.due(false, 60 * MIB)).as("a period without any: idle, and nothing compacted yet").isTrue();
    d.compacted(38 * MIB);
    assertThat(d.due(false, 40 * MIB)).as("still idle, but compacted already").isFalse();
    assertThat(d.due(true, 50 * MIB)).as("G1's periodic cycle or a little traffic").isFalse();
    assertThat(d.due(false, 38 * MIB + IdleCompaction.GROWTH - 1)).as("grew less than GROWTH").isFalse();
    assertThat(d.due(true, 80 * MIB)).as("traffic: busy").isFalse();
    assertThat(d.due(false, 38 * MIB + IdleCompaction.GROWTH)).as("idle again after growing").isTrue();
    d.compacted(45 * MIB);
    assertThat(d.due(false, 50 * MIB)).isFalse();
  }

  @Test
  void theThreadStopsWhenAsked() throws Exception {
    IdleCompaction c = IdleCompaction.start();
    Thread t = Thread.getAllStackTraces().keySet().stream().filter(x -> x.getName().equals("loupe-idle-gc"))
        .findFirst().orElseThrow();
    assertThat(t.isDaemon()).isTrue();
    c.stop();
    t.join(10_000);
    assertThat(t.isAlive()).isFalse();
  }
}
