package dev.loupe.ui.session;

import dev.loupe.engine.api.session.DiffInput;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.diff.SessionDiffWindow;
import java.io.File;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.scene.Node;
import javafx.scene.control.Alert;
import javafx.scene.control.Button;
import javafx.scene.control.ButtonBar;
import javafx.scene.control.ButtonType;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.DragEvent;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.TransferMode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/**
 * The window's File menu (New, Open…, Open Recent, Save As…, Import HAR…, Export HAR…, Compare
 * Sessions…), drag and
 * drop of {@code .loupe} and {@code .har} files, the banner that says why capture paused (a full
 * disk) with a Resume button, and the offer to restore a session after a crash.
 *
 * <p>Every file operation runs on a worker thread (they read and write disk); outcomes come back
 * on the UI thread as a notice (the status bar) or, for failures, an alert naming the file.
 */
public final class SessionMenu implements AutoCloseable {
  private static final DateTimeFormatter FILE_STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private final SessionManager sessions;
  private final FxThread fx;
  private final Supplier<Window> window;
  private final Consumer<String> notice;
  private final Supplier<Filter> shownFilter;
  private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "loupe-session-files");
    t.setDaemon(true);
    return t;
  });
  private final ReadOnlyStringWrapper title = new ReadOnlyStringWrapper(this, "title", "");
  private final ReadOnlyStringWrapper problem = new ReadOnlyStringWrapper(this, "problem", "");
  private final Menu recent = new Menu("Open Recent");
  /** Asks for a file: (title, suggested name, save?, extensions) → file or null; a chooser unless a test replaces it. */
  private FileAsker asker = this::choose;

  /** How the menu asks for a file (tests answer themselves). */
  @FunctionalInterface
  public interface FileAsker {
    Path ask(String title, String suggested, boolean save, List<String> extensions);
  }

  /**
   * @param notice      shows the outcome of an action (the status bar)
   * @param shownFilter the filter the table shows (Export HAR: "flows the filter shows")
   */
  public SessionMenu(SessionManager sessions, FxThread fx, Supplier<Window> window, Consumer<String> notice,
      Supplier<Filter> shownFilter) {
    this.sessions = sessions;
    this.fx = fx;
    this.window = window;
    this.notice = notice;
    this.shownFilter = shownFilter;
    sessions.addListener(s -> fx.post(() -> title.set(name(s))));
    Session current = sessions.current();
    if (current != null) {
      title.set(name(current));
    }
  }

  /** Told when writing fails (a sentence) and when it works again (null); call from any thread. */
  public void problem(String why) {
    fx.post(() -> problem.set(why == null ? "" : why));
  }

  /** The current session's name for the window title: the file name, or "Untitled". */
  public ReadOnlyStringProperty titleProperty() {
    return title.getReadOnlyProperty();
  }

  /** Why capture paused (empty while writing works). */
  public ReadOnlyStringProperty problemProperty() {
    return problem.getReadOnlyProperty();
  }

  private String name(Session s) {
    return sessions.untitled(s) ? "Untitled session" : s.file().getFileName().toString();
  }

  /** The File menu. */
  public Menu fileMenu(Runnable exportAll, Runnable quit) {
    MenuItem newSession = item("New Session", "file-new", new KeyCodeCombination(KeyCode.N,
        KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN), this::newSession);
    MenuItem open = item("Open…", "file-open", new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN),
        () -> {
          Path f = asker.ask("Open a session or a HAR file", null, false, List.of("*.loupe", "*.har"));
          if (f != null) {
            open(f);
          }
        });
    recent.setId("file-recent");
    recent.setOnShowing(e -> fillRecent());
    fillRecent();
    MenuItem saveAs = item("Save As…", "file-save-as", new KeyCodeCombination(KeyCode.S,
        KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN), this::saveAs);
    MenuItem importHar = item("Import HAR…", "file-import", new KeyCodeCombination(KeyCode.I,
        KeyCombination.SHORTCUT_DOWN), () -> {
          Path f = asker.ask("Import a HAR file into this session", null, false, List.of("*.har"));
          if (f != null) {
            importHar(f);
          }
        });
    MenuItem export = item("Export HAR…", "file-export", null, exportAll);
    MenuItem compare = item("Compare Sessions…", "file-compare", null, this::compareSessions);
    MenuItem quitItem = item("Quit", "file-quit", new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN), quit);
    Menu file = new Menu("File", null, newSession, open, recent, new SeparatorMenuItem(), saveAs,
        new SeparatorMenuItem(), importHar, export, new SeparatorMenuItem(), compare, new SeparatorMenuItem(), quitItem);
    file.setId("menu-file");
    return file;
  }

  private static MenuItem item(String text, String id, KeyCombination key, Runnable action) {
    MenuItem m = new MenuItem(text);
    m.setId(id);
    if (key != null) {
      m.setAccelerator(key);
    }
    m.setOnAction(e -> action.run());
    return m;
  }

  private void fillRecent() {
    recent.getItems().clear();
    Session current = sessions.current();
    for (Path p : sessions.recent()) {
      if (current != null && p.equals(current.file())) {
        continue;
      }
      MenuItem m = new MenuItem(p.getFileName().toString() + "  —  " + p.getParent());
      m.setMnemonicParsing(false);
      m.setOnAction(e -> open(p));
      recent.getItems().add(m);
    }
    if (recent.getItems().isEmpty()) {
      MenuItem none = new MenuItem("(none)");
      none.setDisable(true);
      recent.getItems().add(none);
    }
  }

  /** A banner above the table while capture is paused by a write failure, with a Resume button. */
  public Node banner() {
    Label text = new Label();
    text.setId("session-problem");
    text.setWrapText(true);
    text.textProperty().bind(problem);
    Button resume = new Button("Resume capture");
    resume.setId("session-resume");
    resume.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE); // the long sentence wraps; the button keeps its words
    resume.setOnAction(e -> run("Resuming capture…", () -> {
      boolean ok = sessions.current().resume();
      return ok ? "Capture is on again" : "Still cannot write: " + sessions.current().problem();
    }));
    HBox.setHgrow(text, Priority.ALWAYS);
    HBox bar = new HBox(8, text, resume);
    bar.setId("session-banner");
    bar.setStyle("-fx-padding: 6 8 6 8; -fx-background-color: #fce8b2; -fx-alignment: center-left;");
    bar.visibleProperty().bind(problem.isNotEmpty());
    bar.managedProperty().bind(bar.visibleProperty());
    return bar;
  }

  /** Accepts {@code .loupe} and {@code .har} files dropped on {@code target}: the first one opens. */
  public void acceptDrops(Node target) {
    target.setOnDragOver(e -> {
      if (e.getDragboard().hasFiles() && e.getDragboard().getFiles().stream().anyMatch(SessionMenu::openable)) {
        e.acceptTransferModes(TransferMode.COPY);
      }
      e.consume();
    });
    target.setOnDragDropped(this::dropped);
  }

  private void dropped(DragEvent e) {
    File f = e.getDragboard().hasFiles()
        ? e.getDragboard().getFiles().stream().filter(SessionMenu::openable).findFirst().orElse(null) : null;
    if (f != null) {
      open(f.toPath());
    }
    e.setDropCompleted(f != null);
    e.consume();
  }

  static boolean openable(File f) {
    String n = f.getName().toLowerCase(Locale.ROOT);
    return f.isFile() && (n.endsWith(".loupe") || n.endsWith(".har"));
  }

  /** Offers to restore the session a crash left behind (UI thread, once the window shows). */
  public void offerRestore() {
    Path p = sessions.restorable();
    if (p == null) {
      return;
    }
    Alert a = new Alert(Alert.AlertType.CONFIRMATION);
    a.initOwner(window.get());
    a.setTitle("Restore the last session?");
    a.setHeaderText("Loupe did not close cleanly last time");
    a.setContentText("The session it was recording is on disk: " + p + "\nRestore it? (Otherwise it stays in"
        + " File › Open Recent.)");
    ButtonType restore = new ButtonType("Restore", ButtonBar.ButtonData.OK_DONE);
    ButtonType fresh = new ButtonType("Start fresh", ButtonBar.ButtonData.CANCEL_CLOSE);
    a.getButtonTypes().setAll(restore, fresh);
    a.getDialogPane().setId("restore-dialog");
    a.showAndWait().ifPresent(b -> {
      sessions.declineRestore();
      if (b == restore) {
        open(p);
      }
    });
  }

  public void newSession() {
    run("Starting a new session…", () -> {
      sessions.newSession();
      return "New session";
    });
  }

  /** Opens a session or a HAR file (a HAR becomes a new session). */
  public void open(Path file) {
    run("Opening " + file.getFileName() + "…", () -> {
      ImportReport report = sessions.open(file);
      return report == null ? "Opened " + file : imported(report, file);
    });
  }

  public void importHar(Path har) {
    run("Importing " + har.getFileName() + "…", () -> imported(sessions.importHar(har), har));
  }

  /** Exports every flow ({@code filter} ALL) or those the filter shows. */
  public void exportHar(boolean onlyShown) {
    Filter f = onlyShown ? shownFilter.get() : Filter.ALL;
    Path file = asker.ask(onlyShown ? "Export the flows the filter shows as HAR" : "Export all flows as HAR",
        "loupe-" + (onlyShown ? "filtered" : "all") + "-" + FILE_STAMP.format(LocalDateTime.now()) + ".har", true,
        List.of("*.har"));
    if (file != null) {
      run("Exporting HAR…", () -> "Exported " + sessions.exportHar(file, f) + " flows to " + file);
    }
  }

  public void saveAs() {
    Path file = asker.ask("Save the session as", "loupe-" + FILE_STAMP.format(LocalDateTime.now()) + ".loupe", true,
        List.of("*.loupe"));
    if (file != null) {
      Path target = file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".loupe") ? file
          : file.resolveSibling(file.getFileName() + ".loupe");
      run("Saving…", () -> {
        Session s = sessions.saveAs(target);
        return "Saved " + s.count() + " flows to " + target;
      });
    }
  }

  /**
   * Asks what to compare (the current session or a file, with a file; sessions or HAR files), opens
   * both on the worker (a HAR is imported into a temporary session) and shows the diff window.
   */
  public void compareSessions() {
    Session current = sessions.current();
    CompareSessionsDialog.show(window.get(), current != null, asker, c -> run("Opening the captures to compare…", () -> {
      DiffOptions options = DiffOptions.DEFAULT.withIgnoreQuery(c.ignoreQuery()).withByPath(c.byPath());
      Session now = sessions.current();
      DiffInput a = c.a() == null ? DiffInput.of(now) : DiffInput.open(c.a(), spillDir());
      DiffInput b;
      try {
        b = DiffInput.open(c.b(), spillDir());
      } catch (SessionException e) {
        a.close();
        throw e;
      }
      String nameA = c.a() == null ? "the current session (" + name(now) + ")" : c.a().getFileName().toString();
      String nameB = c.b().getFileName().toString();
      for (DiffInput in : List.of(a, b)) {
        if (in.report() != null && !in.report().problems().isEmpty()) {
          imported(in.report(), in.file());
        }
      }
      fx.post(() -> SessionDiffWindow.open(window.get(), a, nameA, b, nameB, options, spillDir()));
      return "Comparing " + nameA + " with " + nameB;
    }));
  }

  private static Path spillDir() {
    return Path.of(System.getProperty("java.io.tmpdir"));
  }

  private String imported(ImportReport r, Path har) {
    String text = "Imported " + r.imported() + " of " + r.entries() + " entries from " + har.getFileName()
        + (r.creator().isEmpty() ? "" : " (" + r.creator() + ")");
    if (!r.problems().isEmpty()) {
      fx.post(() -> {
        Alert a = new Alert(Alert.AlertType.WARNING);
        a.initOwner(window.get());
        a.setTitle("HAR import");
        a.setHeaderText(text + "; " + r.skipped() + " skipped, " + (r.problems().size() - r.skipped())
            + " fields ignored");
        StringBuilder sb = new StringBuilder();
        r.problems().stream().limit(50).forEach(p -> sb.append(p).append('\n'));
        if (r.problems().size() > 50) {
          sb.append("… and ").append(r.problems().size() - 50).append(" more");
        }
        a.setContentText(sb.toString());
        a.getDialogPane().setId("import-report");
        a.show();
      });
    }
    return text;
  }

  /** A blocking file job on the worker: its sentence to the status bar, its failure to an alert. */
  private void run(String starting, Job job) {
    notice.accept(starting);
    worker.execute(() -> {
      try {
        String done = job.run();
        fx.post(() -> notice.accept(done));
      } catch (Exception e) {
        String why = e instanceof SessionException ? e.getMessage()
            : e.getMessage() == null ? e.toString() : e.getMessage();
        fx.post(() -> {
          notice.accept(why);
          Alert a = new Alert(Alert.AlertType.ERROR, why, ButtonType.OK);
          a.initOwner(window.get());
          a.setHeaderText(null);
          a.getDialogPane().setId("session-error");
          a.show();
        });
      }
    });
  }

  @FunctionalInterface
  private interface Job {
    String run() throws Exception;
  }

  private Path choose(String dialogTitle, String suggested, boolean save, List<String> extensions) {
    FileChooser chooser = new FileChooser();
    chooser.setTitle(dialogTitle);
    if (suggested != null) {
      chooser.setInitialFileName(suggested);
    }
    for (String ext : extensions) {
      chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter(
          ext.equals("*.har") ? "HAR (HTTP Archive)" : "Loupe session", ext));
    }
    if (extensions.size() > 1) {
      chooser.getExtensionFilters().add(0, new FileChooser.ExtensionFilter("Sessions and HAR files", extensions));
    }
    File f = save ? chooser.showSaveDialog(window.get()) : chooser.showOpenDialog(window.get());
    return f == null ? null : f.toPath();
  }

  /** Tests answer the file dialogs themselves. */
  public void asker(FileAsker asker) {
    this.asker = asker;
  }

  /** Waits until the file jobs asked for so far are done (tests). */
  public void awaitIdle() throws Exception {
    worker.submit(() -> { }).get();
  }

  @Override
  public void close() {
    worker.shutdown();
  }
}
