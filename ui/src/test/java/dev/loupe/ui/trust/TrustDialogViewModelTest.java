package dev.loupe.ui.trust;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ui.common.FxThread;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The dialog's view model, headless: port calls on a background thread, results via the FX queue. */
@Timeout(60)
class TrustDialogViewModelTest {
  /** The "FX thread": posted tasks wait in a queue until the test runs them. */
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

  @TempDir Path tmp;
  private final FakeTrustPort port = new FakeTrustPort()
      .add(FakeTrustPort.notTrusted("nss-chromium", "Chromium / Chrome (NSS)", "/home/ada/.pki/nssdb"))
      .add(FakeTrustPort.notTrusted("nss-firefox-x", "Firefox — default-release", "/home/ada/.mozilla/firefox/x"))
      .add(FakeTrustPort.needsSudo("system-debian"))
      .add(TrustTarget.of("macos", "macOS keychain", "-", TrustState.UNAVAILABLE, "the security tool is missing"));
  private final ExecutorService background = Executors.newSingleThreadExecutor(r -> new Thread(r, "trust-bg"));
  private final ManualFx fx = new ManualFx();
  private final List<String> clipboard = new ArrayList<>();
  private TrustDialogViewModel vm;

  @BeforeEach
  void open() throws InterruptedException {
    vm = new TrustDialogViewModel(port, background, fx, clipboard::add);
    vm.refresh();
    assertThat(vm.refreshingProperty().get()).isTrue();
    fx.runNext();
  }

  @AfterEach
  void shutdown() {
    port.open();
    background.shutdownNow();
  }

  @Test
  void showsTheCaAndEveryTargetWithItsStatus() {
    assertThat(vm.ca().sha256Fingerprint()).isEqualTo(FakeTrustPort.FINGERPRINT);
    assertThat(vm.validity()).matches("\\d{1,2} Nov 2026 – \\d{1,2} Nov 2036");
    assertThat(vm.refreshingProperty().get()).isFalse();
    assertThat(vm.targets()).extracting(TrustTargetRow::id)
        .containsExactly("nss-chromium", "nss-firefox-x", "system-debian", "macos");
    assertThat(vm.targets()).extracting(r -> r.statusTextProperty().get())
        .containsExactly("Not trusted", "Not trusted", "Not trusted", "Unavailable: the security tool is missing");
    assertThat(vm.row("macos").canInstallProperty().get()).isFalse();
    assertThat(vm.row("macos").canRemoveProperty().get()).isFalse();
    assertThat(port.callThreads).containsOnly("trust-bg");
  }

  @Test
  void installRunsInTheBackgroundWhileTheRowShowsProgress() throws Exception {
    TrustTargetRow row = vm.row("nss-chromium");
    assertThat(row.canInstallProperty().get()).isTrue();
    port.close();

    vm.install(row);
    vm.install(row); // a second click while it runs does nothing

    assertThat(row.busyProperty().get()).isTrue();
    assertThat(row.progressProperty().get()).isEqualTo("Installing…");
    assertThat(row.canInstallProperty().get()).isFalse();
    assertThat(vm.row("nss-firefox-x").canInstallProperty().get()).as("other rows stay usable").isTrue();
    port.open();
    fx.runNext();

    assertThat(row.busyProperty().get()).isFalse();
    assertThat(row.progressProperty().get()).isEmpty();
    assertThat(row.statusTextProperty().get()).isEqualTo("Trusted");
    assertThat(row.lastOutcomeProperty().get())
        .isEqualTo(TrustOutcome.ok("Installed \"Loupe CA 3A7F10C2\" in /home/ada/.pki/nssdb."));
    assertThat(row.canRemoveProperty().get()).isTrue();
    assertThat(row.canInstallProperty().get()).isFalse();
    assertThat(port.calls).containsExactly("targets", "install nss-chromium", "status nss-chromium");
    assertThat(port.callThreads).containsOnly("trust-bg");

    vm.remove(row);
    fx.runNext();
    assertThat(row.statusTextProperty().get()).isEqualTo("Not trusted");
    assertThat(row.lastOutcomeProperty().get().success()).isTrue();
  }

  @Test
  void aFailureCarriesTheToolsMessageVerbatim() throws Exception {
    String certutil = "certutil -A -n Loupe CA 3A7F10C2 -t C,, -i /tmp/loupe-ca1.pem -d sql:/x -f /tmp/pw exited with 255:\n"
        + "certutil: could not authenticate to token NSS Certificate DB.: SEC_ERROR_BAD_PASSWORD: The security password entered is incorrect.";
    port.failures.put("nss-firefox-x", certutil);
    TrustTargetRow row = vm.row("nss-firefox-x");

    vm.install(row);
    fx.runNext();

    assertThat(row.lastOutcomeProperty().get()).isEqualTo(TrustOutcome.failed(certutil));
    assertThat(row.statusTextProperty().get()).isEqualTo("Not trusted");
    assertThat(row.canInstallProperty().get()).as("can try again").isTrue();
  }

  @Test
  void anExceptionFromThePortIsShownAsAFailure() throws Exception {
    port.explode = new IllegalStateException("disk on fire");
    TrustTargetRow row = vm.row("nss-chromium");

    vm.install(row);
    fx.runNext();

    assertThat(row.lastOutcomeProperty().get()).isEqualTo(TrustOutcome.failed("disk on fire"));
    assertThat(row.busyProperty().get()).isFalse();
  }

  @Test
  void theSystemStoreOffersTheSudoCommandInsteadOfAButton() {
    TrustTargetRow row = vm.row("system-debian");

    assertThat(row.canInstallProperty().get()).isFalse();
    assertThat(row.manualCommandProperty().get()).isEqualTo(
        "sudo cp /home/ada/.config/loupe/ca-cert.pem /usr/local/share/ca-certificates/loupe-ca.crt && sudo update-ca-certificates");
    vm.install(row);
    assertThat(row.busyProperty().get()).isFalse();
    vm.copyManualCommand(row);
    assertThat(clipboard).containsExactly(row.manualCommandProperty().get());

    row.update(row.target().with(TrustState.TRUSTED, "via /usr/local/share/ca-certificates/loupe-ca.crt"));
    assertThat(row.manualCommandProperty().get()).startsWith("sudo rm ");
    assertThat(row.canRemoveProperty().get()).isFalse();
  }

  @Test
  void aRefreshLeavesABusyRowToItsAction() throws Exception {
    ExecutorService twoThreads = Executors.newFixedThreadPool(2);
    try {
      TrustDialogViewModel parallel = new TrustDialogViewModel(port, twoThreads, fx, clipboard::add);
      parallel.refresh();
      fx.runNext();
      TrustTargetRow row = parallel.row("nss-chromium");
      port.close();
      parallel.install(row);
      // While the install is held, the store looks different to a refresh (a stale snapshot).
      port.add(row.target().with(TrustState.UNAVAILABLE, "database locked"));

      parallel.refresh();
      fx.runNext(); // the refresh's result

      assertThat(parallel.row("nss-chromium")).isSameAs(row);
      assertThat(row.busyProperty().get()).isTrue();
      assertThat(row.statusTextProperty().get()).as("not overwritten while busy").isEqualTo("Not trusted");
      assertThat(parallel.row("nss-firefox-x").statusTextProperty().get()).isEqualTo("Not trusted");
      port.open();
      fx.runNext(); // the install's result

      assertThat(row.busyProperty().get()).isFalse();
      assertThat(row.statusTextProperty().get()).isEqualTo("Trusted");
    } finally {
      twoThreads.shutdownNow();
    }
  }

  @Test
  void exportWritesTheFileInTheBackground() throws Exception {
    Path file = tmp.resolve("loupe-ca.pem");

    vm.export(file, ExportFormat.PEM);
    assertThat(vm.exportingProperty().get()).isTrue();
    fx.runNext();

    assertThat(vm.exportingProperty().get()).isFalse();
    assertThat(vm.exportOutcomeProperty().get()).isEqualTo(TrustOutcome.ok("Exported PEM to " + file));
    assertThat(Files.readString(file)).startsWith("-----BEGIN CERTIFICATE-----");
  }
}
