package dev.loupe.ui.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AgentActivityTest {
  @Test
  void showsTheLatestCallWithoutItsTimeAndKeepsTheLastTwenty() {
    AtomicReference<Consumer<String>> listener = new AtomicReference<>();
    AtomicBoolean closed = new AtomicBoolean();
    AgentActivity activity = new AgentActivity(l -> {
      listener.set(l);
      return () -> closed.set(true);
    }, Runnable::run);
    assertThat(activity.latestProperty().get()).isEmpty();

    listener.get().accept("2026-12-02T10:00:00Z http get_flow {\"flowId\":1} ok 3ms\n");
    assertThat(activity.latestProperty().get()).isEqualTo("MCP: http get_flow {\"flowId\":1} ok 3ms");
    for (int i = 2; i <= 25; i++) {
      listener.get().accept("2026-12-02T10:00:00Z stdio list_flows error: bad filter " + i + " 1ms");
    }
    assertThat(activity.recentProperty().get().lines()).hasSize(AgentActivity.KEPT)
        .first().asString().contains("bad filter 6 ");
    listener.get().accept("t stdio export_har " + "x".repeat(200) + " ok 1ms");
    assertThat(activity.latestProperty().get()).hasSize(AgentActivity.SHOWN).endsWith("…");

    activity.close();
    assertThat(closed).isTrue();
  }
}
