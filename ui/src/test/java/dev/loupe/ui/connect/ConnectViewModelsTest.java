package dev.loupe.ui.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ui.common.FxThread;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The connect view models, headless: port calls on a background thread, results through a hand-run FX queue. */
@Timeout(60)
class ConnectViewModelsTest {
  static final class ManualFx implements FxThread {
    final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();

    @Override
    public void post(Runnable task) {
      tasks.add(task);
    }

    void runNext() throws InterruptedException {
      Runnable task = tasks.poll(20, TimeUnit.SECONDS);
      assertThat(task).as("a result was posted to the FX thread").isNotNull();
      task.run();
    }
  }

  private final FakeConnectPort port = new FakeConnectPort();
  private final ExecutorService background = Executors.newSingleThreadExecutor();
  private final ManualFx fx = new ManualFx();
  private final List<String> notices = new ArrayList<>();
  private final List<String> clipboard = new ArrayList<>();
  private final ConnectViewModel connect = new ConnectViewModel(port, fx, background, notices::add, clipboard::add);

  @AfterEach
  void stop() {
    background.shutdownNow();
  }

  @Test
  void browsersAreLookedUpInTheBackgroundAndStartedWithTheirUrl() throws Exception {
    List<String> done = new ArrayList<>();
    connect.refreshBrowsers(() -> done.add("filled"));
    fx.runNext();
    assertThat(connect.browsers()).extracting(ConnectPort.BrowserChoice::name).containsExactly("Chromium", "Firefox");
    assertThat(done).containsExactly("filled");

    connect.openBrowser(connect.browsers().get(1), "  https://example.com/  ");
    assertThat(connect.busyProperty().get()).isTrue();
    assertThat(notices).containsExactly("Starting Firefox…");
    fx.runNext();
    assertThat(connect.busyProperty().get()).isFalse();
    assertThat(port.calls).contains("open firefox https://example.com/");
    assertThat(notices).last().isEqualTo("Started firefox");

    port.failNext = new IllegalStateException("certutil not found");
    connect.openBrowser(connect.browsers().get(0), "");
    fx.runNext();
    assertThat(port.calls).contains("open chromium null");
    assertThat(notices).last().isEqualTo("Failed: certutil not found");
  }

  @Test
  void copySetupPutsTheShellsScriptOnTheClipboard() throws Exception {
    connect.copySetup("fish", "fish");
    fx.runNext();
    assertThat(clipboard).containsExactly("# setup for fish\n");
    assertThat(notices).last().asString().startsWith("Copied the fish setup");
    port.failNext = new IllegalStateException("disk full");
    connect.copySetup("pwsh", "PowerShell");
    fx.runNext();
    assertThat(clipboard).hasSize(1);
    assertThat(notices).last().isEqualTo("Cannot write the PowerShell setup: disk full");
  }

  @Test
  void remoteAccessQrCarriesTheSettingsInForceAndAppliesEdits() throws Exception {
    RemoteDevicesViewModel vm = new RemoteDevicesViewModel(port, fx, background);
    vm.load();
    assertThat(vm.enabledProperty().get()).isFalse();
    assertThat(vm.qrTextProperty().get()).as("no QR code while remote access is off").isEmpty();
    assertThat(vm.addressProperty().get()).isEqualTo("192.168.1.23");

    vm.enabledProperty().set(true);
    vm.newPassword();
    String password = vm.passwordProperty().get();
    assertThat(password).hasSize(16).isNotEqualTo("Tr7pQx2mKz9wHa4N").matches("[a-zA-Z2-9]{16}");
    assertThat(vm.changed()).isTrue();
    vm.apply();
    assertThat(vm.applyingProperty().get()).isTrue();
    fx.runNext();
    assertThat(port.calls).contains("apply true true loupe " + password);
    assertThat(vm.messageProperty().get()).startsWith("Remote access is on");
    assertThat(vm.changed()).isFalse();

    URI qr = URI.create(vm.qrTextProperty().get());
    assertThat(qr.getScheme() + "://" + qr.getRawAuthority() + qr.getPath()).isEqualTo("http://192.168.1.23:8080/");
    assertThat(qr.getFragment()).isEqualTo("proxy=192.168.1.23:8080&user=loupe&password=" + password);

    vm.addressProperty().set("fd00::23");
    assertThat(vm.qrTextProperty().get()).startsWith("http://[fd00::23]:8080/#proxy=%5Bfd00%3A%3A23%5D%3A8080&user=");
  }

  @Test
  void badCredentialsAreRefusedBeforeTheProxyIsTouched() throws Exception {
    RemoteDevicesViewModel vm = new RemoteDevicesViewModel(port, fx, background);
    vm.load();
    vm.enabledProperty().set(true);
    vm.usernameProperty().set("a:b");
    vm.apply();
    assertThat(vm.messageProperty().get()).isEqualTo("The user name may not contain ':'.");
    vm.usernameProperty().set("phone");
    vm.passwordProperty().set("short");
    vm.apply();
    assertThat(vm.messageProperty().get()).isEqualTo("Use a password of at least 8 characters.");
    assertThat(port.calls).noneMatch(c -> c.startsWith("apply"));

    vm.passwordProperty().set("long enough now");
    port.failNext = new IllegalArgumentException("cannot listen on 0.0.0.0:8080: Address already in use");
    vm.apply();
    fx.runNext();
    assertThat(vm.messageProperty().get()).isEqualTo("Not applied: cannot listen on 0.0.0.0:8080: Address already in use");
    assertThat(vm.qrTextProperty().get()).as("still off").isEmpty();

    vm.requireAuthProperty().set(false);
    vm.apply();
    fx.runNext();
    assertThat(vm.messageProperty().get()).contains("WITHOUT authentication");
    assertThat(vm.qrTextProperty().get()).isEqualTo("http://192.168.1.23:8080/#proxy=192.168.1.23%3A8080");
  }

  @Test
  void refusalsAreReadAgainOnRequest() {
    RemoteDevicesViewModel vm = new RemoteDevicesViewModel(port, fx, background);
    vm.load();
    assertThat(vm.refusals()).isEmpty();
    synchronized (port.refusals) {
      port.refusals.add("12:00:01  192.168.1.50 (HTTP): wrong user name or password (user \"loupe\")");
    }
    vm.refreshRefusals();
    assertThat(vm.refusals()).hasSize(1);
  }
}
