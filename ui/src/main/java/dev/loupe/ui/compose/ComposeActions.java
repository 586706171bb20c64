package dev.loupe.ui.compose;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.Flow;
import dev.loupe.ui.common.FxThread;
import dev.loupe.ui.diff.DiffWindow;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.scene.Scene;
import javafx.scene.control.ContextMenu;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.stage.Window;
import javafx.stage.WindowEvent;

/**
 * The flow table's replay, compose and compare actions, for the main window to install in one go
 * ({@link #install(ContextMenu)} and {@link #install(Scene)}):
 * <ul>
 *   <li>Replay (Ctrl+R): the selected flows, in table order, one after the other, each over the
 *       protocol its original's server side spoke; "Replay over" picks HTTP/1.1, HTTP/2 or HTTP/3
 *       for all. The new flows are recorded by the engine, linked to their originals.
 *   <li>Edit and replay… (Ctrl+Shift+R): the composer, filled from the selected flow.
 *   <li>Compare (Ctrl+D): two selected flows side by side ({@link DiffWindow}).
 *   <li>New request… (Ctrl+N): an empty composer.
 * </ul>
 * Outcomes go to the {@code notice} consumer (the status bar), on the UI thread.
 */
public final class ComposeActions {
  public static final KeyCombination REPLAY = new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN);
  public static final KeyCombination EDIT_AND_REPLAY =
      new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN);
  public static final KeyCombination COMPARE = new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN);
  public static final KeyCombination COMPOSE = new KeyCodeCombination(KeyCode.N, KeyCombination.SHORTCUT_DOWN);

  private final Replayer replayer;
  private final Path confdir;
  private final Supplier<List<Flow>> selection;
  private final Supplier<Window> window;
  private final Consumer<String> notice;
  private final FxThread fx;
  private CompletionStage<Replays.Outcome> lastReplay = CompletableFuture.completedFuture(null);

  /**
   * @param selection the selected flows, in table order
   * @param window    the main window (owner of the windows opened here), or null
   * @param notice    shows an outcome to the user (called on the UI thread)
   */
  public ComposeActions(Replayer replayer, Path confdir, Supplier<List<Flow>> selection, Supplier<Window> window,
      Consumer<String> notice, FxThread fx) {
    this.replayer = replayer;
    this.confdir = confdir;
    this.selection = selection;
    this.window = window;
    this.notice = notice;
    this.fx = fx;
  }

  /** Puts the actions at the top of the table's context menu (enabled as the selection allows). */
  public void install(ContextMenu menu) {
    MenuItem replay = item("Replay", "replay", REPLAY, () -> replaySelected(null));
    Menu over = new Menu("Replay over");
    over.setId("replay-over");
    for (Map.Entry<String, Replayer.Protocol> e : List.of(Map.entry("HTTP/1.1", Replayer.Protocol.H1),
        Map.entry("HTTP/2", Replayer.Protocol.H2), Map.entry("HTTP/3", Replayer.Protocol.H3))) {
      MenuItem m = item(e.getKey(), "replay-over-" + e.getValue().name().toLowerCase(java.util.Locale.ROOT), null,
          () -> replaySelected(e.getValue()));
      over.getItems().add(m);
    }
    MenuItem edit = item("Edit and replay…", "edit-and-replay", EDIT_AND_REPLAY, this::editAndReplay);
    MenuItem compare = item("Compare", "compare", COMPARE, this::compareSelected);
    MenuItem compose = item("New request…", "compose", COMPOSE, this::openComposer);
    menu.getItems().addAll(0, List.of(replay, over, edit, compare, compose, new SeparatorMenuItem()));
    menu.addEventHandler(WindowEvent.WINDOW_SHOWING, e -> {
      List<Flow> sel = selection.get();
      replay.setDisable(sel.isEmpty());
      over.setDisable(sel.isEmpty());
      edit.setDisable(sel.size() != 1);
      compare.setDisable(sel.size() != 2);
    });
  }

  /** Installs the keyboard shortcuts in the main window's scene. */
  public void install(Scene scene) {
    scene.getAccelerators().put(REPLAY, () -> replaySelected(null));
    scene.getAccelerators().put(EDIT_AND_REPLAY, this::editAndReplay);
    scene.getAccelerators().put(COMPARE, this::compareSelected);
    scene.getAccelerators().put(COMPOSE, this::openComposer);
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

  /**
   * Replays the selection in order ({@link Replays#inOrder}); {@code protocol} null keeps each
   * original's. Returns the outcome (also shown as a notice).
   */
  public CompletionStage<Replays.Outcome> replaySelected(Replayer.Protocol protocol) {
    List<Flow> flows = List.copyOf(selection.get());
    if (flows.isEmpty()) {
      return CompletableFuture.completedFuture(new Replays.Outcome(List.of(), List.of()));
    }
    CompletionStage<Replays.Outcome> done = Replays.inOrder(replayer, flows, protocol, s -> fx.post(() -> notice.accept(s)));
    done.whenComplete((o, failure) -> fx.post(() -> notice.accept(failure != null
        ? "Replay failed: " + failure.getMessage() : o.message())));
    lastReplay = done;
    return done;
  }

  /** Opens the composer filled from the (first) selected flow; null when there is none or it cannot be replayed. */
  public ComposerWindow editAndReplay() {
    List<Flow> flows = selection.get();
    if (flows.isEmpty()) {
      return null;
    }
    Flow f = flows.get(0);
    try {
      var draft = Replays.draftOf(f);
      ComposerWindow w = ComposerWindow.open(window.get(), replayer, confdir);
      w.viewModel().load(draft, Replays.protocolOf(f), f.id());
      return w;
    } catch (IllegalArgumentException e) {
      notice.accept("Cannot edit and replay " + e.getMessage());
      return null;
    }
  }

  /** Opens an empty composer. */
  public ComposerWindow openComposer() {
    return ComposerWindow.open(window.get(), replayer, confdir);
  }

  /** Compares the two selected flows; null (with a notice) unless exactly two are selected. */
  public DiffWindow compareSelected() {
    List<Flow> flows = selection.get();
    if (flows.size() != 2) {
      notice.accept("Select two flows to compare (" + flows.size() + " selected)");
      return null;
    }
    return DiffWindow.compare(window.get(), flows.get(0), flows.get(1));
  }

  /** The last replay started (tests wait on it). */
  public CompletionStage<Replays.Outcome> lastReplay() {
    return lastReplay;
  }
}
