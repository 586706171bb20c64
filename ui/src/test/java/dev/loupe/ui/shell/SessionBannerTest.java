package dev.loupe.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.SmallDisk;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.ui.flows.FlowCatalog;
import dev.loupe.ui.flows.FlowListViewModel;
import dev.loupe.ui.session.SessionManager;
import dev.loupe.ui.settings.Settings;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.stage.Stage;
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
 * The window recording its session onto a disk that fills (a 2 MiB tmpfs under the configuration
 * directory): a banner says why capture paused while traffic still flows; after space is freed,
 * Resume capture hides it and capture is on again.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class SessionBannerTest {
  private ProxyFixture proxy;
  private TestOrigin origin;
  private SmallDisk disk;
  private SessionManager sessions;
  private FlowListViewModel vm;
  private MainWindow window;
  private Path ballast;
  @TempDir Path dir;

  @Start
  void start(Stage stage) throws Exception {
    proxy = ProxyFixture.start();
    origin = TestOrigin.http();
    disk = SmallDisk.mount(dir.resolve("conf"), 2048);
    ballast = Files.write(disk.dir().resolve("ballast"), new byte[400 * 1024]);
    sessions = new SessionManager(disk.dir(), proxy.store(), dir);
    sessions.start(null);
    vm = new FlowListViewModel(proxy.store(), FlowCatalog.of(sessions.current()), Platform::runLater);
    window = new MainWindow(vm, new DesktopContext(proxy.store(), "127.0.0.1:" + proxy.port(), disk.dir(),
        Settings.DEFAULTS, s -> "127.0.0.1:" + proxy.port(), new RecordingSystemProxy(),
        new dev.loupe.ui.trust.FakeTrustPort(), proxy.engine().intercept(), proxy.engine()::replay,
        dev.loupe.ui.status.ActivityFeed.NONE, sessions));
    stage.setScene(window.scene());
    stage.show();
  }

  @AfterEach
  void stop() throws Exception {
    window.close();
    vm.close();
    try {
      sessions.close();
    } finally {
      proxy.close();
      origin.close();
      disk.close();
    }
  }

  @Test
  void aFullDiskShowsABannerAndResumeHidesItOnceThereIsRoom(FxRobot robot) throws Exception {
    Node banner = robot.lookup("#session-banner").query();
    assertThat(banner.isVisible()).isFalse();
    for (int i = 0; i < 600 && !banner.isVisible(); i++) {
      HttpResponse<byte[]> r = proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/20000?i=" + i))
          .build(), HttpResponse.BodyHandlers.ofByteArray());
      assertThat(r.body()).as("relayed in full, paused or not").isEqualTo(TestData.bytes(20000));
      if (i % 20 == 19) {
        WaitForAsyncUtils.sleep(300, TimeUnit.MILLISECONDS);
        WaitForAsyncUtils.waitForFxEvents();
      }
    }
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, banner::isVisible);
    assertThat(robot.lookup("#session-problem").queryAs(Label.class).getText())
        .contains("is full: capture is paused (traffic is still relayed; the flows saved so far are safe)");
    assertThat(proxy.store().capturing()).isFalse();
    javafx.scene.control.ToggleButton capture = robot.lookup("#capture").queryAs(javafx.scene.control.ToggleButton.class);
    assertThat(capture.isSelected()).as("the toolbar shows capture off").isFalse();
    assertThat(capture.isDisabled()).as("only Resume turns it on again").isTrue();
    Screenshots.write(banner.getScene(), "session-disk-full-banner.png");
    HttpResponse<byte[]> during = proxy.client().send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/100?paused"))
        .build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(during.body()).isEqualTo(TestData.bytes(100));

    Files.delete(ballast);
    robot.clickOn("#session-resume");
    WaitForAsyncUtils.waitFor(20, TimeUnit.SECONDS, () -> !banner.isVisible());
    assertThat(proxy.store().capturing()).isTrue();
    assertThat(capture.isSelected()).isTrue();
    assertThat(capture.isDisabled()).isFalse();
  }
}
