package dev.loupe.ui.trust;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ui.shell.Screenshots;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.TextField;
import javafx.stage.Stage;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** The real dialog on headless Monocle, driving an in-memory port. */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class TrustDialogTest {
  private static final String FAILURE = "certutil -A -n Loupe CA 3A7F10C2 -t C,, -i /tmp/loupe-ca.pem "
      + "-d sql:/home/ada/.mozilla/firefox/x -f /tmp/pw exited with 255:\n"
      + "certutil: could not authenticate to token NSS Certificate DB.: SEC_ERROR_BAD_PASSWORD: "
      + "The security password entered is incorrect.";

  @TempDir static Path tmp;
  private final FakeTrustPort port = new FakeTrustPort()
      .add(FakeTrustPort.notTrusted("nss-chromium", "Chromium / Chrome (NSS)", "/home/ada/.pki/nssdb"))
      .add(FakeTrustPort.notTrusted("nss-firefox-x", "Firefox — default-release",
          "/home/ada/.mozilla/firefox/x.default-release"))
      .add(FakeTrustPort.needsSudo("system-debian"));
  private final ExecutorService background = Executors.newCachedThreadPool();
  private final List<String> clipboard = new CopyOnWriteArrayList<>();
  private final List<ExportFormat> asked = new CopyOnWriteArrayList<>();
  private TrustDialogViewModel vm;

  @Start
  void start(Stage stage) {
    port.failures.put("nss-firefox-x", FAILURE);
    vm = new TrustDialogViewModel(port, background, Platform::runLater, clipboard::add);
    TrustDialog dialog = new TrustDialog(vm, (window, format) -> {
      asked.add(format);
      return tmp.resolve(format.defaultFileName());
    });
    stage.setTitle(TrustDialog.TITLE);
    stage.setScene(dialog.scene());
    stage.show();
    vm.refresh();
  }

  @AfterEach
  void stop() {
    port.open();
    background.shutdownNow();
  }

  @Test
  void installingUpdatesTheRowWithoutFreezingTheDialog(FxRobot robot) throws Exception {
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> robot.lookup("#trust-row-nss-chromium").tryQuery().isPresent());
    WaitForAsyncUtils.waitForFxEvents(); // the rest of that FX update
    assertThat(robot.lookup("#trust-fingerprint").queryAs(TextField.class).getText()).isEqualTo(FakeTrustPort.FINGERPRINT);
    assertThat(robot.lookup("#trust-subject").queryAs(Label.class).getText()).isEqualTo("CN=Loupe CA (ada@workstation),O=Loupe");
    assertThat(robot.lookup("#trust-file").queryAs(TextField.class).getText()).isEqualTo("/home/ada/.config/loupe/ca-cert.pem");
    String chromium = "#trust-row-nss-chromium ";
    assertThat(status(robot, chromium)).isEqualTo("Not trusted");

    port.close();
    robot.clickOn(chromium + ".trust-install");
    WaitForAsyncUtils.waitForFxEvents();

    // The port is held mid-install: the row shows progress, its buttons are off, the FX thread is free.
    assertThat(robot.lookup(chromium + ".trust-progress").queryAs(ProgressIndicator.class).isVisible()).isTrue();
    assertThat(robot.lookup(chromium + ".trust-progress-text").queryAs(Label.class).getText()).isEqualTo("Installing…");
    assertThat(robot.lookup(chromium + ".trust-install").queryAs(Button.class).isDisabled()).isTrue();
    robot.clickOn("#trust-row-system-debian .trust-copy");
    assertThat(clipboard).containsExactly(
        "sudo cp /home/ada/.config/loupe/ca-cert.pem /usr/local/share/ca-certificates/loupe-ca.crt && sudo update-ca-certificates");
    port.open();
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> "Trusted".equals(status(robot, chromium)));
    WaitForAsyncUtils.waitForFxEvents(); // the rest of that FX update

    assertThat(message(robot, chromium).getText()).isEqualTo("Installed \"Loupe CA 3A7F10C2\" in /home/ada/.pki/nssdb.");
    assertThat(message(robot, chromium).getStyleClass()).contains("trust-message-ok");
    assertThat(robot.lookup(chromium + ".trust-status").queryAs(Label.class).getStyleClass()).contains("trust-trusted");
    assertThat(robot.lookup(chromium + ".trust-progress").queryAs(ProgressIndicator.class).isVisible()).isFalse();
    assertThat(robot.lookup(chromium + ".trust-remove").queryAs(Button.class).isDisabled()).isFalse();
    assertThat(robot.lookup(chromium + ".trust-install").queryAs(Button.class).isDisabled()).isTrue();

    String firefox = "#trust-row-nss-firefox-x ";
    robot.clickOn(firefox + ".trust-install");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> message(robot, firefox).getText().equals(FAILURE));
    WaitForAsyncUtils.waitForFxEvents(); // the rest of that FX update
    assertThat(message(robot, firefox).getStyleClass()).contains("trust-message-failed");
    assertThat(status(robot, firefox)).isEqualTo("Not trusted");

    robot.clickOn("#trust-export-pem");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS,
        () -> robot.lookup("#trust-export-message").queryAs(Label.class).getText().startsWith("Exported PEM"));
    WaitForAsyncUtils.waitForFxEvents(); // the rest of that FX update
    assertThat(asked).containsExactly(ExportFormat.PEM);
    assertThat(tmp.resolve("loupe-ca.pem")).exists();
    assertThat(port.callThreads).noneMatch(name -> name.contains("JavaFX") || name.contains("Application Thread"));

    Path png = Screenshots.write(robot.lookup("#trust-fingerprint").query().getScene(), "ca-dialog.png");
    assertThat(Files.size(png)).isPositive();
    assertThat(ImageIO.read(png.toFile()).getWidth()).isEqualTo(900);

    robot.clickOn(chromium + ".trust-remove");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> "Not trusted".equals(status(robot, chromium)));
    WaitForAsyncUtils.waitForFxEvents(); // the rest of that FX update
    assertThat(message(robot, chromium).getText()).isEqualTo("Removed \"Loupe CA 3A7F10C2\".");
  }

  private static String status(FxRobot robot, String row) {
    return robot.lookup(row + ".trust-status").queryAs(Label.class).getText();
  }

  private static Label message(FxRobot robot, String row) {
    return robot.lookup(row + ".trust-message").queryAs(Label.class);
  }
}
