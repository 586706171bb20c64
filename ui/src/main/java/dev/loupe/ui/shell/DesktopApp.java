package dev.loupe.ui.shell;

import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.flows.FlowListViewModel;
import java.util.concurrent.CountDownLatch;
import javafx.application.Platform;
import javafx.stage.Stage;

/**
 * Opens the desktop window on a running engine and blocks until it is closed. Uses
 * {@link Platform#startup} rather than an {@code Application} subclass, so the shaded jar's main
 * class stays a plain class (an {@code Application} main class fails with "JavaFX runtime
 * components are missing" on the class path).
 */
public final class DesktopApp {
  private DesktopApp() {}

  /** Shows the window titled "Loupe — LISTENING" and returns when the user closes it. */
  public static void showAndWait(FlowStore store, String listening) throws InterruptedException {
    CountDownLatch closed = new CountDownLatch(1);
    Platform.setImplicitExit(true);
    Platform.startup(() -> {
      FlowListViewModel vm = new FlowListViewModel(store, Platform::runLater);
      MainWindow window = new MainWindow(vm, store, listening);
      Stage stage = new Stage();
      stage.setTitle("Loupe — " + listening);
      stage.setScene(window.scene());
      stage.setOnHidden(e -> {
        vm.close();
        closed.countDown();
      });
      stage.show();
    });
    closed.await();
  }
}
