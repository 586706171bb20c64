package dev.loupe.ui.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.LuminanceSource;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import dev.loupe.ui.shell.Screenshots;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.scene.control.ComboBox;
import javafx.scene.control.TextField;
import javafx.scene.image.Image;
import javafx.scene.image.PixelReader;
import javafx.stage.Stage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.api.FxRobot;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/**
 * The real "Remote devices" window on headless Monocle: turning remote access on and applying it
 * draws a QR code, which ZXing's reader decodes — off the image the window shows — to the setup
 * page with exactly the address, port, user and password the window shows.
 */
@ExtendWith(ApplicationExtension.class)
@Timeout(120)
class RemoteDevicesDialogTest {
  private final FakeConnectPort port = new FakeConnectPort();
  private final ExecutorService background = Executors.newSingleThreadExecutor();
  private RemoteDevicesViewModel vm;
  private RemoteDevicesDialog dialog;
  private Scene scene;

  @Start
  void start(Stage stage) {
    vm = new RemoteDevicesViewModel(port, Platform::runLater, background);
    vm.load();
    dialog = new RemoteDevicesDialog(vm);
    scene = new Scene(dialog.root());
    stage.setScene(scene);
    stage.show();
  }

  @AfterEach
  void stop() {
    background.shutdownNow();
  }

  @Test
  void theQrCodeDecodesToTheShownSettings(FxRobot robot) throws Exception {
    assertThat(dialog.qrView().getImage()).as("no QR code while off").isNull();
    robot.clickOn("#remote-enabled");
    robot.clickOn("#remote-new-password");
    robot.clickOn("#remote-apply");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> dialog.qrView().getImage() != null);
    WaitForAsyncUtils.waitForFxEvents();
    Screenshots.write(scene, "remote-devices.png");

    String decoded = decode(dialog.qrView().getImage());
    String user = robot.lookup("#remote-user").queryAs(TextField.class).getText();
    String password = robot.lookup("#remote-password").queryAs(TextField.class).getText();
    @SuppressWarnings("unchecked")
    String address = (String) robot.lookup("#remote-address").queryAs(ComboBox.class).getValue();
    URI uri = URI.create(decoded);
    assertThat(uri.getScheme() + "://" + uri.getRawAuthority() + uri.getPath())
        .isEqualTo("http://" + address + ":8080/");
    Map<String, String> settings = new HashMap<>();
    for (String kv : uri.getRawFragment().split("&")) {
      String[] p = kv.split("=", 2);
      settings.put(p[0], URLDecoder.decode(p[1], StandardCharsets.UTF_8));
    }
    assertThat(settings).containsEntry("proxy", address + ":8080").containsEntry("user", user)
        .containsEntry("password", password);
    assertThat(port.calls).contains("apply true true " + user + " " + password);
  }

  @Test
  void whenTheLanAddressesGoAwayTheWindowStillAppliesAndShowsNoQrCode(FxRobot robot) throws Exception {
    assertThat(robot.lookup("#remote-address").queryAs(ComboBox.class).getValue()).isEqualTo("192.168.1.23");
    port.state = new ConnectPort.RemoteAccess(false, true, "loupe", "Tr7pQx2mKz9wHa4N", 8080, java.util.List.of());
    robot.clickOn("#remote-enabled");
    robot.clickOn("#remote-apply");
    WaitForAsyncUtils.waitFor(10, TimeUnit.SECONDS, () -> !vm.applyingProperty().get());
    WaitForAsyncUtils.waitForFxEvents();
    assertThat(vm.messageProperty().get()).startsWith("Remote access is on");
    assertThat(vm.addresses()).isEmpty();
    assertThat(dialog.qrView().getImage()).as("no address a phone could use").isNull();
    robot.interact(vm::load); // and again, with the address box's choice now empty
    assertThat(vm.qrTextProperty().get()).isEmpty();
  }

  /** Reads the QR code off the image as a phone would (ZXing's reader). */
  static String decode(Image image) throws Exception {
    int w = (int) image.getWidth();
    int h = (int) image.getHeight();
    int[] argb = new int[w * h];
    PixelReader r = image.getPixelReader();
    for (int y = 0; y < h; y++) {
      for (int x = 0; x < w; x++) {
        argb[y * w + x] = r.getArgb(x, y);
      }
    }
    LuminanceSource source = new RGBLuminanceSource(w, h, argb);
    return new QRCodeReader().decode(new BinaryBitmap(new HybridBinarizer(source))).getText();
  }
}
