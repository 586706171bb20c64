package dev.loupe.ui.shell;

import dev.loupe.ui.flows.FlowCatalog;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.session.SessionManager;
import java.util.concurrent.CountDownLatch;
import javafx.application.Platform;
import javafx.beans.binding.Bindings;
import javafx.stage.Stage;

/**
 * Opens the desktop window on a running engine and blocks until it is closed. Uses
 * {@link Platform#startup} rather than an {@code Application} subclass, so the shaded jar's main
 * class stays a plain class (an {@code Application} main class fails with "JavaFX runtime
 * components are missing" on the class path).
 */
public final class DesktopApp {
  private DesktopApp() {}

  /**
   * Shows the window titled "Loupe — SESSION — LISTENING", laid out as the user left it, and returns
   * when the user closes it (the layout is saved then). With session files, the table follows the
   * current session (File › Open switches it) and a crash's session is offered back.
   */
  public static void showAndWait(DesktopContext ctx) throws InterruptedException {
    CountDownLatch closed = new CountDownLatch(1);
    Platform.setImplicitExit(true);
    Platform.startup(() -> {
      SessionManager sessions = ctx.sessions();
      FlowListViewModel vm = sessions == null ? new FlowListViewModel(ctx.store(), Platform::runLater)
          : new FlowListViewModel(ctx.store(), FlowCatalog.of(sessions.current()), Platform::runLater);
      if (sessions != null) {
        sessions.addListener(s -> Platform.runLater(() -> vm.catalog(FlowCatalog.of(s))));
      }
      MainWindow window = new MainWindow(vm, ctx);
      WindowLayout layout = WindowLayout.load(ctx.confdir());
      Stage stage = new Stage();
      if (window.sessionMenu() == null) {
        stage.setTitle("Loupe — " + ctx.listening());
      } else {
        stage.titleProperty().bind(Bindings.concat("Loupe — ", window.sessionMenu().titleProperty(), " — ",
            ctx.listening()));
      }
      stage.setScene(window.scene(layout));
      if (!Double.isNaN(layout.x())) {
        stage.setX(layout.x());
        stage.setY(layout.y());
      }
      stage.setMaximized(layout.maximized());
      stage.setOnCloseRequest(e -> window.layout(stage).save(ctx.confdir()));
      stage.setOnHidden(e -> {
        window.close();
        vm.close();
        closed.countDown();
      });
      stage.show();
      if (window.sessionMenu() != null) {
        Platform.runLater(window.sessionMenu()::offerRestore);
      }
    });
    closed.await();
  }
}
