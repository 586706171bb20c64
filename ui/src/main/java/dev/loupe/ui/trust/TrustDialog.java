package dev.loupe.ui.trust;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.control.TextField;
import javafx.scene.input.Clipboard;
import javafx.scene.input.ClipboardContent;
import javafx.scene.layout.ColumnConstraints;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * The "Trust Loupe's certificate" dialog: the CA's SHA-256 fingerprint, subject, validity and
 * file; PEM/DER export through a save dialog; one row per trust store with its status, Install and
 * Remove (or the exact terminal command and a Copy button where Loupe cannot act itself), a
 * progress indicator while a row works, and the last action's message verbatim.
 *
 * <p>Lookup ids for tests and styling: {@code #trust-fingerprint}, {@code #trust-subject}, {@code
 * #trust-validity}, {@code #trust-file}, {@code #trust-export-pem}, {@code #trust-export-der},
 * {@code #trust-export-message}, {@code #trust-refresh}, {@code #trust-close}; each store's row is
 * {@code #trust-row-<id>} holding {@code .trust-status}, {@code .trust-detail}, {@code
 * .trust-progress}, {@code .trust-install}, {@code .trust-remove}, {@code .trust-command}, {@code
 * .trust-copy} and {@code .trust-message}.
 */
public final class TrustDialog {
  /** The window title, also its heading. */
  public static final String TITLE = "Trust Loupe's certificate";

  private final TrustDialogViewModel vm;
  private final BiFunction<Window, ExportFormat, Path> chooseExportFile;
  private final VBox root = new VBox(10);
  private final VBox rows = new VBox(8);

  /**
   * Opens the dialog over {@code owner} (may be null) and starts asking the stores. Port calls run
   * on daemon threads that end when the dialog closes. Call on the FX thread.
   *
   * @return the dialog's stage, already showing
   */
  public static Stage show(Window owner, TrustPort port) {
    requireNonNull(port, "port");
    AtomicInteger threads = new AtomicInteger();
    ExecutorService background = Executors.newCachedThreadPool(task -> {
      Thread thread = new Thread(task, "loupe-trust-" + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
    TrustDialogViewModel vm = new TrustDialogViewModel(port, background, Platform::runLater, TrustDialog::copyToClipboard);
    TrustDialog dialog = new TrustDialog(vm, TrustDialog::chooseWithFileChooser);
    Stage stage = new Stage();
    if (owner != null) {
      stage.initOwner(owner);
    }
    stage.setTitle(TITLE);
    stage.setScene(dialog.scene());
    stage.setOnHidden(e -> background.shutdown());
    stage.show();
    vm.refresh();
    return stage;
  }

  /**
   * The dialog's content on {@code vm}. {@code chooseExportFile} asks where to export (given the
   * window and format; null when cancelled): a {@link FileChooser} in {@link #show}.
   */
  public TrustDialog(TrustDialogViewModel vm, BiFunction<Window, ExportFormat, Path> chooseExportFile) {
    this.vm = requireNonNull(vm, "vm");
    this.chooseExportFile = requireNonNull(chooseExportFile, "chooseExportFile");
    root.getStyleClass().add("trust-dialog");
    root.setPadding(new Insets(16));

    Label title = new Label(TITLE);
    title.getStyleClass().add("trust-title");
    Label intro = new Label("Clients accept the HTTPS traffic Loupe decrypts only when they trust this "
        + "certificate authority. Install it where you need it, and remove it when you stop using Loupe: "
        + "anyone with its private key could impersonate any website to those clients.");
    intro.setWrapText(true);
    intro.setMinHeight(Region.USE_PREF_SIZE);
    intro.getStyleClass().add("trust-intro");

    root.getChildren().addAll(title, intro, caInfo(), exportBar(), new Separator(), storesHeader(), storesList(),
        closeBar());
    vm.targets().addListener((ListChangeListener<TrustTargetRow>) change -> rebuildRows());
    rebuildRows();
  }

  /** The root node. */
  public Parent root() {
    return root;
  }

  /** A scene holding the dialog, with Loupe's style sheet. */
  public Scene scene() {
    Scene scene = new Scene(root, 900, 760);
    scene.getStylesheets().add(TrustDialog.class.getResource("/dev/loupe/ui/loupe.css").toExternalForm());
    return scene;
  }

  private Node caInfo() {
    CaSummary ca = vm.ca();
    GridPane grid = new GridPane();
    grid.getStyleClass().add("trust-ca");
    grid.setHgap(12);
    grid.setVgap(6);
    ColumnConstraints labels = new ColumnConstraints();
    labels.setMinWidth(Region.USE_PREF_SIZE);
    ColumnConstraints values = new ColumnConstraints();
    values.setHgrow(Priority.ALWAYS);
    grid.getColumnConstraints().addAll(labels, values);
    grid.addRow(0, key("SHA-256"), readOnly("trust-fingerprint", ca.sha256Fingerprint(), "trust-fingerprint"));
    grid.addRow(1, key("Subject"), value("trust-subject", ca.subject()));
    grid.addRow(2, key("Valid"), value("trust-validity", vm.validity()));
    grid.addRow(3, key("File"), readOnly("trust-file", ca.file().toString(), "trust-path"));
    return grid;
  }

  private Node exportBar() {
    Button pem = new Button("Export PEM…");
    pem.setId("trust-export-pem");
    pem.setOnAction(e -> export(ExportFormat.PEM));
    Button der = new Button("Export DER…");
    der.setId("trust-export-der");
    der.setOnAction(e -> export(ExportFormat.DER));
    pem.disableProperty().bind(vm.exportingProperty());
    der.disableProperty().bind(vm.exportingProperty());
    Label message = new Label();
    message.setId("trust-export-message");
    message.setWrapText(true);
    message.textProperty().bind(Bindings.createStringBinding(
        () -> vm.exportOutcomeProperty().get() == null ? "" : vm.exportOutcomeProperty().get().message(),
        vm.exportOutcomeProperty()));
    vm.exportOutcomeProperty().addListener((o, was, now) -> outcomeStyle(message, now));
    HBox bar = new HBox(8, pem, der, message);
    bar.setAlignment(Pos.CENTER_LEFT);
    HBox.setHgrow(message, Priority.ALWAYS);
    return bar;
  }

  private Node storesHeader() {
    Label heading = new Label("Trust stores on this computer");
    heading.getStyleClass().add("trust-section");
    ProgressIndicator checking = new ProgressIndicator();
    checking.setId("trust-refreshing");
    checking.getStyleClass().add("trust-progress");
    checking.visibleProperty().bind(vm.refreshingProperty());
    checking.managedProperty().bind(vm.refreshingProperty());
    Label error = new Label();
    error.getStyleClass().add("trust-message-failed");
    error.textProperty().bind(vm.refreshErrorProperty());
    Region spacer = new Region();
    HBox.setHgrow(spacer, Priority.ALWAYS);
    Button refresh = new Button("Check again");
    refresh.setId("trust-refresh");
    refresh.disableProperty().bind(vm.refreshingProperty());
    refresh.setOnAction(e -> vm.refresh());
    HBox header = new HBox(8, heading, checking, error, spacer, refresh);
    header.setAlignment(Pos.CENTER_LEFT);
    return header;
  }

  private Node storesList() {
    rows.getStyleClass().add("trust-rows");
    rows.setPadding(new Insets(2));
    ScrollPane scroll = new ScrollPane(rows);
    scroll.setFitToWidth(true);
    scroll.getStyleClass().add("trust-scroll");
    VBox.setVgrow(scroll, Priority.ALWAYS);
    return scroll;
  }

  private Node closeBar() {
    Button close = new Button("Close");
    close.setId("trust-close");
    close.setCancelButton(true);
    close.setOnAction(e -> {
      Window window = root.getScene() == null ? null : root.getScene().getWindow();
      if (window != null) {
        window.hide();
      }
    });
    HBox bar = new HBox(close);
    bar.setAlignment(Pos.CENTER_RIGHT);
    return bar;
  }

  private void rebuildRows() {
    if (vm.targets().isEmpty()) {
      Label empty = new Label("Checking the trust stores…");
      empty.getStyleClass().add("trust-detail");
      empty.textProperty().bind(Bindings.when(vm.refreshingProperty())
          .then("Checking the trust stores…").otherwise("No trust stores found."));
      rows.getChildren().setAll(empty);
      return;
    }
    rows.getChildren().clear();
    for (TrustTargetRow row : vm.targets()) {
      rows.getChildren().add(rowNode(row));
    }
  }

  private Node rowNode(TrustTargetRow row) {
    Label name = new Label(row.target().name());
    name.getStyleClass().add("trust-name");
    Label location = new Label(row.target().location());
    location.getStyleClass().add("trust-location");
    VBox names = new VBox(2, name, location);
    HBox.setHgrow(names, Priority.ALWAYS);
    names.setMaxWidth(Double.MAX_VALUE);

    Label status = new Label();
    status.getStyleClass().add("trust-status");
    status.textProperty().bind(row.statusTextProperty());
    status.setWrapText(true);
    status.setMaxWidth(280);
    row.targetProperty().addListener((o, was, now) -> stateStyle(status, now.state()));
    stateStyle(status, row.target().state());

    ProgressIndicator progress = new ProgressIndicator();
    progress.getStyleClass().add("trust-progress");
    progress.visibleProperty().bind(row.busyProperty());
    progress.managedProperty().bind(row.busyProperty());
    Label progressText = new Label();
    progressText.getStyleClass().add("trust-progress-text");
    progressText.textProperty().bind(row.progressProperty());
    progressText.visibleProperty().bind(row.busyProperty());
    progressText.managedProperty().bind(row.busyProperty());

    Button install = new Button("Install");
    install.getStyleClass().add("trust-install");
    install.disableProperty().bind(row.canInstallProperty().not());
    install.setOnAction(e -> vm.install(row));
    Button remove = new Button("Remove");
    remove.getStyleClass().add("trust-remove");
    remove.disableProperty().bind(row.canRemoveProperty().not());
    remove.setOnAction(e -> vm.remove(row));
    var hasCommand = row.manualCommandProperty().isNotEmpty();
    install.visibleProperty().bind(hasCommand.not());
    install.managedProperty().bind(hasCommand.not());
    remove.visibleProperty().bind(hasCommand.not());
    remove.managedProperty().bind(hasCommand.not());

    HBox top = new HBox(10, names, progress, progressText, status, install, remove);
    top.setAlignment(Pos.CENTER_LEFT);

    Label detail = new Label();
    detail.getStyleClass().add("trust-detail");
    detail.setWrapText(true);
    detail.textProperty().bind(Bindings.createStringBinding(
        () -> row.target().state() == TrustState.UNAVAILABLE ? "" : row.target().detail(), row.targetProperty()));
    detail.visibleProperty().bind(detail.textProperty().isNotEmpty());
    detail.managedProperty().bind(detail.visibleProperty());

    TextField command = new TextField();
    command.setEditable(false);
    command.getStyleClass().add("trust-command");
    command.textProperty().bind(row.manualCommandProperty());
    HBox.setHgrow(command, Priority.ALWAYS);
    Button copy = new Button("Copy");
    copy.getStyleClass().add("trust-copy");
    copy.setOnAction(e -> vm.copyManualCommand(row));
    Label needsAdmin = new Label("Needs administrator rights — run in a terminal:");
    needsAdmin.getStyleClass().add("trust-detail");
    HBox commandLine = new HBox(6, command, copy);
    commandLine.setAlignment(Pos.CENTER_LEFT);
    VBox manual = new VBox(4, needsAdmin, commandLine);
    manual.getStyleClass().add("trust-manual");
    manual.visibleProperty().bind(hasCommand);
    manual.managedProperty().bind(hasCommand);

    Label message = new Label();
    message.getStyleClass().add("trust-message");
    message.setWrapText(true);
    message.textProperty().bind(Bindings.createStringBinding(
        () -> row.lastOutcomeProperty().get() == null ? "" : row.lastOutcomeProperty().get().message(),
        row.lastOutcomeProperty()));
    message.visibleProperty().bind(message.textProperty().isNotEmpty());
    message.managedProperty().bind(message.visibleProperty());
    row.lastOutcomeProperty().addListener((o, was, now) -> outcomeStyle(message, now));
    outcomeStyle(message, row.lastOutcomeProperty().get());

    VBox node = new VBox(6, top, detail, manual, message);
    node.setId("trust-row-" + row.id());
    node.getStyleClass().add("trust-row");
    return node;
  }

  private void export(ExportFormat format) {
    Window window = root.getScene() == null ? null : root.getScene().getWindow();
    Path file = chooseExportFile.apply(window, format);
    if (file != null) {
      vm.export(file, format);
    }
  }

  private static void stateStyle(Label status, TrustState state) {
    status.getStyleClass().removeAll("trust-trusted", "trust-not-trusted", "trust-unavailable");
    status.getStyleClass().add(state == TrustState.TRUSTED ? "trust-trusted"
        : state == TrustState.NOT_TRUSTED ? "trust-not-trusted" : "trust-unavailable");
  }

  private static void outcomeStyle(Label label, TrustOutcome outcome) {
    label.getStyleClass().removeAll("trust-message-ok", "trust-message-failed");
    if (outcome != null) {
      label.getStyleClass().add(outcome.success() ? "trust-message-ok" : "trust-message-failed");
    }
  }

  private static Label key(String text) {
    Label label = new Label(text);
    label.getStyleClass().add("trust-key");
    return label;
  }

  private static Label value(String id, String text) {
    Label label = new Label(text);
    label.setId(id);
    label.setWrapText(true);
    return label;
  }

  private static TextField readOnly(String id, String text, String styleClass) {
    TextField field = new TextField(text);
    field.setId(id);
    field.setEditable(false);
    field.getStyleClass().add(styleClass);
    return field;
  }

  private static void copyToClipboard(String text) {
    ClipboardContent content = new ClipboardContent();
    content.putString(text);
    Clipboard.getSystemClipboard().setContent(content);
  }

  private static Path chooseWithFileChooser(Window owner, ExportFormat format) {
    FileChooser chooser = new FileChooser();
    chooser.setTitle("Export Loupe's CA certificate (" + format + ")");
    chooser.setInitialFileName(format.defaultFileName());
    chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter(format + " certificate", format.patterns()));
    java.io.File file = chooser.showSaveDialog(owner);
    return file == null ? null : file.toPath();
  }
}
