package dev.loupe.ui.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsViewModelTest {
  @TempDir Path confdir;

  private final List<Settings> applied = new ArrayList<>();

  private SettingsViewModel vm() {
    return new SettingsViewModel(new SettingsFile(confdir), Settings.DEFAULTS, s -> {
      applied.add(s);
      return s.listen();
    });
  }

  @Test
  void badValuesAreRejectedWithAMessageAndNothingIsSaved() {
    SettingsViewModel vm = vm();
    assertThat(vm.validate()).isTrue();
    vm.listenProperty().set("127.0.0.1:99999");
    assertThat(vm.listenErrorProperty().get()).contains("port out of range");
    vm.listenProperty().set("::1:80");
    assertThat(vm.listenErrorProperty().get()).contains("brackets");
    vm.ignoreHostsProperty().set("ok\\.example\n(unclosed");
    assertThat(vm.ignoreHostsErrorProperty().get()).startsWith("Not a regex: (unclosed");
    vm.upstreamProxyProperty().set("socks5://proxy:1080");
    assertThat(vm.upstreamProxyErrorProperty().get()).contains("must be an http:// proxy");
    vm.upstreamProxyProperty().set("http://proxy.corp");
    assertThat(vm.upstreamProxyErrorProperty().get()).contains("needs a host and a port");
    vm.bodyCapProperty().set("lots");
    assertThat(vm.bodyCapErrorProperty().get()).contains("not a size: 'lots'");
    vm.bodyCapProperty().set("3GiB");
    assertThat(vm.bodyCapErrorProperty().get()).contains("at most 2GiB");

    assertThat(vm.save()).isFalse();
    assertThat(vm.resultProperty().get()).isEqualTo("Fix the marked fields first.");
    assertThat(Files.exists(confdir.resolve(SettingsFile.NAME))).isFalse();
    assertThat(applied).isEmpty();
  }

  @Test
  void thePauseTimeoutIsWholeSecondsUpToADay() {
    SettingsViewModel vm = vm();
    assertThat(vm.pauseTimeoutProperty().get()).isEqualTo("0");
    for (String bad : new String[] {"-1", "1.5", "soon", "86401"}) {
      vm.pauseTimeoutProperty().set(bad);
      assertThat(vm.pauseTimeoutErrorProperty().get()).as(bad).startsWith("Pause timeout: whole seconds");
      assertThat(vm.settings()).isNull();
    }
    vm.pauseTimeoutProperty().set("");
    assertThat(vm.settings().pauseTimeoutSeconds()).isZero();
    vm.pauseTimeoutProperty().set("86400");
    assertThat(vm.settings().pauseTimeoutSeconds()).isEqualTo(86_400);
  }

  @Test
  void warnsWhileTlsVerificationIsOffOrTheProxyIsReachableFromOutside() {
    SettingsViewModel vm = vm();
    assertThat(vm.warningProperty().get()).isEmpty();
    vm.verifyUpstreamTlsProperty().set(false);
    assertThat(vm.warningProperty().get()).contains("Upstream TLS verification is OFF");
    vm.listenProperty().set("0.0.0.0:8080");
    assertThat(vm.warningProperty().get()).contains("anyone who can reach this machine");
    assertThat(vm.validate()).as("a warning, not an error").isTrue();
  }

  @Test
  void saveWritesTheFileOwnerOnlyAppliesAndLoadsBack() throws IOException {
    SettingsViewModel vm = vm();
    vm.listenProperty().set(" 127.0.0.1:9123 ");
    vm.ignoreHostsProperty().set("(^|\\.)bank\\.example$\n\n  internal\\.corp  \n");
    vm.upstreamProxyProperty().set(" http://proxy.corp:3128 ");
    vm.bodyCapProperty().set("4MiB");
    vm.verifyUpstreamTlsProperty().set(false);
    vm.themeProperty().set(Settings.Theme.DARK);
    vm.pauseTimeoutProperty().set(" 45 ");
    assertThat(vm.save()).isTrue();
    assertThat(vm.resultProperty().get()).isEqualTo("Saved. The proxy listens on 127.0.0.1:9123.");
    assertThat(vm.listeningProperty().get()).isEqualTo("127.0.0.1:9123");

    Settings expected = new Settings("127.0.0.1:9123", List.of("(^|\\.)bank\\.example$", "internal\\.corp"),
        "http://proxy.corp:3128", "4MiB", false,
        Settings.Theme.DARK, 45);
    assertThat(applied).containsExactly(expected);
    assertThat(new SettingsFile(confdir).load()).isEqualTo(expected);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(confdir.resolve(SettingsFile.NAME))))
        .isEqualTo("rw-------");
  }

  @Test
  void applyFailureIsReportedButTheFileIsSaved() throws IOException {
    SettingsViewModel vm = new SettingsViewModel(new SettingsFile(confdir), Settings.DEFAULTS, s -> {
      throw new java.net.BindException("Address already in use");
    });
    vm.listenProperty().set("127.0.0.1:1");
    assertThat(vm.save()).isFalse();
    assertThat(vm.resultProperty().get()).isEqualTo("Saved, but could not apply: Address already in use");
    assertThat(new SettingsFile(confdir).load().listen()).isEqualTo("127.0.0.1:1");
  }

  @Test
  void missingFileGivesDefaultsAndABrokenOneIsAnErrorNamingIt() throws IOException {
    assertThat(new SettingsFile(confdir).load()).isEqualTo(Settings.DEFAULTS);
    Files.writeString(confdir.resolve(SettingsFile.NAME), "{\"listen\": ");
    assertThatThrownBy(() -> new SettingsFile(confdir).load()).isInstanceOf(IOException.class)
        .hasMessageContaining(SettingsFile.NAME).hasMessageContaining("not valid JSON");
    Files.writeString(confdir.resolve(SettingsFile.NAME), "{\"theme\": \"purple\"}");
    assertThatThrownBy(() -> new SettingsFile(confdir).load()).hasMessageContaining("theme must be light or dark");
  }
}
