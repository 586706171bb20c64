package dev.loupe.ui.shell;

import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowTableView;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.control.ToolBar;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/**
 * The main window's content: toolbar (capture on/off, clear), filter bar with its inline error, the live flow
 * table and a status bar (listening address, flow count). Ctrl+F focuses the filter, Ctrl+L
 * clears.
 */
public final class MainWindow {
  private final BorderPane root = new BorderPane();
  private final FlowListViewModel flows;

  public MainWindow(FlowListViewModel flows, FlowStore store, String listening) {
    this.flows = flows;
    Button clear = new Button("Clear");
    clear.setId("clear");
    clear.setOnAction(e -> clear(store));
    javafx.scene.control.ToggleButton capture = new javafx.scene.control.ToggleButton("Capture");
    capture.setId("capture");
    capture.setSelected(store.capturing());
    capture.selectedProperty().addListener((o, was, on) -> store.capturing(on));
    capture.setTooltip(new javafx.scene.control.Tooltip("Record new flows (traffic is relayed either way)"));
    ToolBar toolbar = new ToolBar(capture, clear);

    TextField filter = new TextField();
    filter.setId("filter");
    filter.setPromptText("Filter: ~d example.com & ~m POST, status>=400, duration>500ms, /api/ ...");
    filter.textProperty().addListener((o, was, now) -> flows.filter(now));
    Label filterError = new Label();
    filterError.setId("filter-error");
    filterError.getStyleClass().add("filter-error");
    filterError.textProperty().bind(flows.filterErrorProperty());
    HBox.setHgrow(filter, Priority.ALWAYS);
    HBox filterBar = new HBox(8, filter, filterError);
    filterBar.setStyle("-fx-padding: 4 8 4 8; -fx-alignment: center-left;");

    FlowTableView table = new FlowTableView(flows);
    Label status = new Label();
    status.setId("status");
    status.textProperty().bind(flows.countProperty().asString("Listening on " + listening + " — %d flows"));
    HBox statusBar = new HBox(status);
    statusBar.setStyle("-fx-padding: 2 8 2 8;");

    root.setTop(new VBox(toolbar, filterBar));
    root.setCenter(table);
    root.setBottom(statusBar);
    root.sceneProperty().addListener((o, was, scene) -> {
      if (scene != null) {
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN), filter::requestFocus);
        scene.getAccelerators().put(new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN), () -> clear(store));
      }
    });
  }

  private void clear(FlowStore store) {
    store.clear();
    flows.clear();
  }

  public Parent root() {
    return root;
  }

  /** A scene of the usual size with Loupe's style sheet. */
  public Scene scene() {
    Scene scene = new Scene(root, 1200, 760);
    scene.getStylesheets().add(MainWindow.class.getResource("/dev/loupe/ui/loupe.css").toExternalForm());
    return scene;
  }
}
