package dev.loupe.ui.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import javafx.collections.ListChangeListener;
import org.junit.jupiter.api.Test;

/** A class is switched only when it differs: each change of a node's classes restyles its whole subtree. */
class StyleClassesTest {
  @Test
  void touchesTheListOnlyWhenTheClassChanges() {
    javafx.scene.Group cell = new javafx.scene.Group(); // any node (a control needs the toolkit running)
    cell.getStyleClass().add("table-cell");
    AtomicInteger changes = new AtomicInteger();
    cell.getStyleClass().addListener((ListChangeListener<String>) c -> changes.incrementAndGet());

    StyleClasses.choose(cell, "status-4xx", "status-4xx", "status-5xx");
    assertThat(cell.getStyleClass()).containsExactly("table-cell", "status-4xx");
    assertThat(changes).hasValue(1);

    StyleClasses.choose(cell, "status-4xx", "status-4xx", "status-5xx"); // the same: nothing happens
    StyleClasses.choose(cell, "status-4xx", "status-4xx", "status-5xx");
    assertThat(changes).hasValue(1);

    StyleClasses.choose(cell, "status-5xx", "status-4xx", "status-5xx");
    assertThat(cell.getStyleClass()).containsExactly("table-cell", "status-5xx");
    assertThat(changes).hasValue(3);

    StyleClasses.choose(cell, null, "status-4xx", "status-5xx");
    StyleClasses.choose(cell, null, "status-4xx", "status-5xx");
    assertThat(cell.getStyleClass()).containsExactly("table-cell");
    assertThat(changes).hasValue(4);
  }
}
