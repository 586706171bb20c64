package dev.loupe.ui.common;

import java.util.List;
import javafx.scene.Node;

/**
 * Style classes a cell switches between on every update. Any change to a node's style classes makes JavaFX match its
 * whole subtree against the style sheets again (a table row: the row, a dozen cells and their texts), so a class is
 * removed or added only when it differs: {@code removeAll(...)} followed by {@code add(...)} of the class already there
 * cost two such passes per row shown.
 */
public final class StyleClasses {
  private StyleClasses() {}

  /** Gives {@code node} {@code wanted} (or none, null) of the classes {@code family}, touching its list only if needed. */
  public static void choose(Node node, String wanted, String... family) {
    List<String> classes = node.getStyleClass();
    for (String c : family) {
      if (!c.equals(wanted) && classes.contains(c)) {
        classes.remove(c);
      }
    }
    if (wanted != null && !classes.contains(wanted)) {
      classes.add(wanted);
    }
  }
}
