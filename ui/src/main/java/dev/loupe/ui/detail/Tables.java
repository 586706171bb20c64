package dev.loupe.ui.detail;

import java.util.function.Function;
import java.util.function.Predicate;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.ObservableList;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;

/** The two-column name/value tables of the pane (headers, connection), with section rows. */
final class Tables {
  private Tables() {}

  static <T> TableView<T> nameValue(String id, ObservableList<T> items, Function<T, String> name,
      Function<T, String> value, Predicate<T> section) {
    TableView<T> t = new TableView<>(items);
    t.setId(id);
    t.getStyleClass().add("name-value-table");
    t.getColumns().add(column("Name", 240, name));
    t.getColumns().add(column("Value", 640, value));
    t.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_LAST_COLUMN);
    t.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
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

  static <T, V> TableColumn<T, V> column(String title, double width, Function<T, V> f) {
    TableColumn<T, V> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(f.apply(cd.getValue())));
    return c;
  }
}
