package dev.loupe.ui.intercept;

import dev.loupe.ui.common.HeaderEntry;
import javafx.collections.ObservableList;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Button;
import javafx.scene.control.TableView;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;

/**
 * An editable header table: every cell is a text field bound to its {@link HeaderEntry} (no edit
 * mode to enter or commit), with Add and Remove buttons. Ids: the table gets {@code id}, the buttons
 * {@code id-add} and {@code id-remove}; the fields carry the style classes {@code header-name} and
 * {@code header-value}.
 */
final class HeaderTable {
  private final BorderPane root = new BorderPane();
  private final TableView<HeaderEntry> table = new TableView<>();

  HeaderTable(String id, ObservableList<HeaderEntry> entries) {
    table.setId(id);
    table.setItems(entries);
    table.setEditable(false);
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table.setPlaceholder(new javafx.scene.control.Label("No headers"));
    table.getColumns().add(BoundCells.text("Name", 200, "header-name", HeaderEntry::nameProperty));
    table.getColumns().add(BoundCells.text("Value", 400, "header-value", HeaderEntry::valueProperty));

    Button add = new Button("Add");
    add.setId(id + "-add");
    add.setOnAction(e -> {
      HeaderEntry row = new HeaderEntry("", "");
      int at = table.getSelectionModel().getSelectedIndex();
      int index = at < 0 ? entries.size() : at + 1;
      entries.add(index, row);
      table.getSelectionModel().clearAndSelect(index);
      table.scrollTo(index);
    });
    Button remove = new Button("Remove");
    remove.setId(id + "-remove");
    remove.disableProperty().bind(table.getSelectionModel().selectedItemProperty().isNull());
    remove.setOnAction(e -> {
      int at = table.getSelectionModel().getSelectedIndex();
      if (at >= 0) {
        entries.remove(at);
      }
    });
    HBox buttons = new HBox(6, add, remove);
    buttons.setAlignment(Pos.CENTER_LEFT);
    buttons.getStyleClass().add("intercept-buttons");
    root.setCenter(table);
    root.setBottom(buttons);
  }

  Node node() {
    return root;
  }

  TableView<HeaderEntry> table() {
    return table;
  }
}
