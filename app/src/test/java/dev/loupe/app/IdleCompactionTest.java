package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.event.Event;
import javafx.scene.Scene;
import javafx.scene.input.MouseButton;
import javafx.scene.input.MouseEvent;
import javafx.scene.layout.Pane;
import javafx.stage.Stage;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When the window compacts its heap: idle for a whole period, and grown since the last compaction. */
@Timeout(30)
class IdleCompactionTest {
  private static final long MIB = 1L << 20;

  @Test
  void compactsOnceWhenIdleAndAgainOnlyAfterTheHeapGrew() {
    IdleCompaction.Decision d = new IdleCompaction.Decision();
    assertThat(d.due(true, false, 60 * MIB)).as("collections ran: busy").isFalse();
    assertThat(d.due(false, false, 60 * MIB)).as("a period without any: idle, and nothing compacted yet").isTrue();
    d.compacted(38 * MIB);
    assertThat(d.due(false, false, 40 * MIB)).as("still idle, but compacted already").isFalse();
    assertThat(d.due(true, false, 50 * MIB)).as("G1's periodic cycle or a little traffic").isFalse();
    assertThat(d.due(false, false, 38 * MIB + IdleCompaction.GROWTH - 1)).as("grew less than GROWTH").isFalse();
    assertThat(d.due(true, false, 80 * MIB)).as("traffic: busy").isFalse();
    assertThat(d.due(false, true, 80 * MIB)).as("no collection, but the user scrolled or typed").isFalse();
    assertThat(d.due(false, false, 38 * MIB + IdleCompaction.GROWTH)).as("idle again after growing").isTrue();
    d.compacted(45 * MIB);
    assertThat(d.due(false, false, 50 * MIB)).isFalse();
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

  @Test
  void inputInAnyWindowCountsAsUse() throws Exception {
    // headless glass (Monocle), software rendering: no display needed; the toolkit stays up for this JVM
    System.setProperty("glass.platform", "Monocle");
    System.setProperty("monocle.platform", "Headless");
    System.setProperty("prism.order", "sw");
    assertThat(IdleCompaction.watchInput()).as("before the toolkit starts: ask again later").isFalse();
    CountDownLatch started = new CountDownLatch(1);
    Platform.startup(started::countDown);
    assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(IdleCompaction.watchInput()).isTrue();

    Pane root = new Pane();
    CountDownLatch shown = new CountDownLatch(1);
    Platform.runLater(() -> { // a window opened after the watch began is watched too
      Stage stage = new Stage();
      stage.setScene(new Scene(root, 200, 100));
      stage.show();
      shown.countDown();
    });
    assertThat(shown.await(20, TimeUnit.SECONDS)).isTrue();
    long before = System.nanoTime();
    Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
        .until(() -> !IdleCompaction.inputSince(before));
    Platform.runLater(() -> Event.fireEvent(root, new MouseEvent(MouseEvent.MOUSE_MOVED, 10, 10, 10, 10,
        MouseButton.NONE, 0, false, false, false, false, false, false, false, false, false, false, null)));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> IdleCompaction.inputSince(before));
  }
}
