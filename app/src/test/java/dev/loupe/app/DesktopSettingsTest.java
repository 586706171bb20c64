package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.ui.settings.Settings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The window's saved settings against the command line, and "Save" restarting the real proxy. */
@Timeout(60)
class DesktopSettingsTest {
  @TempDir Path confdir;

  @Test
  void optionsGivenOnTheCommandLineWinOverSavedSettings() {
    Settings saved = new Settings("127.0.0.1:9555", List.of("bank\\.example"), "http://proxy.corp:3128", "8MiB", false,
        Settings.Theme.DARK);
    LoupeCommand cmd = new LoupeCommand();
    CommandLine cli = new CommandLine(cmd);
    CommandLine.ParseResult given = cli.parseArgs("--listen", "127.0.0.1:7000", "--body-cap", "2MiB");
    DesktopSettings.merge(saved, cmd, given);
    assertThat(cmd.listen).isEqualTo("127.0.0.1:7000");
    assertThat(cmd.bodyCap).isEqualTo("2MiB");
    assertThat(cmd.ignoreHosts).containsExactly("bank\\.example");
    assertThat(cmd.insecure).isTrue();
    assertThat(cmd.upstreamProxy).isEqualTo("http://proxy.corp:3128");
  }

  @Test
  void anUnreadableSettingsFileIsReportedAndLeftAlone() throws Exception {
    Path file = confdir.resolve("settings.json");
    Files.writeString(file, "{ broken");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Settings s = DesktopSettings.load(confdir, new PrintStream(out, true, StandardCharsets.UTF_8));
    assertThat(s).isEqualTo(Settings.DEFAULTS);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("ignoring the saved settings").contains("settings.json");
    assertThat(Files.readString(file)).isEqualTo("{ broken");
  }

  @Test
  void applyingANewListenAddressMovesTheRunningProxy() throws Exception {
    RecordingStore store = new RecordingStore();
    EngineConfig config = EngineConfig.builder(host -> {
      throw new IllegalStateException("no TLS in this test");
    }).listen(new InetSocketAddress("127.0.0.1", 0)).build();
    ProxyEngine first = ProxyEngine.start(config, store);
    EngineSwitch engines = new EngineSwitch(first, config, store);
    int oldPort = first.address().getPort();
    int newPort;
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      newPort = probe.getLocalPort();
    }
    try {
      String now = DesktopSettings.applier(engines, null).apply(
          new Settings("127.0.0.1:" + newPort, List.of("internal\\.corp"), "", "2MiB", true, Settings.Theme.LIGHT, 30));
      assertThat(now).isEqualTo("127.0.0.1:" + newPort);
      assertThat(engines.current()).isNotSameAs(first);
      // The rules, breakpoints and pause timeout are the same service across the restart.
      assertThat(engines.current().intercept()).isSameAs(first.intercept());
      assertThat(engines.current().intercept().pauseTimeout()).isEqualTo(java.time.Duration.ofSeconds(30));
      assertThat(engines.config().ignoreHosts().pattern()).isEqualTo("(?:internal\\.corp)");
      assertThat(engines.config().capture().memoryCap()).isEqualTo(2 << 20);
      new Socket("127.0.0.1", newPort).close(); // the new proxy accepts
      assertThatThrownBy(() -> new Socket("127.0.0.1", oldPort).close()).isInstanceOf(ConnectException.class);

      // A port someone else holds: the error is reported and the proxy keeps running where it was.
      try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        assertThatThrownBy(() -> DesktopSettings.applier(engines, null).apply(
            new Settings("127.0.0.1:" + taken.getLocalPort(), List.of(), "", "2MiB", true, Settings.Theme.LIGHT)))
            .isInstanceOf(java.io.IOException.class);
      }
      assertThat(engines.current().address().getPort()).isEqualTo(newPort);
      new Socket("127.0.0.1", newPort).close();
    } finally {
      engines.current().close();
    }
  }
}
