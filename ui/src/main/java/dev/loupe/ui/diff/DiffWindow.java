package dev.loupe.ui.diff;

import dev.loupe.engine.flow.Flow;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;
import javafx.stage.Window;

/**
 * A window comparing two flows side by side ({@link DiffView}); not modal, so several can stay
 * open next to the main window. Its diff thread ends when the window closes.
 */
public final class DiffWindow {
  private final Stage stage = new Stage();
  private final DiffViewModel vm;
  private final DiffView view;
  private final ExecutorService background = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "loupe-ui-diff");
    t.setDaemon(true);
    return t;
  });

  public DiffWindow(Window owner) {
    vm = new DiffViewModel(Platform::runLater, background);
    view = new DiffView(vm, "diff");
    Scene scene = new Scene((javafx.scene.Parent) view.node(), 1100, 720);
    if (owner != null && owner.getScene() != null) {
      scene.getStylesheets().setAll(owner.getScene().getStylesheets());
      stage.initOwner(owner);
    }
    stage.setScene(scene);
    stage.setOnHidden(e -> background.shutdownNow());
  }

  /** Opens a window comparing {@code left} with {@code right}. */
  public static DiffWindow compare(Window owner, Flow left, Flow right) {
    DiffWindow w = new DiffWindow(owner);
    w.stage.setTitle("Loupe — compare #" + left.id() + " and #" + right.id());
    w.vm.compare(left, right);
    w.stage.show();
    return w;
  }

  /** Opens a window comparing flow {@code left} of one session with {@code right} of another. */
  public static DiffWindow compare(Window owner, String leftName, Flow left, String rightName, Flow right) {
    DiffWindow w = new DiffWindow(owner);
    w.stage.setTitle("Loupe — compare " + leftName + " #" + left.id() + " and " + rightName + " #" + right.id());
    w.vm.compare(leftName, left, rightName, right);
    w.stage.show();
    return w;
  }

  /** Opens a window comparing {@code f} as it came with {@code f} as Loupe changed it. */
  public static DiffWindow originalVsModified(Window owner, Flow f) {
    DiffWindow w = new DiffWindow(owner);
    w.stage.setTitle("Loupe — #" + f.id() + " original vs modified");
    w.vm.originalVsModified(f);
    w.stage.show();
    return w;
  }

  public Stage stage() {
    return stage;
  }

  public DiffViewModel viewModel() {
    return vm;
  }

  public DiffView view() {
    return view;
  }
}
