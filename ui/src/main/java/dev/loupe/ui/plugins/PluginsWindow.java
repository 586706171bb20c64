package dev.loupe.ui.plugins;

import java.util.function.Function;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Label;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * The Plugins window (not modal): a table of the session's plugins — on/off switch, name,
 * version, source, hooks, what it costs (observes, or changes the flows a filter matches), errors,
 * last error — with Reload for plugins from a jar or a script, the content views, and a message
 * line. Bound to a {@link PluginsViewModel}, which follows the registry live.
 *
 * <p>Ids: {@code plugins-table}, {@code plugins-reload} (the selected row), {@code plugins-views},
 * {@code plugins-message}; switch check boxes carry the style class {@code plugin-enabled}, a row's
 * own Reload button {@code plugin-reload}.
 */
public final class PluginsWindow {
  private final Stage stage = new Stage();
  private final PluginsViewModel vm;
  private final TableView<PluginRow> table;

  public PluginsWindow(Window owner, PluginsViewModel vm) {
    this.vm = vm;
    table = new TableView<>(vm.rows());
    table.setId("plugins-table");
    table.setPlaceholder(new Label("No plugins loaded. Put jars in CONFDIR/plugins, scripts in CONFDIR/scripts,"
        + " or start Loupe with --plugin PATH (docs/PLUGINS.md)."));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table.getColumns().add(enabledColumn());
    table.getColumns().add(text("Name", 130, PluginRow::name));
    table.getColumns().add(text("Version", 90, PluginRow::version));
    table.getColumns().add(text("Source", 230, PluginRow::source));
    table.getColumns().add(text("Hooks", 170, PluginRow::hooks));
    table.getColumns().add(text("Effect", 180, PluginRow::tier));
    table.getColumns().add(text("Errors", 60, r -> Long.toString(r.errors())));
    table.getColumns().add(reloadColumn());
    table.getColumns().add(text("Last error", 320, PluginRow::lastError));

    Button reload = new Button("Reload");
    reload.setId("plugins-reload");
    reload.setTooltip(new Tooltip("Read the selected plugin's jar or script again"));
    reload.disableProperty().bind(javafx.beans.binding.Bindings.createBooleanBinding(() -> {
      PluginRow r = table.getSelectionModel().getSelectedItem();
      return r == null || !r.reloadable();
    }, table.getSelectionModel().selectedItemProperty()));
    reload.setOnAction(e -> vm.reload(table.getSelectionModel().getSelectedItem()));
    Label views = new Label();
    views.setId("plugins-views");
    Runnable showViews = () -> views.setText(vm.contentViews().isEmpty() ? "No content views"
        : "Content views: " + String.join(", ", vm.contentViews()));
    vm.contentViews().addListener((javafx.collections.ListChangeListener<String>) c -> showViews.run());
    showViews.run();
    Label message = new Label();
    message.setId("plugins-message");
    message.textProperty().bind(vm.messageProperty());
    message.setWrapText(true);
    HBox bar = new HBox(12, reload, views);
    bar.setAlignment(Pos.CENTER_LEFT);
    HBox.setHgrow(views, Priority.ALWAYS);
    VBox bottom = new VBox(6, bar, message);
    bottom.setPadding(new Insets(8));
    BorderPane root = new BorderPane(table, null, null, bottom, null);
    Scene scene = new Scene(root, 1180, 420);
    if (owner != null) {
      stage.initOwner(owner);
      if (owner.getScene() != null) {
        scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      }
    }
    stage.setTitle("Loupe — Plugins");
    stage.setScene(scene);
  }

  public void show() {
    vm.refresh();
    stage.show();
    stage.toFront();
  }

  public Stage stage() {
    return stage;
  }

  private TableColumn<PluginRow, PluginRow> enabledColumn() {
    TableColumn<PluginRow, PluginRow> c = new TableColumn<>("On");
    c.setPrefWidth(44);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
    c.setCellFactory(col -> new TableCell<>() {
      private final CheckBox box = new CheckBox();

      {
        box.getStyleClass().add("plugin-enabled");
        setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
        setAlignment(Pos.CENTER);
        box.setOnAction(e -> {
          PluginRow r = getItem();
          if (r != null) {
            vm.setEnabled(r, box.isSelected());
          }
        });
      }

      @Override
      protected void updateItem(PluginRow item, boolean empty) {
        super.updateItem(item, empty);
        if (empty || item == null) {
          setGraphic(null);
        } else {
          box.setSelected(item.enabled());
          setGraphic(box);
        }
      }
    });
    return c;
  }

  private TableColumn<PluginRow, PluginRow> reloadColumn() {
    TableColumn<PluginRow, PluginRow> c = new TableColumn<>("");
    c.setPrefWidth(80);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
    c.setCellFactory(col -> new TableCell<>() {
      private final Button button = new Button("Reload");

      {
        button.getStyleClass().add("plugin-reload");
        setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
        button.setOnAction(e -> {
          if (getItem() != null) {
            vm.reload(getItem());
          }
        });
      }

      @Override
      protected void updateItem(PluginRow item, boolean empty) {
        super.updateItem(item, empty);
        setGraphic(empty || item == null || !item.reloadable() ? null : button);
      }
    });
    return c;
  }

  private static TableColumn<PluginRow, String> text(String name, double width, Function<PluginRow, String> f) {
    TableColumn<PluginRow, String> c = new TableColumn<>(name);
    c.setPrefWidth(width);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(f.apply(cd.getValue())));
    c.setCellFactory(col -> new TableCell<>() {
      @Override
      protected void updateItem(String item, boolean empty) {
        super.updateItem(item, empty);
        setText(empty ? null : item);
        setTooltip(empty || item == null || item.isEmpty() ? null : new Tooltip(item));
      }
    });
    return c;
  }
}
