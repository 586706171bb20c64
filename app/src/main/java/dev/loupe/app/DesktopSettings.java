package dev.loupe.app;

import dev.loupe.app.sysproxy.SystemProxyService;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.util.ByteSizes;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.settings.SettingsFile;
import dev.loupe.ui.settings.SettingsViewModel;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import picocli.CommandLine.ParseResult;

/**
 * The desktop window's saved settings ({@code settings.json}) meet the command line: options given
 * explicitly win, the saved settings fill in the rest; and saving new settings restarts the proxy
 * on them. Headless runs do not read the file (scripts get exactly what they ask for).
 */
final class DesktopSettings {
  private DesktopSettings() {}

  /** The saved settings; an unreadable file is reported and left alone (defaults are used). */
  static Settings load(Path confdir, PrintStream out) {
    SettingsFile file = new SettingsFile(confdir);
    try {
      return file.load();
    } catch (IOException e) {
      out.println("Loupe: ignoring the saved settings (" + e.getMessage() + "); using defaults."
          + " The file is left as it is until you save settings again.");
      return Settings.DEFAULTS;
    }
  }

  /** Copies the saved settings into {@code cmd} where the user gave no option. */
  static void merge(Settings s, LoupeCommand cmd, ParseResult given) {
    if (!given.hasMatchedOption("--listen")) {
      cmd.listen = s.listen();
      if (!ListenAddress.parse(s.listen()).getAddress().isLoopbackAddress()) {
        cmd.allowRemote = true; // chosen in the settings dialog, which warned about it
      }
    }
    if (!given.hasMatchedOption("--ignore-hosts")) {
      cmd.ignoreHosts = new ArrayList<>(s.ignoreHosts());
    }
    if (!given.hasMatchedOption("--upstream-proxy")) {
      cmd.upstreamProxy = s.upstreamProxy().isEmpty() ? null : s.upstreamProxy();
    }
    if (!given.hasMatchedOption("--body-cap")) {
      cmd.bodyCap = s.bodyCap();
    }
    if (!given.hasMatchedOption("--insecure")) {
      cmd.insecure = !s.verifyUpstreamTls();
    }
    if (!given.hasMatchedOption("--pause-timeout")) {
      cmd.pauseTimeoutSeconds = s.pauseTimeoutSeconds();
    }
  }

  /** The settings as they apply now, for the dialog to start from. */
  static Settings current(Settings saved, LoupeCommand cmd, String listening) {
    return new Settings(listening, cmd.ignoreHosts, cmd.upstreamProxy == null ? "" : cmd.upstreamProxy, cmd.bodyCap,
        !cmd.insecure, saved.theme(), (int) Math.min(cmd.pauseTimeoutSeconds, Settings.MAX_PAUSE_TIMEOUT_SECONDS));
  }

  /**
   * Restarts the proxy on {@code engines} when the proxy's part of the settings changed, and
   * points the system proxy at the new address when Loupe had it switched.
   */
  static SettingsViewModel.Applier applier(EngineSwitch engines, SystemProxyService sysProxy) {
    return s -> {
      // Not the proxy's configuration: the rules and pauses outlive engine restarts.
      engines.current().intercept().pauseTimeout(java.time.Duration.ofSeconds(s.pauseTimeoutSeconds()));
      EngineConfig old = engines.config();
      CapturePolicy capture = old.capture();
      EngineConfig next = old.toBuilder()
          .listen(ListenAddress.parse(s.listen()))
          .ignoreHosts(LoupeCommand.ignorePattern(s.ignoreHosts()))
          .capture(new CapturePolicy((int) ByteSizes.parse(s.bodyCap()), capture.spill(), capture.spillDir()))
          .insecure(!s.verifyUpstreamTls())
          .upstreamProxy(s.upstreamProxy().isEmpty() ? null : EngineConfig.UpstreamProxy.parse(s.upstreamProxy()))
          .build();
      boolean same = next.listen().equals(old.listen())
          && String.valueOf(next.ignoreHosts()).equals(String.valueOf(old.ignoreHosts()))
          && next.capture().equals(old.capture()) && next.insecure() == old.insecure()
          && java.util.Objects.equals(next.upstreamProxy(), old.upstreamProxy());
      if (same) {
        return dev.loupe.app.connect.ConnectService.listeningText(engines.current().address(),
            engines.config().proxyAuth());
      }
      InetSocketAddress now = engines.restart(next).address();
      if (sysProxy != null) {
        boolean wasOn = sysProxy.isEnabled();
        if (wasOn) {
          sysProxy.disable();
        }
        sysProxy.listening(now, wasOn);
      }
      return dev.loupe.app.connect.ConnectService.listeningText(now, engines.config().proxyAuth());
    };
  }
}
