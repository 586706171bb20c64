package dev.loupe.app;

import dev.loupe.app.connect.RunningFile;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.ui.settings.Settings;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * Which Loupe {@code loupe env} and {@code loupe browser} set clients up for: the one given by
 * {@code --proxy}, else the running one ({@code running.json}), else the one the window's settings
 * configure, else the default {@code 127.0.0.1:8080}.
 *
 * @param proxy    its address for clients on this machine
 * @param username proxy user when local clients must authenticate, else null
 * @param password its password, or null
 * @param source   where this came from, for messages
 * @param running  the running Loupe's record when the target is that Loupe (where {@code loupe browser}
 *                 asks for a listener of its own), else null
 */
record ClientTarget(InetSocketAddress proxy, String username, String password, String source, RunningFile running) {
  static ClientTarget resolve(Path confdir, String proxyOption) {
    Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
    RunningFile running = RunningFile.read(dir);
    if (proxyOption != null) {
      InetSocketAddress given;
      try {
        given = RunningFile.local(ListenAddress.parse(proxyOption));
      } catch (IllegalArgumentException e) {
        throw new LoupeCommand.UsageError("--proxy: " + e.getMessage());
      }
      return new ClientTarget(given, null, null, "--proxy",
          running != null && running.proxy().equals(given) ? running : null);
    }
    if (running != null) {
      return new ClientTarget(running.proxy(), running.username(), running.password(),
          "the running Loupe (pid " + running.pid() + ")", running);
    }
    Settings s = DesktopSettings.load(dir, new PrintStream(PrintStream.nullOutputStream()));
    try {
      return new ClientTarget(RunningFile.local(ListenAddress.parse(s.listen())), null, null, "the saved settings",
          null);
    } catch (IllegalArgumentException e) {
      return new ClientTarget(RunningFile.local(ListenAddress.parse(Settings.DEFAULTS.listen())), null, null,
          "the default", null);
    }
  }
}
