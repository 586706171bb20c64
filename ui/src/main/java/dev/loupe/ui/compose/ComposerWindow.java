package dev.loupe.ui.compose;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.ui.common.HeaderEntry;
import dev.loupe.ui.detail.BodyView;
import dev.loupe.ui.detail.HeaderRow;
import dev.loupe.ui.detail.Tables;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.geometry.Orientation;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ListView;
import javafx.scene.control.SplitPane;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.Tooltip;
import javafx.scene.control.cell.TextFieldTableCell;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;
import javafx.stage.Window;
import javafx.util.StringConverter;

/**
 * The composer window (not modal) on a {@link ComposerViewModel}: method (editable box), URL,
 * protocol and Send on top with the inline error; the history on the left (click to load); the
 * request's headers (editable table) and body (text, JSON pretty-print, hex view); the answer's
 * status, flow id, headers and body (the detail pane's body viewer) below. Ctrl+Enter sends.
 *
 * <p>Ids: {@code composer}, {@code composer-method}, {@code composer-url}, {@code composer-protocol},
 * {@code composer-send}, {@code composer-error}, {@code composer-history}, {@code composer-headers},
 * {@code composer-header-add}, {@code composer-header-remove}, {@code composer-body},
 * {@code composer-body-hex}, {@code composer-pretty}, {@code composer-hex}, {@code composer-clear-body},
 * {@code composer-status}, {@code composer-flow-id}, {@code composer-response-headers},
 * {@code composer-response-body}.
 */
public final class ComposerWindow {
  private final Stage stage = new Stage();
  private final ComposerViewModel vm;
  private final BorderPane root = new BorderPane();

  /**
   * @param owned the executor {@code vm} runs its background work on, shut down when the window
   *              closes (null: the caller owns it)
   */
  public ComposerWindow(Window owner, ComposerViewModel vm, ExecutorService owned) {
    this.vm = vm;
    root.setId("composer");
    root.getStyleClass().add("composer");
    root.getStylesheets().add(ComposerWindow.class.getResource("/dev/loupe/ui/diff.css").toExternalForm());

    ComboBox<String> method = new ComboBox<>();
    method.setId("composer-method");
    method.setEditable(true);
    method.getItems().setAll(ComposerViewModel.METHODS);
    method.setPrefWidth(110);
    method.valueProperty().bindBidirectional(vm.methodProperty());
    // The typed text counts without Enter (an editable combo box commits its editor only then).
    method.getEditor().textProperty().addListener((o, was, now) -> {
      if (method.isFocused() || method.getEditor().isFocused()) {
        vm.methodProperty().set(now);
      }
    });
    TextField url = new TextField();
    url.setId("composer-url");
    url.setPromptText("https://example.com/path?query");
    url.textProperty().bindBidirectional(vm.urlProperty());
    HBox.setHgrow(url, Priority.ALWAYS);
    ChoiceBox<Replayer.Protocol> protocol = new ChoiceBox<>();
    protocol.setId("composer-protocol");
    protocol.getItems().setAll(Replayer.Protocol.values());
    protocol.setConverter(new StringConverter<>() {
      @Override
      public String toString(Replayer.Protocol p) {
        return p == null ? "" : protocolLabel(p);
      }

      @Override
      public Replayer.Protocol fromString(String s) {
        return null;
      }
    });
    protocol.valueProperty().bindBidirectional(vm.protocolProperty());
    protocol.setTooltip(new Tooltip("Protocol towards the origin: Auto follows what it offers"));
    Button send = new Button("Send");
    send.setId("composer-send");
    send.setDefaultButton(true);
    send.disableProperty().bind(vm.sendingProperty());
    send.setOnAction(e -> vm.send());
    HBox line = new HBox(6, method, url, protocol, send);
    line.setStyle("-fx-padding: 8 8 4 8; -fx-alignment: center-left;");
    Label error = new Label();
    error.setId("composer-error");
    error.getStyleClass().add("composer-error");
    error.setWrapText(true);
    error.textProperty().bind(vm.errorProperty());
    error.managedProperty().bind(error.textProperty().isNotEmpty());
    error.visibleProperty().bind(error.textProperty().isNotEmpty());
    VBox top = new VBox(2, line, error);
    VBox.setMargin(error, new javafx.geometry.Insets(0, 8, 4, 8));

    ListView<ComposerHistory.Entry> history = new ListView<>(vm.history());
    history.setId("composer-history");
    history.setPlaceholder(new Label("Sent requests appear here"));
    history.setCellFactory(list -> new javafx.scene.control.ListCell<>() {
      @Override
      protected void updateItem(ComposerHistory.Entry e, boolean empty) {
        super.updateItem(e, empty);
        setText(empty || e == null ? null : historyLabel(e));
        setTooltip(empty || e == null ? null : new Tooltip(e.request().method() + " " + e.request().url()
            + "\n" + protocolLabel(e.protocol()) + " · sent " + e.sentAt()));
      }
    });
    history.setOnMouseClicked(e -> {
      ComposerHistory.Entry sel = history.getSelectionModel().getSelectedItem();
      if (sel != null) {
        vm.load(sel);
      }
    });
    Label historyTitle = new Label("History");
    historyTitle.setStyle("-fx-font-weight: bold; -fx-padding: 4 8 4 8;");
    VBox.setVgrow(history, Priority.ALWAYS);
    javafx.scene.control.CheckBox keepSecrets = new javafx.scene.control.CheckBox("Keep secrets in history");
    keepSecrets.setId("composer-keep-secrets");
    keepSecrets.selectedProperty().bindBidirectional(vm.keepSecretsInHistoryProperty());
    keepSecrets.setTooltip(new Tooltip("Off: Authorization, Cookie and other credential headers, and URL passwords,"
        + " are saved without their values in " + ComposerHistory.FILE_NAME));
    keepSecrets.setStyle("-fx-padding: 4 8 4 8;");
    VBox left = new VBox(historyTitle, history, keepSecrets);
    left.setPrefWidth(260);

    SplitPane center = new SplitPane(requestEditor(), responsePane(owned));
    center.setOrientation(Orientation.VERTICAL);
    center.setDividerPositions(0.5);
    SplitPane main = new SplitPane(left, center);
    main.setDividerPositions(0.22);
    root.setTop(top);
    root.setCenter(main);

    Scene scene = new Scene(root, 1100, 760);
    if (owner != null && owner.getScene() != null) {
      scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      stage.initOwner(owner);
    }
    scene.getAccelerators().put(new KeyCodeCombination(KeyCode.ENTER, KeyCombination.SHORTCUT_DOWN), vm::send);
    stage.setScene(scene);
    stage.titleProperty().bind(Bindings.createStringBinding(() -> vm.replayOfProperty().get() >= 0
        ? "Loupe — edit and replay #" + vm.replayOfProperty().get() : "Loupe — compose a request",
        vm.replayOfProperty()));
    if (owned != null) {
      stage.setOnHidden(e -> owned.shutdownNow());
    }
  }

  /** Opens an empty composer on the running proxy's replayer; history in {@code confdir}. */
  public static ComposerWindow open(Window owner, Replayer replayer, Path confdir) {
    ExecutorService background = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-composer");
      t.setDaemon(true);
      return t;
    });
    ComposerWindow w = new ComposerWindow(owner,
        new ComposerViewModel(replayer, ComposerHistory.in(confdir), Platform::runLater, background), background);
    w.stage.show();
    return w;
  }

  /** {@code POST /api?q=1} over {@code example.com:8443}, two lines. */
  static String historyLabel(ComposerHistory.Entry e) {
    try {
      java.net.URI u = new java.net.URI(e.request().url().trim());
      String path = (u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath())
          + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
      return e.request().method() + " " + path + "\n" + u.getRawAuthority();
    } catch (java.net.URISyntaxException | RuntimeException bad) {
      return e.toString();
    }
  }

  static String protocolLabel(Replayer.Protocol p) {
    return switch (p) {
      case AUTO -> "Auto";
      case H1 -> "HTTP/1.1";
      case H2 -> "HTTP/2";
      case H3 -> "HTTP/3";
    };
  }

  private TabPane requestEditor() {
    TableView<HeaderEntry> headers = new TableView<>(vm.headers());
    headers.setId("composer-headers");
    headers.setEditable(true);
    TableColumn<HeaderEntry, String> name = new TableColumn<>("Name");
    name.setCellValueFactory(cd -> cd.getValue().nameProperty());
    name.setCellFactory(TextFieldTableCell.forTableColumn());
    name.setPrefWidth(220);
    TableColumn<HeaderEntry, String> value = new TableColumn<>("Value");
    value.setCellValueFactory(cd -> cd.getValue().valueProperty());
    value.setCellFactory(TextFieldTableCell.forTableColumn());
    value.setPrefWidth(520);
    headers.getColumns().add(name);
    headers.getColumns().add(value);
    headers.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_LAST_COLUMN);
    headers.setPlaceholder(new Label("No headers: Add one"));
    Button add = new Button("Add");
    add.setId("composer-header-add");
    add.setOnAction(e -> {
      HeaderEntry h = vm.addHeader("", "");
      int row = vm.headers().indexOf(h);
      headers.getSelectionModel().select(row);
      headers.layout();
      headers.edit(row, name);
    });
    Button remove = new Button("Remove");
    remove.setId("composer-header-remove");
    remove.disableProperty().bind(headers.getSelectionModel().selectedItemProperty().isNull());
    remove.setOnAction(e -> vm.removeHeader(headers.getSelectionModel().getSelectedItem()));
    HBox headerButtons = new HBox(6, add, remove);
    headerButtons.setStyle("-fx-padding: 4 8 4 8;");
    BorderPane headersPane = new BorderPane(headers);
    headersPane.setBottom(headerButtons);

    TextArea body = new TextArea();
    body.setId("composer-body");
    body.getStyleClass().add("composer-body");
    body.textProperty().bindBidirectional(vm.bodyProperty());
    body.setPromptText("Request body (text); Content-Length is set when sending");
    TextArea hex = new TextArea();
    hex.setId("composer-body-hex");
    hex.getStyleClass().add("composer-body");
    hex.setEditable(false);
    ToggleButton hexToggle = new ToggleButton("Hex");
    hexToggle.setId("composer-hex");
    hexToggle.setTooltip(new Tooltip("Show the body's bytes as a hex dump (read only)"));
    Runnable showHex = () -> {
      boolean on = hexToggle.isSelected() || vm.binaryBodyProperty().get() != null;
      if (on) {
        hex.setText(vm.hexDump());
      }
      hex.setVisible(on);
      body.setVisible(!on);
    };
    hexToggle.selectedProperty().addListener((o, was, now) -> showHex.run());
    vm.binaryBodyProperty().addListener((o, was, now) -> showHex.run());
    vm.bodyProperty().addListener((o, was, now) -> {
      if (hex.isVisible()) {
        hex.setText(vm.hexDump());
      }
    });
    showHex.run();
    Button pretty = new Button("Pretty-print JSON");
    pretty.setId("composer-pretty");
    pretty.setOnAction(e -> vm.prettyPrintJson());
    pretty.disableProperty().bind(vm.binaryBodyProperty().isNotNull());
    Button clear = new Button("Clear body");
    clear.setId("composer-clear-body");
    clear.setOnAction(e -> vm.clearBody());
    Label binaryNote = new Label();
    binaryNote.textProperty().bind(Bindings.createStringBinding(() -> vm.binaryBodyProperty().get() == null ? ""
        : "Binary body (" + vm.binaryBodyProperty().get().length + " bytes): sent unchanged; Clear body to write text",
        vm.binaryBodyProperty()));
    HBox bodyBar = new HBox(6, pretty, hexToggle, clear, binaryNote);
    bodyBar.setStyle("-fx-padding: 4 8 4 8; -fx-alignment: center-left;");
    BorderPane bodyPane = new BorderPane(new StackPane(body, hex));
    bodyPane.setTop(bodyBar);

    Tab h = new Tab("Headers", headersPane);
    h.setId("composer-tab-headers");
    Tab b = new Tab("Body", bodyPane);
    b.setId("composer-tab-body");
    TabPane tabs = new TabPane(h, b);
    tabs.setId("composer-request-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    return tabs;
  }

  private Parent responsePane(ExecutorService images) {
    Label status = new Label();
    status.setId("composer-status");
    status.getStyleClass().add("composer-status");
    status.textProperty().bind(Bindings.createStringBinding(() -> vm.responseStatusProperty().get().isEmpty()
        ? "Response: not sent yet" : "Response: " + vm.responseStatusProperty().get(), vm.responseStatusProperty()));
    Label flowId = new Label();
    flowId.setId("composer-flow-id");
    flowId.textProperty().bind(Bindings.createStringBinding(() -> vm.flowIdProperty().get() < 0 ? ""
        : "flow #" + vm.flowIdProperty().get()
            + (vm.replayOfProperty().get() >= 0 ? " (replay of #" + vm.replayOfProperty().get() + ")" : ""),
        vm.flowIdProperty(), vm.replayOfProperty()));
    HBox bar = new HBox(12, status, flowId);
    bar.setStyle("-fx-padding: 4 8 4 8; -fx-alignment: center-left;");
    TableView<HeaderRow> headers = Tables.nameValue("composer-response-headers", vm.responseHeaders(),
        HeaderRow::name, HeaderRow::value, HeaderRow::section);
    BodyView body = new BodyView(vm.responseBody(), "composer-response-body",
        images != null ? images : Runnable::run);
    Tab bodyTab = new Tab("Body", body.node());
    Tab headersTab = new Tab("Headers", headers);
    TabPane tabs = new TabPane(bodyTab, headersTab);
    tabs.setId("composer-response-tabs");
    tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
    BorderPane p = new BorderPane(tabs);
    p.setTop(bar);
    return p;
  }

  public Stage stage() {
    return stage;
  }

  public ComposerViewModel viewModel() {
    return vm;
  }

  public void show() {
    stage.show();
  }
}
