package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.StyleClasses;
import dev.loupe.ui.flows.FlowRow;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.Tooltip;

/**
 * The flow table's marks column ({@code col-marks}): {@code ✎} for a flow a rule or breakpoint
 * changed (style class {@code flow-mark-modified}, the tooltip says what changed it), {@code ↻12}
 * for a replay of flow #12 ({@code flow-mark-replay}). Both may show.
 */
public final class FlowMarks {
  private FlowMarks() {}

  /** The marks of {@code f}: {@code "✎ ↻12"}, {@code "✎"}, {@code "↻12"} or empty. */
  public static String marks(Flow f) {
    return marks(f.modifiedBy(), f.replayOf());
  }

  /** What the marks' tooltip says, or null when there are none. */
  public static String explain(Flow f) {
    return explain(f.modifiedBy(), f.replayOf());
  }

  private static String marks(java.util.List<String> modifiedBy, long replayOf) {
    StringBuilder sb = new StringBuilder();
    if (!modifiedBy.isEmpty()) {
      sb.append('✎');
    }
    if (replayOf >= 0) {
      sb.append(sb.length() == 0 ? "" : " ").append('↻').append(replayOf);
    }
    return sb.toString();
  }

  private static String explain(java.util.List<String> modifiedBy, long replayOf) {
    StringBuilder sb = new StringBuilder();
    if (!modifiedBy.isEmpty()) {
      sb.append(DetailViewModel.modifiedByText(java.util.List.copyOf(modifiedBy)));
    }
    if (replayOf >= 0) {
      sb.append(sb.length() == 0 ? "" : "\n").append("Replay of #").append(replayOf);
    }
    return sb.length() == 0 ? null : sb.toString();
  }

  /** Puts the marks column after the id column of {@code table}, with its styles. */
  public static void install(javafx.scene.control.TableView<FlowRow> table) {
    table.getColumns().add(Math.min(1, table.getColumns().size()), column());
    table.getStylesheets().add(FlowMarks.class.getResource("/dev/loupe/ui/diff.css").toExternalForm());
  }

  /** A new marks column for the flow table. */
  public static TableColumn<FlowRow, FlowRow> column() {
    TableColumn<FlowRow, FlowRow> c = new TableColumn<>("✎");
    c.setId("col-marks");
    c.setPrefWidth(56);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
    c.setCellFactory(col -> new TableCell<>() {
      @Override
      protected void updateItem(FlowRow r, boolean empty) {
        super.updateItem(r, empty);
        String wanted = empty || r == null ? null
            : !r.modifiedBy().isEmpty() ? "flow-mark-modified" : r.replayOf() >= 0 ? "flow-mark-replay" : null;
        StyleClasses.choose(this, wanted, "flow-mark-modified", "flow-mark-replay");
        if (empty || r == null) {
          setText(null);
          setTooltip(null);
          return;
        }
        // from the row's columns: a stored flow is not read back just to draw its marks
        setText(marks(r.modifiedBy(), r.replayOf()));
        String tip = explain(r.modifiedBy(), r.replayOf());
        setTooltip(tip == null ? null : new Tooltip(tip));
      }
    });
    return c;
  }
}
