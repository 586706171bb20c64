package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import java.io.File;
import java.util.function.Function;
import javafx.beans.property.StringProperty;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.Label;
import javafx.scene.control.TableView;
import javafx.scene.control.TextField;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;
import javafx.stage.DirectoryChooser;
import javafx.stage.FileChooser;
import javafx.stage.Modality;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.StringConverter;

/**
 * The editor of one rule: name, filter (its syntax error inline, as in the main filter bar),
 * enabled, and the fields of its type (Map Local: a path with file and folder choosers; Map Remote:
 * a URL; Rewrite: a table of changes; Block: how; Throttle: rate with units and latency). Save is
 * enabled while {@link RuleEditorViewModel#validProperty()} holds and hands the rule to {@code
 * save}, which returns null or a problem to show (the dialog then stays open).
 *
 * <p>Ids: {@code rule-name}, {@code rule-filter}, {@code rule-filter-error}, {@code rule-enabled},
 * {@code rule-local-path}, {@code rule-local-file}, {@code rule-local-dir}, {@code
 * rule-strip-prefix}, {@code rule-remote-url}, {@code rule-keep-path}, {@code rule-ops} (cells:
 * {@code .op-side}, {@code .op-kind}, {@code .op-match}, {@code .op-value}), {@code rule-ops-add},
 * {@code rule-ops-remove}, {@code rule-ops-up}, {@code rule-ops-down}, {@code rule-block-mode},
 * {@code rule-block-status}, {@code rule-rate}, {@code rule-rate-unit}, {@code rule-latency},
 * {@code rule-error}, {@code rule-save}, {@code rule-cancel}.
 */
final class RuleEditorDialog {
  private final Stage stage = new Stage();
  private final RuleEditorViewModel vm;

  RuleEditorDialog(Window owner, RuleEditorViewModel vm, Function<Rule, String> save) {
    this.vm = vm;
    GridPane common = grid();
    TextField name = field("rule-name", vm.nameProperty());
    name.setPromptText("(blank: the action's description)");
    TextField filter = field("rule-filter", vm.filterProperty());
    filter.setPromptText("which flows, e.g. ~d api.example.com & ~m POST (blank: all)");
    Label filterError = error("rule-filter-error");
    filterError.textProperty().bind(vm.filterErrorProperty());
    CheckBox enabled = new CheckBox("Enabled");
    enabled.setId("rule-enabled");
    enabled.selectedProperty().bindBidirectional(vm.enabledProperty());
    common.addRow(0, new Label("Name"), name);
    common.addRow(1, new Label("Filter"), filter);
    common.add(filterError, 1, 2);
    common.add(enabled, 1, 3);

    Label help = new Label(vm.type().help());
    help.getStyleClass().add("intercept-title");
    Node specific = switch (vm.type()) {
      case MAP_LOCAL -> mapLocal();
      case MAP_REMOTE -> mapRemote();
      case REWRITE -> rewrite();
      case BLOCK -> block();
      case THROTTLE -> throttle();
    };
    VBox.setVgrow(specific, Priority.ALWAYS);

    Label error = error("rule-error");
    error.setWrapText(true);
    error.textProperty().bind(vm.errorProperty());
    Label saveProblem = error("rule-save-problem");
    saveProblem.setWrapText(true);

    Button ok = new Button("Save");
    ok.setId("rule-save");
    ok.setDefaultButton(true);
    ok.disableProperty().bind(vm.validProperty().not());
    ok.setOnAction(e -> {
      Rule r = vm.build();
      if (r == null) {
        return;
      }
      String problem = save.apply(r);
      if (problem == null) {
        stage.close();
      } else {
        saveProblem.setText(problem);
      }
    });
    Button cancel = new Button("Cancel");
    cancel.setId("rule-cancel");
    cancel.setCancelButton(true);
    cancel.setOnAction(e -> stage.close());
    ButtonBar buttons = new ButtonBar();
    ButtonBar.setButtonData(ok, ButtonBar.ButtonData.OK_DONE);
    ButtonBar.setButtonData(cancel, ButtonBar.ButtonData.CANCEL_CLOSE);
    buttons.getButtons().addAll(ok, cancel);

    VBox root = new VBox(10, help, common, specific, error, saveProblem, buttons);
    root.setPadding(new Insets(12));
    root.getStyleClass().add("rule-editor");
    Scene scene = new Scene(root, vm.type() == RuleEditorViewModel.Type.REWRITE ? 820 : 620,
        vm.type() == RuleEditorViewModel.Type.REWRITE ? 560 : 400);
    if (owner != null) {
      stage.initOwner(owner);
      stage.initModality(Modality.WINDOW_MODAL);
      if (owner.getScene() != null) {
        scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      }
    }
    stage.setTitle((vm.editing() ? "Edit " : "New ") + vm.type().label() + " rule");
    stage.setScene(scene);
  }

  Stage stage() {
    return stage;
  }

  void show() {
    stage.show();
  }

  private Node mapLocal() {
    GridPane g = grid();
    TextField path = field("rule-local-path", vm.localPathProperty());
    path.setPromptText("a file (always answered) or a directory (the request path is looked up in it)");
    Button file = new Button("File…");
    file.setId("rule-local-file");
    file.setOnAction(e -> {
      FileChooser c = new FileChooser();
      c.setTitle("Answer with this file");
      File f = c.showOpenDialog(stage);
      if (f != null) {
        vm.localPathProperty().set(f.getAbsolutePath());
      }
    });
    Button dir = new Button("Folder…");
    dir.setId("rule-local-dir");
    dir.setOnAction(e -> {
      DirectoryChooser c = new DirectoryChooser();
      c.setTitle("Answer from this folder");
      File f = c.showDialog(stage);
      if (f != null) {
        vm.localPathProperty().set(f.getAbsolutePath());
      }
    });
    HBox.setHgrow(path, Priority.ALWAYS);
    HBox pathRow = new HBox(6, path, file, dir);
    TextField strip = field("rule-strip-prefix", vm.stripPrefixProperty());
    strip.setPromptText("e.g. /static (directories only; optional)");
    g.addRow(0, new Label("Path"), pathRow);
    g.addRow(1, new Label("Strip prefix"), strip);
    g.add(note("A directory serves index.html for a folder; a path that escapes it or does not exist gets 404. "
        + "The origin is not contacted."), 1, 2);
    return g;
  }

  private Node mapRemote() {
    GridPane g = grid();
    TextField url = field("rule-remote-url", vm.remoteUrlProperty());
    url.setPromptText("https://staging.example.com:8443/v2");
    CheckBox keep = new CheckBox("Append the request's path and query to this URL");
    keep.setId("rule-keep-path");
    keep.selectedProperty().bindBidirectional(vm.keepPathProperty());
    g.addRow(0, new Label("URL"), url);
    g.add(keep, 1, 1);
    g.add(note("With the box ticked, /users?id=1 goes to /v2/users?id=1; without it, to the URL exactly. "
        + "The Host header follows."), 1, 2);
    return g;
  }

  private Node rewrite() {
    TableView<RuleEditorViewModel.OpRow> table = new TableView<>(vm.ops());
    table.setId("rule-ops");
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table.setPlaceholder(new Label("No changes yet: Add one"));
    table.getColumns().add(BoundCells.choice("Side", 120, "op-side", RuleEditorViewModel.OpRow::sideProperty,
        side -> side == RewriteOp.Side.REQUEST ? "Request" : "Response", RewriteOp.Side.values()));
    table.getColumns().add(BoundCells.choice("Change", 170, "op-kind", RuleEditorViewModel.OpRow::kindProperty,
        RuleEditorDialog::kindLabel, RewriteOp.Kind.values()));
    table.getColumns().add(BoundCells.text("Header or regex", 200, "op-match", RuleEditorViewModel.OpRow::matchProperty));
    table.getColumns().add(BoundCells.text("Value or replacement", 240, "op-value", RuleEditorViewModel.OpRow::valueProperty));
    Button add = new Button("Add");
    add.setId("rule-ops-add");
    add.setOnAction(e -> {
      vm.addOp();
      table.getSelectionModel().clearAndSelect(vm.ops().size() - 1);
    });
    Button remove = new Button("Remove");
    remove.setId("rule-ops-remove");
    remove.disableProperty().bind(table.getSelectionModel().selectedItemProperty().isNull());
    remove.setOnAction(e -> {
      int i = table.getSelectionModel().getSelectedIndex();
      if (i >= 0) {
        vm.ops().remove(i);
      }
    });
    Button up = new Button("Up");
    up.setId("rule-ops-up");
    up.setOnAction(e -> moveOp(table, -1));
    Button down = new Button("Down");
    down.setId("rule-ops-down");
    down.setOnAction(e -> moveOp(table, 1));
    HBox buttons = new HBox(6, add, remove, up, down);
    Label help = note("Set/Add/Remove header: the header name, and the value. Replace URL/query/body: a regex and "
        + "its replacement ($1 for groups). Set status: the status as the value (response only). Changes apply in order.");
    VBox box = new VBox(6, table, buttons, help);
    VBox.setVgrow(table, Priority.ALWAYS);
    return box;
  }

  /** "Set header", "Replace in body", … */
  static String kindLabel(RewriteOp.Kind k) {
    return switch (k) {
      case SET_HEADER -> "Set header";
      case ADD_HEADER -> "Add header";
      case REMOVE_HEADER -> "Remove header";
      case REPLACE_URL -> "Replace in URL";
      case REPLACE_QUERY -> "Replace in query";
      case REPLACE_BODY -> "Replace in body";
      case SET_STATUS -> "Set status";
    };
  }

  private void moveOp(TableView<RuleEditorViewModel.OpRow> table, int by) {
    int i = table.getSelectionModel().getSelectedIndex();
    int j = i + by;
    if (i < 0 || j < 0 || j >= vm.ops().size()) {
      return;
    }
    RuleEditorViewModel.OpRow row = vm.ops().remove(i);
    vm.ops().add(j, row);
    table.getSelectionModel().clearAndSelect(j);
  }

  private Node block() {
    GridPane g = grid();
    ChoiceBox<RuleAction.Block.Mode> mode = new ChoiceBox<>();
    mode.setId("rule-block-mode");
    mode.getItems().setAll(RuleAction.Block.Mode.values());
    mode.setConverter(new StringConverter<>() {
      @Override
      public String toString(RuleAction.Block.Mode m) {
        return m == null ? "" : switch (m) {
          case RESPOND -> "Answer with a status";
          case CLOSE -> "Close the connection (HTTP/2, HTTP/3: cancel the stream)";
          case RESET -> "Reset the connection (HTTP/2, HTTP/3: refuse the stream)";
        };
      }

      @Override
      public RuleAction.Block.Mode fromString(String s) {
        return null;
      }
    });
    mode.valueProperty().bindBidirectional(vm.blockModeProperty());
    TextField status = field("rule-block-status", vm.blockStatusProperty());
    status.setPrefColumnCount(5);
    status.disableProperty().bind(vm.blockModeProperty().isNotEqualTo(RuleAction.Block.Mode.RESPOND));
    g.addRow(0, new Label("How"), mode);
    g.addRow(1, new Label("Status"), status);
    return g;
  }

  private Node throttle() {
    GridPane g = grid();
    TextField rate = field("rule-rate", vm.rateProperty());
    rate.setPrefColumnCount(8);
    rate.setPromptText("unlimited");
    ChoiceBox<RuleEditorViewModel.RateUnit> unit = new ChoiceBox<>();
    unit.setId("rule-rate-unit");
    unit.getItems().setAll(RuleEditorViewModel.RateUnit.values());
    unit.valueProperty().bindBidirectional(vm.rateUnitProperty());
    TextField latency = field("rule-latency", vm.latencyProperty());
    latency.setPrefColumnCount(8);
    latency.setPromptText("none");
    g.addRow(0, new Label("Rate"), new HBox(6, rate, unit, note("per direction; blank or 0: unlimited")));
    g.addRow(1, new Label("Latency"), new HBox(6, latency, note("ms, added before the request and before the response")));
    return g;
  }

  private static GridPane grid() {
    GridPane g = new GridPane();
    g.setHgap(8);
    g.setVgap(6);
    g.setAlignment(Pos.TOP_LEFT);
    ColumnConstraints label = new ColumnConstraints();
    label.setMinWidth(80);
    ColumnConstraints wide = new ColumnConstraints();
    wide.setHgrow(Priority.ALWAYS);
    g.getColumnConstraints().addAll(label, wide);
    return g;
  }

  private static TextField field(String id, StringProperty p) {
    TextField f = new TextField();
    f.setId(id);
    f.textProperty().bindBidirectional(p);
    return f;
  }

  private static Label error(String id) {
    Label l = new Label();
    l.setId(id);
    l.getStyleClass().add("filter-error");
    return l;
  }

  static Label note(String text) {
    Label l = new Label(text);
    l.setWrapText(true);
    l.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE); // wrap instead of cutting the text off
    l.getStyleClass().add("intercept-note");
    return l;
  }
}
