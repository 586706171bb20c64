package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.connect.FakeConnectPort;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.status.ActivityFeed;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.stage.Stage;
import org.controlsfx.control.StatusBar;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The real window on headless Monocle: switching remote access on in "Remote devices…" (the
 * toolbar button, the real dialog, Apply) moves the status bar from the loopback address to the LAN
 * addresses and port, saying a login is required; switching it off brings it back to loopback.
 * Where the proxy then listens comes from the connect port's {@code onListening} (the app's
 * {@code ConnectService}, checked on a real proxy by RemoteAccessListeningTest).
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class RemoteAccessStatusBarTest {
  private final FakeConnectPort port = new FakeConnectPort();
  private final InterceptService intercept = InterceptService.create();
  private FlowListViewModel vm;
  private MainWindow window;
  @TempDir
  Path confdir;

  @Start
  void start(Stage stage) {
    FlowStore store = FlowStore.create();
    vm = new FlowListViewModel(store, Platform::runLater);
    window = new MainWindow(vm, new DesktopContext(store, "127.0.0.1:8080", confdir, Settings.DEFAULTS,
        s -> "127.0.0.1:8080", new RecordingSystemProxy(), new dev.loupe.ui.trust.FakeTrustPort(), intercept,
        (request, protocol, replayOf) -> CompletableFuture.failedFuture(new UnsupportedOperationException()),
        ActivityFeed.NONE, port));
    stage.setScene(window.scene());
    stage.show();
  }

  @AfterEach
  void stop() {
    window.close();
    vm.close();
    intercept.close();
  }

  @Test
  void theStatusBarShowsTheLanAddressesWhileRemoteAccessIsOnAndLoopbackOnceItIsOff(FxRobot robot) throws Exception {
    StatusBar bar = robot.lookup("#status-bar").queryAs(StatusBar.class);
    assertThat(bar.getText()).isEqualTo("Listening on 127.0.0.1:8080 — 0 flows");

    robot.clickOn("#remote-devices");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#remote-enabled").tryQuery().isPresent());
    robot.clickOn("#remote-enabled");
    robot.clickOn("#remote-apply");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> bar.getText().contains("remote access"));
    assertThat(bar.getText()).isEqualTo(
        "Listening on 192.168.1.23:8080, [fd00::23]:8080 (remote access, login required) — 0 flows");
    assertThat(port.calls).anyMatch(c -> c.startsWith("apply true true loupe "));

    robot.clickOn("#remote-enabled");
    robot.clickOn("#remote-apply");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !bar.getText().contains("remote access"));
    assertThat(bar.getText()).isEqualTo("Listening on 127.0.0.1:8080 — 0 flows");
  }
}
