package dev.loupe.ui.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.engine.api.intercept.Rule;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.CheckBox;
import javafx.scene.control.ContentDisplay;
import javafx.scene.control.Label;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.Separator;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.control.Tooltip;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.Dragboard;
import javafx.scene.input.MouseButton;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * The rules window (not modal): tab "Rules" (on/off for all, then a table: enabled, name, filter,
 * action; add by type, edit, duplicate, remove, move up/down or drag, import/export JSON) and tab
 * "Breakpoints" (on/off for all, then a table: enabled, filter, request, response; the same
 * commands). Changes apply at once (the engine sees them on the next request) and are saved by
 * the service. A failed import or export opens an error dialog naming the problem.
 *
 * <p>Ids: {@code rules-tabs}, {@code tab-rules}, {@code tab-breakpoints}; per tab, with prefix
 * {@code rules} or {@code bps}: {@code P-active}, {@code P-table}, {@code P-add} (rules: a menu with
 * {@code rules-add-map-local}, {@code -map-remote}, {@code -rewrite}, {@code -block}, {@code
 * -throttle}), {@code P-edit}, {@code P-duplicate} (rules), {@code P-remove}, {@code P-up}, {@code
 * P-down}, {@code P-import} (a menu: {@code P-import-replace}, {@code P-import-append}), {@code
 * P-export}, {@code P-message}. Table cells: {@code .entry-enabled}, {@code .bp-request}, {@code
 * .bp-response} check boxes. The error dialog's pane: {@code intercept-error}.
 */
public final class RulesWindow {
  /** Where import and export files come from: file choosers, unless a test answers. */
  interface Files {
    Path open(String title);

    Path save(String title, String suggestedName);
  }

  private final Stage stage = new Stage();
  private final InterceptListModel<Rule> rules;
  private final InterceptListModel<Breakpoint> breakpoints;
  private final TabPane tabs = new TabPane();
  private final Tab rulesTab;
  private final Tab breakpointsTab;
  private Files files = new Files() {
    @Override
    public Path open(String title) {
      FileChooser c = chooser(title);
      File f = c.showOpenDialog(stage);
      return f == null ? null : f.toPath();
    }

    @Override
    public Path save(String title, String suggestedName) {
      FileChooser c = chooser(title);
      c.setInitialFileName(suggestedName);
      File f = c.showSaveDialog(stage);
      return f == null ? null : f.toPath();
    }
  };

  public RulesWindow(Window owner, InterceptListModel<Rule> rules, InterceptListModel<Breakpoint> breakpoints) {
    this.rules = rules;
    this.breakpoints = breakpoints;

    TableView<Rule> ruleTable = new TableView<>(rules.entries());
    ruleTable.getColumns().add(checkColumn("On", 44, "entry-enabled", Rule::enabled, (r, on) -> rules.enable(r.id(), on)));
    ruleTable.getColumns().add(textColumn("Name", 170, Rule::name));
    ruleTable.getColumns().add(textColumn("Filter", 270, r -> r.filter().isBlank() ? "(all flows)" : r.filter()));
    ruleTable.getColumns().add(textColumn("Action", 380, r -> r.action().describe()));
    MenuButton addRule = new MenuButton("Add");
    addRule.setId("rules-add");
    for (RuleEditorViewModel.Type t : RuleEditorViewModel.Type.values()) {
      MenuItem item = new MenuItem(t.label() + "…");
      item.setId("rules-add-" + t.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
      item.setOnAction(e -> new RuleEditorDialog(stage, new RuleEditorViewModel(t), r -> {
        String problem = rules.add(r);
        if (problem == null) {
          select(ruleTable, rules, r.id());
        }
        return problem;
      }).show());
      addRule.getItems().add(item);
    }
    rulesTab = new Tab("Rules", listTab("rules", "rules", rules, ruleTable, addRule,
        r -> new RuleEditorDialog(stage, new RuleEditorViewModel(r), rules::update).show(),
        r -> new Rule(null, r.name() + " (copy)", r.enabled(), r.filter(), r.action()),
        "Rules on", "Rules apply in this order; each one that changes a flow is recorded on it"));
    rulesTab.setId("tab-rules");

    TableView<Breakpoint> bpTable = new TableView<>(breakpoints.entries());
    bpTable.getColumns().add(checkColumn("On", 44, "entry-enabled", Breakpoint::enabled,
        (b, on) -> breakpoints.enable(b.id(), on)));
    bpTable.getColumns().add(textColumn("Filter", 420, b -> b.filter().isBlank() ? "(all flows)" : b.filter()));
    bpTable.getColumns().add(checkColumn("Request", 80, "bp-request", Breakpoint::request,
        (b, on) -> breakpoints.update(new Breakpoint(b.id(), b.filter(), on, b.response(), b.enabled()))));
    bpTable.getColumns().add(checkColumn("Response", 80, "bp-response", Breakpoint::response,
        (b, on) -> breakpoints.update(new Breakpoint(b.id(), b.filter(), b.request(), on, b.enabled()))));
    Button addBp = new Button("Add…");
    addBp.setId("bps-add");
    addBp.setOnAction(e -> new BreakpointEntryDialog(stage, new BreakpointEntryViewModel(null), b -> {
      String problem = breakpoints.add(b);
      if (problem == null) {
        select(bpTable, breakpoints, b.id());
      }
      return problem;
    }).show());
    breakpointsTab = new Tab("Breakpoints", listTab("bps", "breakpoints", breakpoints, bpTable, addBp,
        b -> new BreakpointEntryDialog(stage, new BreakpointEntryViewModel(b), breakpoints::update).show(),
        null, "Breakpoints on", "A flow stops at the first enabled breakpoint whose filter matches it"));
    breakpointsTab.setId("tab-breakpoints");

    tabs.setId("rules-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    tabs.getTabs().addAll(rulesTab, breakpointsTab);
    Scene scene = new Scene(tabs, 1060, 520);
    if (owner != null) {
      stage.initOwner(owner);
      if (owner.getScene() != null) {
        scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      }
    }
    stage.setTitle("Loupe — Rules and breakpoints");
    stage.setScene(scene);
  }

  /** Shows the window on the Rules tab. */
  public void show() {
    tabs.getSelectionModel().select(rulesTab);
    stage.show();
    stage.toFront();
  }

  /** Shows the window on the Breakpoints tab. */
  public void showBreakpoints() {
    tabs.getSelectionModel().select(breakpointsTab);
    stage.show();
    stage.toFront();
  }

  public Stage stage() {
    return stage;
  }

  /** Tests answer the file choosers themselves. */
  void files(Files f) {
    this.files = f;
  }

  private <T extends InterceptList.Entry> Node listTab(String prefix, String noun, InterceptListModel<T> model,
      TableView<T> table, Node add, Consumer<T> edit, UnaryOperator<T> copy, String activeLabel, String hint) {
    table.setId(prefix + "-table");
    table.setPlaceholder(new Label("No " + noun + " yet"));
    table.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
    table.setRowFactory(t -> draggableRow(table, model, edit));

    CheckBox active = new CheckBox(activeLabel);
    active.setId(prefix + "-active");
    active.selectedProperty().bindBidirectional(model.activeProperty());
    Label hintLabel = RuleEditorDialog.note(hint + ". Drag rows to reorder.");

    Button editButton = button(prefix + "-edit", "Edit…", table, () -> edit.accept(selected(table)));
    Button remove = button(prefix + "-remove", "Remove", table, () -> model.remove(selected(table).id()));
    Button up = button(prefix + "-up", "Move up", table, () -> {
      String id = selected(table).id();
      model.moveUp(id);
      select(table, model, id);
    });
    Button down = button(prefix + "-down", "Move down", table, () -> {
      String id = selected(table).id();
      model.moveDown(id);
      select(table, model, id);
    });
    List<Node> buttons = new ArrayList<>(List.of(add, editButton));
    if (copy != null) {
      Button duplicate = button(prefix + "-duplicate", "Duplicate", table, () -> {
        T original = selected(table);
        T c = copy.apply(original);
        if (model.duplicate(original.id(), x -> c) == null) {
          select(table, model, c.id());
        }
      });
      buttons.add(duplicate);
    }
    MenuItem replace = new MenuItem("Replace the list…");
    replace.setId(prefix + "-import-replace");
    replace.setOnAction(e -> importFile(model, noun, true));
    MenuItem append = new MenuItem("Append to the list…");
    append.setId(prefix + "-import-append");
    append.setOnAction(e -> importFile(model, noun, false));
    MenuButton importMenu = new MenuButton("Import", null, replace, append);
    importMenu.setId(prefix + "-import");
    Button export = new Button("Export…");
    export.setId(prefix + "-export");
    export.setOnAction(e -> {
      Path file = files.save("Export " + noun + " as JSON", "loupe-" + noun + ".json");
      if (file != null) {
        String problem = model.exportTo(file);
        if (problem != null) {
          error("Could not export the " + noun, problem);
        }
      }
    });
    buttons.addAll(List.of(remove, new Separator(Orientation.HORIZONTAL), up, down,
        new Separator(Orientation.HORIZONTAL), importMenu, export));
    for (Node b : buttons) {
      if (b instanceof javafx.scene.control.Control c) {
        c.setMaxWidth(Double.MAX_VALUE);
      }
    }
    VBox side = new VBox(6, buttons.toArray(new Node[0]));
    side.setPrefWidth(140);
    side.setPadding(new Insets(0, 0, 0, 8));

    Label message = new Label();
    message.setId(prefix + "-message");
    message.getStyleClass().add("intercept-note");
    message.textProperty().bind(model.messageProperty());

    BorderPane root = new BorderPane(table);
    VBox top = new VBox(4, active, hintLabel);
    top.setPadding(new Insets(0, 0, 8, 0));
    root.setTop(top);
    root.setRight(side);
    root.setBottom(message);
    BorderPane.setAlignment(message, Pos.CENTER_LEFT);
    root.setPadding(new Insets(10));
    return root;
  }

  private void importFile(InterceptListModel<?> model, String noun, boolean replace) {
    Path file = files.open(replace ? "Import " + noun + " (replaces the list)" : "Import " + noun + " (appends)");
    if (file == null) {
      return;
    }
    String problem = model.importFrom(file, replace);
    if (problem != null) {
      error("Could not import the " + noun + "; nothing was changed", problem);
    }
  }

  private void error(String header, String problem) {
    Alert a = new Alert(Alert.AlertType.ERROR);
    a.initOwner(stage);
    a.setTitle("Loupe");
    a.setHeaderText(header);
    a.setContentText(problem);
    a.getDialogPane().setId("intercept-error");
    a.getDialogPane().setPrefWidth(520);
    a.show();
  }

  /** A row that opens the editor on double click and can be dragged onto another row to move there. */
  private static <T extends InterceptList.Entry> TableRow<T> draggableRow(TableView<T> table, InterceptListModel<T> model,
      Consumer<T> edit) {
    TableRow<T> row = new TableRow<>();
    row.setOnMouseClicked(e -> {
      if (e.getButton() == MouseButton.PRIMARY && e.getClickCount() == 2 && !row.isEmpty()) {
        edit.accept(row.getItem());
      }
    });
    row.setOnDragDetected(e -> {
      if (row.isEmpty()) {
        return;
      }
      Dragboard db = row.startDragAndDrop(TransferMode.MOVE);
      db.setDragView(row.snapshot(null, null));
      ClipboardContent content = new ClipboardContent();
      content.putString(row.getItem().id());
      db.setContent(content);
      e.consume();
    });
    row.setOnDragOver(e -> {
      if (e.getGestureSource() instanceof TableRow<?> source && source.getTableView() == table && e.getDragboard().hasString()) {
        e.acceptTransferModes(TransferMode.MOVE);
      }
      e.consume();
    });
    row.setOnDragDropped(e -> {
      Dragboard db = e.getDragboard();
      boolean done = false;
      if (db.hasString()) {
        String id = db.getString();
        int to = row.isEmpty() ? table.getItems().size() - 1 : row.getIndex();
        done = model.move(id, to) == null;
        select(table, model, id);
      }
      e.setDropCompleted(done);
      e.consume();
    });
    return row;
  }

  private static <T extends InterceptList.Entry> void select(TableView<T> table, InterceptListModel<T> model, String id) {
    int i = model.indexOf(id);
    if (i >= 0) {
      table.getSelectionModel().clearAndSelect(i);
      table.scrollTo(i);
    }
  }

  private static <T> T selected(TableView<T> table) {
    return table.getSelectionModel().getSelectedItem();
  }

  private static <T> Button button(String id, String text, TableView<T> table, Runnable action) {
    Button b = new Button(text);
    b.setId(id);
    b.disableProperty().bind(table.getSelectionModel().selectedItemProperty().isNull());
    b.setOnAction(e -> {
      if (selected(table) != null) {
        action.run();
      }
    });
    return b;
  }

  private static <T> TableColumn<T, String> textColumn(String name, double width, Function<T, String> value) {
    TableColumn<T, String> c = new TableColumn<>(name);
    c.setPrefWidth(width);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(value.apply(cd.getValue())));
    c.setCellFactory(col -> new TableCell<>() {
      @Override
      protected void updateItem(String s, boolean empty) {
        super.updateItem(s, empty);
        setText(empty ? null : s);
        setTooltip(empty || s == null || s.isEmpty() ? null : new Tooltip(s));
      }
    });
    return c;
  }

  /**
   * A column of check boxes showing {@code get} of each entry; clicking one calls {@code set}, which
   * returns null or a problem (the list did not change, so the box goes back).
   */
  private static <T> TableColumn<T, T> checkColumn(String name, double width, String styleClass, Predicate<T> get,
      BiFunction<T, Boolean, String> set) {
    TableColumn<T, T> c = new TableColumn<>(name);
    c.setPrefWidth(width);
    c.setSortable(false);
    c.setCellValueFactory(cd -> new ReadOnlyObjectWrapper<>(cd.getValue()));
    c.setCellFactory(col -> new TableCell<>() {
      private final CheckBox box = new CheckBox();

      {
        box.getStyleClass().add(styleClass);
        setContentDisplay(ContentDisplay.GRAPHIC_ONLY);
        setAlignment(Pos.CENTER);
        box.setOnAction(e -> {
          T item = getItem();
          if (item != null && set.apply(item, box.isSelected()) != null) {
            box.setSelected(get.test(item));
          }
        });
      }

      @Override
      protected void updateItem(T item, boolean empty) {
        super.updateItem(item, empty);
        if (empty || item == null) {
          setGraphic(null);
        } else {
          box.setSelected(get.test(item));
          setGraphic(box);
        }
      }
    });
    return c;
  }

  private static FileChooser chooser(String title) {
    FileChooser c = new FileChooser();
    c.setTitle(title);
    c.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("JSON", "*.json"),
        new FileChooser.ExtensionFilter("All files", "*"));
    return c;
  }
}
