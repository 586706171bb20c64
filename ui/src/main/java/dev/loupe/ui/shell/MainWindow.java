package dev.loupe.ui.shell;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.compose.ComposeActions;
import dev.loupe.ui.detail.DetailPane;
import dev.loupe.ui.detail.DetailViewModel;
import dev.loupe.ui.detail.FlowMarks;
import dev.loupe.ui.export.HarExportViewModel;
import dev.loupe.ui.flows.CurlCommand;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.flows.FlowRow;
import dev.loupe.ui.flows.FlowTableView;
import dev.loupe.ui.intercept.InterceptControls;
import dev.loupe.ui.session.SessionMenu;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.settings.SettingsDialog;
import dev.loupe.ui.settings.SettingsFile;
import dev.loupe.ui.settings.SettingsViewModel;
import dev.loupe.ui.status.AgentActivity;
import dev.loupe.ui.status.Sparkline;
import dev.loupe.ui.status.StatusViewModel;
import dev.loupe.ui.sysproxy.SystemProxyControl;
import dev.loupe.ui.trust.TrustDialog;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuButton;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.SelectionMode;
import javafx.scene.control.Separator;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;
import org.controlsfx.control.StatusBar;
import org.controlsfx.control.textfield.CustomTextField;
import org.controlsfx.control.textfield.TextFields;

/**
 * The main window's content: toolbar (capture on/off, clear, system proxy on/off, trust the CA,
 * export, settings), the filter bar with its inline error, the live flow table over the selected
 * flow's detail (request, response, connection, timing, WebSocket messages), and a status bar (listening
 * address, flow count, memory, throughput sparkline).
 *
 * <h3>Keyboard</h3>
 * Ctrl+F filter, Ctrl+L clear, Ctrl+E export all flows as HAR, Ctrl+Shift+C copy as cURL,
 * Ctrl+Shift+U copy URL; arrow keys move the table's selection. Replay, compose and compare:
 * Ctrl+R, Ctrl+Shift+R, Ctrl+N, Ctrl+D (see {@link ComposeActions}).
 */
public final class MainWindow implements AutoCloseable {
  private static final DateTimeFormatter FILE_STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private final BorderPane root = new BorderPane();
  private final FlowListViewModel flows;
  private final DesktopContext ctx;
  private final StatusViewModel status;
  private final AgentActivity agents;
  private final HarExportViewModel export = new HarExportViewModel(Platform::runLater);
  private final FlowTableView table;
  private final SplitPane split;
  private final StackPane detailArea = new StackPane();
  private final DetailViewModel detail;
  private final ComposeActions compose;
  /** The last outcome of a toolbar action (system proxy switched, …), shown in the status bar. */
  private final javafx.beans.property.StringProperty notice = new javafx.beans.property.SimpleStringProperty("");
  /** The File menu, drop target, banner and restore offer of session files; null without sessions. */
  private final SessionMenu sessionMenu;
  /** Breakpoints and rules: toolbar group, context-menu items, "N paused", their windows. */
  private final InterceptControls intercept;
  private Settings settings;
  private Scene scene;
  private dev.loupe.ui.plugins.PluginsWindow pluginsWindow;
  /** Asks where to save (title, suggested name) → file or null; a file chooser unless a test replaces it. */
  private BiFunction<String, String, Path> saveChooser = this::chooseSaveFile;

  public MainWindow(FlowListViewModel flows, DesktopContext ctx) {
    this.flows = flows;
    this.ctx = ctx;
    this.settings = ctx.settings();
    FlowStore store = ctx.store();
    this.status = new StatusViewModel(store, ctx.listening()).start(Platform::runLater);
    // remote access restarts the proxy on the LAN (or back on loopback): the status bar says where
    ctx.connect().onListening(text -> Platform.runLater(() -> status.listeningProperty().set(text)));
    this.agents = new AgentActivity(ctx.agentActivity(), Platform::runLater);
    this.sessionMenu = ctx.sessions() == null ? null
        : new SessionMenu(ctx.sessions(), Platform::runLater, this::window, notice::set, flows::shownFilter);
    if (sessionMenu != null) {
      ctx.sessions().addProblemListener(sessionMenu::problem);
    }
    this.intercept = new InterceptControls(ctx.intercept(), Platform::runLater, this::window, notice::set);

    ToggleButton capture = new ToggleButton("Capture");
    capture.setId("capture");
    capture.setSelected(store.capturing());
    capture.selectedProperty().addListener((o, was, on) -> store.capturing(on));
    capture.setTooltip(new Tooltip("Record new flows (traffic is relayed either way)"));
    if (sessionMenu != null) {
      // writing the session failed (a full disk): capture is off until Resume in the banner says otherwise;
      // the toggle shows it and cannot turn capture on behind the paused writer's back
      sessionMenu.problemProperty().addListener((o, was, why) -> capture.setSelected(why.isEmpty() && store.capturing()));
      capture.disableProperty().bind(sessionMenu.problemProperty().isNotEmpty());
    }
    Button clear = new Button("Clear");
    clear.setId("clear");
    clear.setTooltip(new Tooltip("Forget all flows (Ctrl+L)"));
    clear.setOnAction(e -> clear());

    MenuItem exportAll = new MenuItem("All flows…");
    exportAll.setId("export-all");
    exportAll.setOnAction(e -> exportAll());
    MenuItem exportShown = new MenuItem("Flows the filter shows…");
    exportShown.setId("export-shown");
    exportShown.setOnAction(e -> {
      if (sessionMenu != null) {
        sessionMenu.exportHar(true); // streamed from the session file, however many flows
      } else {
        exportHar(flowsOf(flows.visibleRows()), "filtered");
      }
    });
    MenuItem exportSelected = new MenuItem("Selected flows…");
    exportSelected.setId("export-selected");
    MenuButton exportMenu = new MenuButton("Export HAR", null, exportAll, exportShown, exportSelected);
    exportMenu.setId("export");
    exportMenu.disableProperty().bind(export.runningProperty());

    ToggleButton systemProxy = systemProxyToggle(ctx.systemProxy());
    Button trust = new Button("Trust CA…");
    trust.setId("trust-ca");
    trust.setTooltip(new Tooltip("Install Loupe's CA certificate in this machine's and browsers' trust stores"));
    trust.setOnAction(e -> TrustDialog.show(window(), ctx.trust()));

    Button settingsButton = new Button("Settings…");
    settingsButton.setId("settings");
    settingsButton.setOnAction(e -> openSettings());
    Button pluginsButton = new Button("Plugins…");
    pluginsButton.setId("plugins");
    pluginsButton.setTooltip(new Tooltip("The loaded plugins: switch them, see their errors, reload scripts and jars"));
    pluginsButton.setOnAction(e -> pluginsWindow().show());

    ToolBar toolbar = new ToolBar(capture, clear, new Separator(Orientation.VERTICAL), systemProxy, trust,
        new Separator(Orientation.VERTICAL), exportMenu, settingsButton, pluginsButton);
    toolbar.setId("toolbar");
    toolbar.getItems().add(new Separator(Orientation.VERTICAL));
    toolbar.getItems().addAll(connectControls(ctx.connect()).toolbarItems());
    toolbar.getItems().addAll(intercept.toolbarItems());

    CustomTextField filter = (CustomTextField) TextFields.createClearableTextField();
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

    table = new FlowTableView(flows);
    table.getSelectionModel().setSelectionMode(SelectionMode.MULTIPLE);
    exportSelected.setOnAction(e -> exportHar(selectedFlows(), "selected"));
    exportSelected.disableProperty().bind(table.selectedRowProperty().isNull());
    table.setContextMenu(contextMenu());
    FlowMarks.install(table);
    compose = new ComposeActions(ctx.replayer(), ctx.confdir(), this::selectedFlows, this::window, notice::set,
        Platform::runLater);
    compose.install(table.getContextMenu());

    // The selected flow's detail below the table; refreshed when the table's rows change (a flow in
    // flight gets its response, more body), which the detail view model skips when nothing changed.
    detail = new DetailViewModel(Platform::runLater);
    detail.contentViews(ctx.plugins()::contentViews);
    detailArea.getChildren().add(new DetailPane(detail).node());
    detailArea.setId("detail-area");
    // the table's selected row, which stays while the table's window over a long list moves away from it
    table.selectedRowProperty().addListener((o, was, row) -> detail.show(row == null ? null : row.flow()));
    flows.rows().addListener((javafx.collections.ListChangeListener<FlowRow>) c -> detail.refresh());
    split = new SplitPane(table, detailArea);
    split.setOrientation(Orientation.VERTICAL);
    split.setDividerPositions(0.55);

    MenuBar menus = new MenuBar(sessionMenu != null ? sessionMenu.fileMenu(this::exportAll, this::quit)
        : plainFileMenu());
    menus.setId("menu-bar");
    menus.setUseSystemMenuBar(true); // macOS: the screen's menu bar
    VBox top = new VBox(menus, toolbar);
    if (sessionMenu != null) {
      top.getChildren().add(sessionMenu.banner());
      sessionMenu.acceptDrops(root);
    }
    top.getChildren().add(filterBar);
    root.setTop(top);
    root.setCenter(split);
    root.setBottom(statusBar());
    root.sceneProperty().addListener((o, was, s) -> {
      if (s != null) {
        s.getAccelerators().put(new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN), filter::requestFocus);
        s.getAccelerators().put(new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN), this::clear);
        s.getAccelerators().put(new KeyCodeCombination(KeyCode.E, KeyCombination.SHORTCUT_DOWN),
            this::exportAll);
        s.getAccelerators().put(new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
            this::copyCurl);
        s.getAccelerators().put(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
            this::copyUrl);
        compose.install(s);
      }
    });
  }

  /** The Plugins window, made on first use; its model follows the registry while the window lives. */
  public dev.loupe.ui.plugins.PluginsWindow pluginsWindow() {
    if (pluginsWindow == null) {
      java.util.concurrent.ExecutorService worker = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "loupe-ui-plugins");
        t.setDaemon(true);
        return t;
      });
      pluginsWindow = new dev.loupe.ui.plugins.PluginsWindow(window(),
          new dev.loupe.ui.plugins.PluginsViewModel(ctx.plugins(), Platform::runLater, worker));
    }
    return pluginsWindow;
  }

  /**
   * "System proxy": on points the OS proxy at Loupe (the previous settings are saved and restored
   * on exit, even after a crash). Switching runs external tools, so it happens off the UI thread;
   * the button is disabled meanwhile and the outcome is shown in the status bar.
   */
  private ToggleButton systemProxyToggle(SystemProxyControl control) {
    ToggleButton toggle = new ToggleButton("System proxy");
    toggle.setId("system-proxy");
    String unsupported = control.unsupportedReason();
    if (unsupported != null) {
      toggle.setDisable(true);
      toggle.setTooltip(new Tooltip("Not available: " + unsupported));
      return toggle;
    }
    toggle.setTooltip(new Tooltip("Point this machine's proxy settings (" + control.backendName()
        + ") at Loupe; they are restored when Loupe exits"));
    toggle.setSelected(control.isEnabled());
    toggle.setOnAction(e -> {
      boolean on = toggle.isSelected();
      toggle.setDisable(true);
      notice.set(on ? "Switching the system proxy to Loupe…" : "Restoring the system proxy settings…");
      Thread t = new Thread(() -> {
        SystemProxyControl.Result r = on ? control.enable() : control.disable();
        boolean enabled = control.isEnabled();
        Platform.runLater(() -> {
          toggle.setSelected(enabled);
          toggle.setDisable(false);
          notice.set(r.message());
        });
      }, "loupe-system-proxy");
      t.setDaemon(true);
      t.start();
    });
    return toggle;
  }

  /** Open browser ▾, Terminal ▾, Remote devices… (actions on a daemon thread of their own). */
  private dev.loupe.ui.connect.ConnectControls connectControls(dev.loupe.ui.connect.ConnectPort port) {
    java.util.concurrent.Executor background = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-connect");
      t.setDaemon(true);
      return t;
    });
    dev.loupe.ui.connect.ConnectViewModel vm = new dev.loupe.ui.connect.ConnectViewModel(port, Platform::runLater,
        background, notice::set, text -> copy(List.of(text), ""));
    return new dev.loupe.ui.connect.ConnectControls(vm, port, this::window);
  }

  private StatusBar statusBar() {
    StatusBar bar = new StatusBar();
    bar.setId("status-bar");
    bar.textProperty().bind(Bindings.createStringBinding(
        () -> "Listening on " + status.listeningProperty().get() + " — " + flows.countProperty().get()
            + (flows.countProperty().get() == 1 ? " flow" : " flows"),
        status.listeningProperty(), flows.countProperty()));
    Label memory = new Label();
    memory.setId("status-memory");
    memory.textProperty().bind(status.memoryProperty());
    Label throughput = new Label();
    throughput.setId("status-throughput");
    throughput.textProperty().bind(status.throughputProperty());
    Sparkline spark = new Sparkline(status.requestsPerSecond(), 120, 16);
    spark.setId("status-sparkline");
    Tooltip.install(spark, new Tooltip("Requests per second, last " + StatusViewModel.HISTORY + " s"));
    ProgressBar exportProgress = new ProgressBar();
    exportProgress.setId("export-progress");
    exportProgress.setPrefWidth(140);
    exportProgress.progressProperty().bind(export.progressProperty());
    exportProgress.visibleProperty().bind(export.runningProperty());
    exportProgress.managedProperty().bind(export.runningProperty());
    Button cancelExport = new Button("Cancel");
    cancelExport.setId("export-cancel");
    cancelExport.setOnAction(e -> export.cancel());
    cancelExport.visibleProperty().bind(export.runningProperty());
    cancelExport.managedProperty().bind(export.runningProperty());
    Label exportMessage = new Label();
    exportMessage.setId("export-message");
    exportMessage.textProperty().bind(export.messageProperty());
    Label noticeLabel = new Label();
    noticeLabel.setId("status-notice");
    noticeLabel.textProperty().bind(notice);
    Label agent = new Label();
    agent.setId("status-mcp");
    agent.textProperty().bind(agents.latestProperty());
    agent.visibleProperty().bind(agents.latestProperty().isNotEmpty());
    agent.managedProperty().bind(agent.visibleProperty());
    agent.setMaxWidth(420); // the listening address and flow count keep their room
    Tooltip agentCalls = new Tooltip();
    agentCalls.textProperty().bind(agents.recentProperty());
    agent.setTooltip(agentCalls);
    bar.getLeftItems().addAll(new Separator(Orientation.VERTICAL), intercept.statusLabel(), noticeLabel, exportMessage,
        exportProgress, cancelExport, agent);
    bar.getRightItems().addAll(memory, new Separator(Orientation.VERTICAL), throughput, spark);
    return bar;
  }

  private ContextMenu contextMenu() {
    MenuItem curl = new MenuItem("Copy as cURL");
    curl.setId("copy-curl");
    curl.setAccelerator(new KeyCodeCombination(KeyCode.C, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
    curl.setOnAction(e -> copyCurl());
    MenuItem url = new MenuItem("Copy URL");
    url.setId("copy-url");
    url.setAccelerator(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
    url.setOnAction(e -> copyUrl());
    MenuItem har = new MenuItem("Export selected as HAR…");
    har.setOnAction(e -> exportHar(selectedFlows(), "selected"));
    ContextMenu menu = new ContextMenu(curl, url, new SeparatorMenuItem(), har);
    menu.getItems().addAll(intercept.contextMenuItems(this::selectedFlows));
    return menu;
  }

  /** The selected flows, in table order. */
  private List<Flow> selectedFlows() {
    return flowsOf(table.selectedRows());
  }

  private static List<Flow> flowsOf(List<FlowRow> rows) {
    List<Flow> out = new ArrayList<>(rows.size());
    for (FlowRow r : rows) {
      out.add(r.flow());
    }
    return out;
  }

  private void copyCurl() {
    copy(selectedFlows().stream().map(CurlCommand::of).filter(c -> c != null).toList(), "\n\n");
  }

  private void copyUrl() {
    copy(selectedFlows().stream().filter(f -> f.request() != null).map(f -> f.request().url()).toList(), "\n");
  }

  private static void copy(List<String> texts, String separator) {
    if (texts.isEmpty()) {
      return;
    }
    ClipboardContent content = new ClipboardContent();
    content.putString(String.join(separator, texts));
    Clipboard.getSystemClipboard().setContent(content);
  }

  private void exportHar(List<Flow> which, String what) {
    if (export.runningProperty().get()) {
      return;
    }
    Path file = saveChooser.apply("Export " + which.size() + " flows as HAR",
        "loupe-" + what + "-" + FILE_STAMP.format(LocalDateTime.now()) + ".har");
    if (file != null) {
      export.export(which, file);
    }
  }

  private Path chooseSaveFile(String title, String suggested) {
    FileChooser chooser = new FileChooser();
    chooser.setTitle(title);
    chooser.setInitialFileName(suggested);
    chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter("HAR (HTTP Archive)", "*.har"));
    java.io.File f = chooser.showSaveDialog(window());
    return f == null ? null : f.toPath();
  }

  private void openSettings() {
    SettingsViewModel vm = new SettingsViewModel(new SettingsFile(ctx.confdir()), settings, ctx.applier());
    vm.savedProperty().addListener((o, was, now) -> {
      settings = now;
      if (scene != null) {
        Themes.apply(scene, now.theme());
      }
    });
    vm.listeningProperty().addListener((o, was, now) -> status.listeningProperty().set(now));
    new SettingsDialog(window(), vm).show();
  }

  private Window window() {
    return root.getScene() == null ? null : root.getScene().getWindow();
  }

  private void clear() {
    if (sessionMenu != null) {
      sessionMenu.newSession(); // the cleared session stays on disk (File › Open Recent)
      return;
    }
    ctx.store().clear();
    flows.clear();
  }

  /** Every flow as HAR: streamed from the session file, or the rows in memory. */
  private void exportAll() {
    if (sessionMenu != null) {
      sessionMenu.exportHar(false);
    } else {
      exportHar(new ArrayList<>(flowsOf(flows.rows())), "all");
    }
  }

  /** Without session files: Export HAR and Quit. */
  private Menu plainFileMenu() {
    MenuItem export = new MenuItem("Export HAR…");
    export.setId("file-export");
    export.setOnAction(e -> exportAll());
    MenuItem quit = new MenuItem("Quit");
    quit.setId("file-quit");
    quit.setAccelerator(new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN));
    quit.setOnAction(e -> quit());
    Menu file = new Menu("File", null, export, new SeparatorMenuItem(), quit);
    file.setId("menu-file");
    return file;
  }

  /** Closes the window as its close button would (the layout is saved). */
  private void quit() {
    Window w = window();
    if (w != null) {
      javafx.stage.WindowEvent close = new javafx.stage.WindowEvent(w, javafx.stage.WindowEvent.WINDOW_CLOSE_REQUEST);
      w.fireEvent(close);
      if (!close.isConsumed()) {
        w.hide();
      }
    }
  }

  /** The session files' menu and banner, or null when flows are kept in memory only. */
  public SessionMenu sessionMenu() {
    return sessionMenu;
  }

  public Parent root() {
    return root;
  }

  /** Where the detail pane goes (below the table). */
  public StackPane detailArea() {
    return detailArea;
  }

  public FlowTableView table() {
    return table;
  }

  /** A scene with Loupe's style sheets for the current theme, sized as {@code layout} says. */
  public Scene scene(WindowLayout layout) {
    scene = new Scene(root, layout.width(), layout.height());
    Themes.apply(scene, settings.theme());
    split.setDividerPositions(layout.divider());
    applyColumns(layout.columns());
    return scene;
  }

  /** A scene of the default size. */
  public Scene scene() {
    return scene(WindowLayout.DEFAULT);
  }

  /** Puts the table's columns in the saved order, widths and visibility (unknown ids are skipped). */
  private void applyColumns(List<WindowLayout.Column> saved) {
    if (saved.isEmpty()) {
      return;
    }
    List<TableColumn<FlowRow, ?>> ordered = new ArrayList<>();
    for (WindowLayout.Column c : saved) {
      for (TableColumn<FlowRow, ?> col : table.getColumns()) {
        if (col.getId().equals(c.id()) && !ordered.contains(col)) {
          col.setPrefWidth(c.width());
          col.setVisible(c.visible());
          ordered.add(col);
        }
      }
    }
    for (TableColumn<FlowRow, ?> col : table.getColumns()) {
      if (!ordered.contains(col)) {
        ordered.add(col);
      }
    }
    table.getColumns().setAll(ordered);
  }

  /** The layout as the user has it now (call on the UI thread, before the window closes). */
  public WindowLayout layout(Stage stage) {
    List<WindowLayout.Column> cols = new ArrayList<>();
    for (TableColumn<FlowRow, ?> c : table.getColumns()) {
      cols.add(new WindowLayout.Column(c.getId(), c.getWidth(), c.isVisible()));
    }
    return new WindowLayout(stage.getX(), stage.getY(), stage.getWidth(), stage.getHeight(), stage.isMaximized(),
        split.getDividerPositions()[0], cols);
  }

  /** The replay, compose and compare actions of the table. */
  public ComposeActions composeActions() {
    return compose;
  }

  HarExportViewModel exportViewModel() {
    return export;
  }

  StatusViewModel statusViewModel() {
    return status;
  }

  /** Tests answer the save dialog themselves. */
  void saveChooser(BiFunction<String, String, Path> chooser) {
    this.saveChooser = chooser;
  }

  /** Breakpoints and rules controls (tests). */
  InterceptControls intercept() {
    return intercept;
  }

  @Override
  public void close() {
    intercept.close();
    detail.close();
    status.close();
    agents.close();
    export.close();
    if (sessionMenu != null) {
      sessionMenu.close();
    }
  }
}
