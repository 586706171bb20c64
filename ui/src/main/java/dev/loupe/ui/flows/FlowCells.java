package dev.loupe.ui.flows;

import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.StyleClasses;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Skin;
import javafx.scene.control.TableCell;
import javafx.scene.control.Tooltip;
import javafx.scene.control.skin.TableCellSkin;

/**
 * The flow table's cells: text cells whose skin does not rebuild their children for every new text.
 *
 * <p>JavaFX's labeled skin answers every text change with {@code getChildren().setAll(text)}, which takes the text
 * node out of the cell and puts it back (scene graph checks, bounds): 10 % of the UI thread's samples while a
 * million-row table was scrolled (~400 cells per screen); 6 % less UI CPU per jump measured in one JVM, the two
 * alternated. A cell without a graphic that already holds its text node has nothing to change, so {@link TextSkin}
 * skips that; anything else goes the usual way.
 */
final class FlowCells {
  private FlowCells() {}

  /** A cell showing its value as text (as JavaFX's default cell does), with {@link TextSkin}. */
  static class TextCell<T> extends TableCell<FlowRow, T> {
    @Override
    protected void updateItem(T item, boolean empty) {
      super.updateItem(item, empty);
      setText(empty || item == null ? null : text(item));
    }

    /** The text shown for {@code item}. */
    String text(T item) {
      return item.toString();
    }

    @Override
    protected Skin<?> createDefaultSkin() {
      return new TextSkin<>(this);
    }
  }

  /** A cell's skin that keeps its children when only the text changed (see the class doc). */
  static final class TextSkin<T> extends TableCellSkin<FlowRow, T> {
    TextSkin(TableCell<FlowRow, T> cell) {
      super(cell);
    }

    @Override
    protected void updateChildren() {
      TableCell<FlowRow, T> cell = getSkinnable();
      if (cell.getGraphic() == null && getChildren().size() == 1
          && cell.getContentDisplay() != ContentDisplay.GRAPHIC_ONLY) {
        return; // already [text]: what the labeled skin would set again
      }
      super.updateChildren();
    }
  }

  /** Bytes as 335 B, 12.4 KiB, 18.5 MiB. */
  static final class SizeCell extends TextCell<Long> {
    @Override
    String text(Long bytes) {
      return FlowRow.humanBytes(bytes);
    }
  }

  /** The status code, coloured for 4xx/5xx ({@code status-4xx}, {@code status-5xx}); ERR or … without one. */
  static final class StatusCell extends TextCell<FlowRow> {
    @Override
    protected void updateItem(FlowRow r, boolean empty) {
      super.updateItem(r, empty);
      String wanted = empty || r == null ? null : r.paused() != null ? "status-paused"
          : r.status() >= 500 ? "status-5xx" : r.status() >= 400 ? "status-4xx" : null;
      StyleClasses.choose(this, wanted, "status-4xx", "status-5xx", "status-paused");
      if (empty || r == null) {
        return;
      }
      setTooltip(r.paused() == null ? null : new Tooltip(r.paused() == Flow.Paused.REQUEST
          ? "Paused before the request goes to the server" : "Paused before the response goes to the client"));
    }

    @Override
    String text(FlowRow r) {
      if (r.paused() != null) {
        return "paused";
      }
      return r.status() == 0 ? (r.error() ? "ERR" : "…") : Integer.toString(r.status());
    }
  }
}
