package dev.loupe.ui.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Remote devices view model at its edges, headless: used before the state in force is loaded,
 * on a machine with no LAN address, and when the address list empties under the window (its address
 * box then leaves the chosen address null, which once threw a NullPointerException from
 * {@code List.contains(null)} on every later load or apply).
 */
@Timeout(60)
class RemoteDevicesViewModelTest {
  private final FakeConnectPort port = new FakeConnectPort();
  private final ExecutorService background = Executors.newSingleThreadExecutor();
  private final ConnectViewModelsTest.ManualFx fx = new ConnectViewModelsTest.ManualFx();
  private final RemoteDevicesViewModel vm = new RemoteDevicesViewModel(port, fx, background);

  @AfterEach
  void stop() {
    background.shutdownNow();
  }

  @Test
  void theAddressBoxClearingTheChoiceDoesNotBreakTheNextLoad() {
    vm.load();
    assertThat(vm.addressProperty().get()).isEqualTo("192.168.1.23");
    vm.addressProperty().set(null); // what the ComboBox bound to it does when its items go away
    port.state = new ConnectPort.RemoteAccess(true, true, "loupe", "Tr7pQx2mKz9wHa4N", 8080, List.of());
    vm.load();
    assertThat(vm.addresses()).isEmpty();
    assertThat(vm.addressProperty().get()).isEmpty();
    assertThat(vm.qrTextProperty().get()).as("no address a phone could use").isEmpty();

    vm.addressProperty().set(null);
    port.state = new ConnectPort.RemoteAccess(true, true, "loupe", "Tr7pQx2mKz9wHa4N", 8080, List.of("10.0.0.7"));
    vm.load();
    assertThat(vm.addressProperty().get()).isEqualTo("10.0.0.7");
    assertThat(vm.qrTextProperty().get()).startsWith("http://10.0.0.7:8080/#proxy=10.0.0.7%3A8080&user=loupe");
  }

  @Test
  void applyingWithNoLanAddressWorksAndShowsNoQrCode() throws Exception {
    port.state = new ConnectPort.RemoteAccess(false, true, "loupe", "Tr7pQx2mKz9wHa4N", 8080, List.of());
    vm.load();
    vm.addressProperty().set(null);
    vm.enabledProperty().set(true);
    vm.apply();
    fx.runNext();
    assertThat(vm.messageProperty().get()).startsWith("Remote access is on");
    assertThat(vm.qrTextProperty().get()).isEmpty();
  }

  @Test
  void usedBeforeLoadingItNeitherThrowsNorCallsThePortWithAnIncompleteState() throws Exception {
    assertThat(vm.changed()).isTrue();
    assertThat(vm.qrTextProperty().get()).isEmpty();
    vm.addressProperty().set(null);
    vm.enabledProperty().set(true);
    vm.apply(); // user name and password are still empty: refused before the port is asked
    assertThat(vm.messageProperty().get()).isEqualTo("Enter a user name.");
    assertThat(port.calls).noneMatch(c -> c.startsWith("apply"));
    vm.refreshRefusals();
    assertThat(vm.refusals()).isEmpty();
  }

  @Test
  void aStateWithoutCredentialsOrAddressesIsShownAsEmpty() {
    port.state = new ConnectPort.RemoteAccess(false, true, null, null, 8080, null);
    vm.load();
    assertThat(vm.usernameProperty().get()).isEmpty();
    assertThat(vm.passwordProperty().get()).isEmpty();
    assertThat(vm.addresses()).isEmpty();
    assertThat(vm.changed()).isFalse();
    vm.enabledProperty().set(true);
    assertThat(vm.changed()).isTrue();
    vm.apply();
    assertThat(vm.messageProperty().get()).isEqualTo("Enter a user name.");
  }
}
