package dev.loupe.ui.diff;

import dev.loupe.engine.api.session.DiffInput;
import dev.loupe.engine.api.session.FlowDiff;
import dev.loupe.engine.api.session.model.DiffOptions;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Function;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.input.KeyCode;
import javafx.scene.input.MouseButton;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * The window of a session diff ({@link SessionDiffViewModel}): filters on top (Changed, Removed,
 * Added with their counts; what changed; URL text), the lines in a table (kind, method, URL, A's
 * and B's flow and status, time difference, what changed), the counts and a Compare button at the
 * bottom. A changed line opens in the two-flow compare ({@link DiffWindow}) with Compare, Enter or a
 * double click. Export JSON… and Export Markdown… write the whole diff.
 *
 * <p>Node ids: {@code session-diff-changed}, {@code -removed}, {@code -added}, {@code -aspect},
 * {@code -filter}, {@code -table}, {@code -status}, {@code -compare}, {@code -export-json},
 * {@code -export-md}. Row style classes: {@code diff-changed}, {@code diff-removed}, {@code diff-added}.
 */
public final class SessionDiffWindow {
  private final Stage stage = new Stage();
  private final SessionDiffViewModel vm;
  private final TableView<FlowDiff> table = new TableView<>();
  private final ReadOnlyStringWrapper notice = new ReadOnlyStringWrapper("");
  /** Asks where to export: (title, suggested name) → file or null; a chooser unless a test replaces it. */
  private BiFunction<String, String, Path> saveAsker = this::chooseSaveFile;

  private SessionDiffWindow(Window owner, SessionDiffViewModel vm) {
    this.vm = vm;
    CheckBox changed = toggle("session-diff-changed", "Changed", vm.showChangedProperty(), FlowDiff.Kind.CHANGED);
    CheckBox removed = toggle("session-diff-removed", "Removed", vm.showRemovedProperty(), FlowDiff.Kind.REMOVED);
    CheckBox added = toggle("session-diff-added", "Added", vm.showAddedProperty(), FlowDiff.Kind.ADDED);
    ChoiceBox<SessionDiffViewModel.AspectFilter> aspect = new ChoiceBox<>();
    aspect.setId("session-diff-aspect");
    aspect.getItems().setAll(SessionDiffViewModel.AspectFilter.values());
    aspect.valueProperty().bindBidirectional(vm.aspectProperty());
    TextField filter = new TextField();
    filter.setId("session-diff-filter");
    filter.setPromptText("Filter by method or URL");
    filter.textProperty().bindBidirectional(vm.textProperty());
    HBox.setHgrow(filter, Priority.ALWAYS);
    Button exportJson = new Button("Export JSON…");
    exportJson.setId("session-diff-export-json");
    exportJson.setOnAction(e -> export(true));
    Button exportMd = new Button("Export Markdown…");
    exportMd.setId("session-diff-export-md");
    exportMd.setOnAction(e -> export(false));
    HBox top = new HBox(8, changed, removed, added, aspect, filter, exportJson, exportMd);
    top.setAlignment(Pos.CENTER_LEFT);
    top.setPadding(new Insets(6, 8, 6, 8));

    table.setId("session-diff-table");
    table.setItems(vm.shown());
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table.getColumns().add(column("", 80, d -> d.kind().label()));
    table.getColumns().add(column("Method", 70, d -> d.either().method()));
    table.getColumns().add(column("URL", 380, d -> d.either().url()));
    table.getColumns().add(column("A", 90, d -> side(d.a())));
    table.getColumns().add(column("B", 90, d -> side(d.b())));
    table.getColumns().add(column("Δ time", 80, d -> Double.isNaN(d.timingDeltaMs()) ? ""
        : String.format(Locale.ROOT, "%+.1f ms", d.timingDeltaMs())));
    table.getColumns().add(column("Changes", 300, SessionDiffWindow::changes));
    table.setRowFactory(t -> {
      TableRow<FlowDiff> row = new TableRow<>() {
        @Override
        protected void updateItem(FlowDiff d, boolean empty) {
          super.updateItem(d, empty);
          getStyleClass().removeAll("diff-changed", "diff-removed", "diff-added");
          if (!empty && d != null) {
            getStyleClass().add("diff-" + d.kind().label());
          }
        }
      };
      row.setOnMouseClicked(e -> {
        if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 2 && !row.isEmpty()) {
          compare(row.getItem());
        }
      });
      return row;
    });
    table.setOnKeyPressed(e -> {
      if (e.getCode() == KeyCode.ENTER) {
        compare(table.getSelectionModel().getSelectedItem());
      }
    });
    Label placeholder = new Label();
    placeholder.textProperty().bind(Bindings.when(vm.runningProperty()).then("Comparing…")
        .otherwise("No lines (nothing differs, or the filters hide them)"));
    table.setPlaceholder(placeholder);

    ProgressIndicator busy = new ProgressIndicator();
    busy.setPrefSize(16, 16);
    busy.visibleProperty().bind(vm.runningProperty());
    busy.managedProperty().bind(busy.visibleProperty());
    Label status = new Label();
    status.setId("session-diff-status");
    status.textProperty().bind(Bindings.when(notice.isEmpty()).then(vm.statusProperty()).otherwise(notice));
    Region space = new Region();
    HBox.setHgrow(space, Priority.ALWAYS);
    Button compare = new Button("Compare flows");
    compare.setId("session-diff-compare");
    compare.disableProperty().bind(Bindings.createBooleanBinding(() -> {
      FlowDiff d = table.getSelectionModel().getSelectedItem();
      return d == null || d.kind() != FlowDiff.Kind.CHANGED;
    }, table.getSelectionModel().selectedItemProperty()));
    compare.setOnAction(e -> compare(table.getSelectionModel().getSelectedItem()));
    HBox bottom = new HBox(8, busy, status, space, compare);
    bottom.setAlignment(Pos.CENTER_LEFT);
    bottom.setPadding(new Insets(6, 8, 6, 8));

    BorderPane root = new BorderPane(table, top, null, bottom, null);
    root.setId("session-diff");
    root.getStyleClass().add("diff-view"); // the row colours of diff.css
    root.getStylesheets().add(DiffView.class.getResource("/dev/loupe/ui/diff.css").toExternalForm());
    Scene scene = new Scene(root, 1200, 640);
    if (owner != null && owner.getScene() != null) {
      scene.getStylesheets().addAll(owner.getScene().getStylesheets());
      stage.initOwner(owner);
    }
    stage.setScene(scene);
    stage.setTitle("Loupe — " + vm.nameA() + " vs " + vm.nameB() + " (" + vm.options().describeMatching() + ")");
    stage.setOnHidden(e -> vm.close());
    stage.getProperties().put(SessionDiffWindow.class, this); // found from the stage (tests, window menus)
  }

  /**
   * Opens a window diffing {@code a} with {@code b} and starts the diff. The window closes the
   * inputs when it closes.
   */
  public static SessionDiffWindow open(Window owner, DiffInput a, String nameA, DiffInput b, String nameB,
      DiffOptions options, Path spoolDir) {
    ExecutorService background = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-session-diff");
      t.setDaemon(true);
      return t;
    });
    SessionDiffViewModel vm = new SessionDiffViewModel(a, nameA, b, nameB, options, Platform::runLater, background,
        spoolDir);
    SessionDiffWindow w = new SessionDiffWindow(owner, vm);
    w.stage.show();
    vm.start();
    return w;
  }

  private CheckBox toggle(String id, String text, javafx.beans.property.BooleanProperty on, FlowDiff.Kind kind) {
    CheckBox c = new CheckBox(text);
    c.setId(id);
    c.selectedProperty().bindBidirectional(on);
    c.textProperty().bind(Bindings.createStringBinding(() -> {
      var s = vm.summaryProperty().get();
      if (s == null) {
        return text;
      }
      long n = switch (kind) {
        case CHANGED -> s.changed();
        case REMOVED -> s.removed();
        case ADDED -> s.added();
      };
      return text + " (" + n + ")";
    }, vm.summaryProperty()));
    return c;
  }

  private static TableColumn<FlowDiff, String> column(String title, double width, Function<FlowDiff, String> value) {
    TableColumn<FlowDiff, String> c = new TableColumn<>(title);
    c.setPrefWidth(width);
    c.setCellValueFactory(cd -> new javafx.beans.property.ReadOnlyStringWrapper(value.apply(cd.getValue())));
    return c;
  }

  private static String side(FlowDiff.Side s) {
    return s == null ? "" : "#" + s.id() + (s.status() == 0 ? "" : " · " + s.status());
  }

  /** "status 200 → 503; response header x-version; response body". */
  static String changes(FlowDiff d) {
    StringBuilder sb = new StringBuilder();
    for (FlowDiff.Change c : d.changes()) {
      if (sb.length() > 0) {
        sb.append("; ");
      }
      switch (c.aspect()) {
        case STATUS -> sb.append("status ").append(c.before() == null ? "none" : c.before()).append(" → ")
            .append(c.after() == null ? "none" : c.after());
        case ERROR -> sb.append(c.after() == null ? "no longer fails" : "fails: " + c.after());
        case REQUEST_HEADER -> sb.append("request header ").append(c.name());
        case RESPONSE_HEADER -> sb.append("response header ").append(c.name());
        case REQUEST_BODY -> sb.append("request body");
        case RESPONSE_BODY -> sb.append("response body");
        case WEBSOCKET_COUNT -> sb.append("WebSocket messages ").append(c.name()).append(' ').append(c.before())
            .append(" → ").append(c.after());
        case WEBSOCKET_MESSAGE -> sb.append("WebSocket message ").append(c.name());
        case TIMING -> sb.append("time ").append(c.before()).append(" → ").append(c.after());
      }
    }
    return sb.toString();
  }

  /** Opens the two-flow compare for a changed line (nothing for others). */
  public void compare(FlowDiff d) {
    if (d == null || d.kind() != FlowDiff.Kind.CHANGED) {
      return;
    }
    notice.set("Loading #" + d.a().id() + " and #" + d.b().id() + "…");
    vm.pair(d).whenComplete((flows, failure) -> Platform.runLater(() -> {
      if (failure != null) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        notice.set("Cannot compare: " + cause.getMessage());
        return;
      }
      notice.set("");
      DiffWindow.compare(stage, "A", flows[0], "B", flows[1]);
    }));
  }

  private void export(boolean json) {
    String stamp = vm.nameA().replaceAll("[^A-Za-z0-9._-]", "_") + "-vs-" + vm.nameB().replaceAll("[^A-Za-z0-9._-]", "_");
    Path file = saveAsker.apply(json ? "Export the diff as JSON" : "Export the diff as Markdown",
        "diff-" + stamp + (json ? ".json" : ".md"));
    if (file != null) {
      notice.set("Exporting…");
      vm.export(file, json, notice::set);
    }
  }

  private Path chooseSaveFile(String title, String suggested) {
    FileChooser chooser = new FileChooser();
    chooser.setTitle(title);
    chooser.setInitialFileName(suggested);
    java.io.File f = chooser.showSaveDialog(stage);
    return f == null ? null : f.toPath();
  }

  /** Tests answer the save dialog themselves. */
  public void saveAsker(BiFunction<String, String, Path> asker) {
    this.saveAsker = asker;
  }

  public Stage stage() {
    return stage;
  }

  public SessionDiffViewModel viewModel() {
    return vm;
  }
}
