package dev.loupe.ui.intercept;

import java.util.function.Function;
import javafx.beans.property.Property;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.collections.FXCollections;
import javafx.scene.control.ComboBox;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Control;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TextField;

/**
 * Table columns whose cells are always editors (a text field or a combo box) kept in step with a
 * property of the row: no edit mode to enter and no commit to forget, which suits the short
 * editable tables of the intercept windows (headers, rewrite rows). Focusing an editor selects
 * its row, so Remove/Up/Down act on the row being edited.
 */
final class BoundCells {
  private BoundCells() {}

  /** A column of text fields (style class {@code styleClass}) over {@code property} of each row. */
  static <R> TableColumn<R, R> text(String name, double width, String styleClass, Function<R, ? extends Property<String>> property) {
    return column(name, width, () -> {
      TextField f = new TextField();
      f.getStyleClass().add(styleClass);
      return f;
    }, f -> ((TextField) f).textProperty(), property);
  }

  /** A column of combo boxes offering {@code values} (shown as {@code label} says) over {@code property} of each row. */
  @SafeVarargs
  static <R, E> TableColumn<R, R> choice(String name, double width, String styleClass,
      Function<R, ? extends Property<E>> property, Function<E, String> label, E... values) {
    return column(name, width, () -> {
      ComboBox<E> c = new ComboBox<>(FXCollections.observableArrayList(values));
      c.getStyleClass().add(styleClass);
      c.setMaxWidth(Double.MAX_VALUE);
      c.setConverter(new javafx.util.StringConverter<>() {
        @Override
        public String toString(E e) {
          return e == null ? "" : label.apply(e);
        }

        @Override
        public E fromString(String s) {
          for (E e : values) {
            if (label.apply(e).equals(s)) {
              return e;
            }
          }
          return null;
        }
      });
      return c;
    }, c -> {
      @SuppressWarnings("unchecked")
      ComboBox<E> box = (ComboBox<E>) c;
      return box.valueProperty();
    }, property);
  }

  private static <R, V> TableColumn<R, R> column(String name, double width, java.util.function.Supplier<Control> editor,
      Function<Control, Property<V>> editorValue, Function<R, ? extends Property<V>> property) {
    TableColumn<R, R> c = new TableColumn<>(name);
    c.setPrefWidth(width);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
    c.setCellFactory(col -> new TableCell<>() {
      private final Control control = editor.get();
      private final Property<V> shown = editorValue.apply(control);
      private final javafx.beans.value.ChangeListener<V> fromRow = (o, was, now) -> show(now);
      private Property<V> bound;
      private boolean showing;

      {
        setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
        control.focusedProperty().addListener((o, was, now) -> {
          if (now && getTableView() != null && getIndex() >= 0 && getIndex() < getTableView().getItems().size()) {
            getTableView().getSelectionModel().clearAndSelect(getIndex());
          }
        });
        // Only a change the user makes in a control on screen goes to the row: a cell the table
        // discarded (or is re-pointing at another row) must not write its stale value back.
        shown.addListener((o, was, now) -> {
          if (!showing && bound != null && control.getScene() != null && !java.util.Objects.equals(now, bound.getValue())) {
            bound.setValue(now);
          }
        });
      }

      private void show(V v) {
        showing = true;
        try {
          shown.setValue(v);
        } finally {
          showing = false;
        }
      }

      @Override
      protected void updateItem(R item, boolean empty) {
        super.updateItem(item, empty);
        if (bound != null) {
          bound.removeListener(fromRow);
          bound = null;
        }
        if (empty || item == null) {
          setGraphic(null);
          return;
        }
        bound = property.apply(item);
        show(bound.getValue());
        bound.addListener(fromRow);
        setGraphic(control);
      }
    });
    return c;
  }
}
