package dev.loupe.ui.detail;

import java.util.function.Function;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.ObservableList;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import java.util.stream.Collectors;

/** The two-column name/value tables of the pane (headers, connection), with section rows. */
public final class Tables {
  private Tables() {}

  public static <T> TableView<T> nameValue(String id, ObservableList<T> items, Function<T, String> name,
      Function<T, String> value, Predicate<T> section) {
    TableView<T> t = new TableView<>(items);
    t.setId(id);
    t.getStyleClass().add("name-value-table");
    t.getColumns().add(column("Name", 240, name));
    t.getColumns().add(column("Value", 640, value));
    t.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_LAST_COLUMN);
    t.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
    copyOnShortcutC(t, row -> name.apply(row) + (section.test(row) ? "" : ": " + value.apply(row)));
    t.setRowFactory(tv -> new TableRow<>() {
      @Override
      protected void updateItem(T item, boolean empty) {
        super.updateItem(item, empty);
        getStyleClass().remove("section-row");
        if (!empty && item != null && section.test(item)) {
          getStyleClass().add("section-row");
        }
      }
    });
    return t;
  }

  /** Shortcut+C copies the selected rows, one line each. */
  static <T> void copyOnShortcutC(TableView<T> t, Function<T, String> line) {
    KeyCombination copy = new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN);
    t.addEventHandler(KeyEvent.KEY_PRESSED, e -> {
      if (copy.match(e) && !t.getSelectionModel().getSelectedItems().isEmpty()) {
        String text = t.getSelectionModel().getSelectedItems().stream().map(line).collect(Collectors.joining("\n"));
        ClipboardContent content = new ClipboardContent();
        content.putString(text);
        Clipboard.getSystemClipboard().setContent(content);
        e.consume();
      }
    });
  }

  static <T, V> TableColumn<T, V> column(String title, double width, Function<T, V> f) {
    TableColumn<T, V> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(f.apply(cd.getValue())));
    return c;
  }
}
