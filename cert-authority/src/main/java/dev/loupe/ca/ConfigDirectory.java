package dev.loupe.ca;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Where Loupe keeps its per-user configuration, including the CA files.
 *
 * <ul>
 *   <li>Linux and other Unix: {@code $XDG_CONFIG_HOME/loupe}, or {@code ~/.config/loupe} when the
 *       variable is unset, empty or relative (the <a
 *       href="https://specifications.freedesktop.org/basedir-spec/latest/">XDG base directory
 *       spec</a> says relative values are to be ignored);
 *   <li>macOS: {@code ~/Library/Application Support/Loupe};
 *   <li>Windows: {@code %APPDATA%\Loupe}, or {@code ~\AppData\Roaming\Loupe} without {@code APPDATA}.
 * </ul>
 *
 * <p>Only computes paths; never creates anything. Stateless and thread-safe.
 */
public final class ConfigDirectory {
  private ConfigDirectory() {}

  /** The default configuration directory for the running OS and user. */
  public static Path defaultDirectory() {
    return defaultDirectory(
        System.getProperty("os.name", ""), System.getenv(), Path.of(System.getProperty("user.home")));
  }

  /**
   * The default configuration directory for the given OS name (as in the {@code os.name} system
   * property), environment and home directory. Exposed for tests.
   */
  static Path defaultDirectory(String osName, Map<String, String> env, Path userHome) {
    requireNonNull(osName, "osName");
    requireNonNull(env, "env");
    requireNonNull(userHome, "userHome");
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("windows")) {
      String appData = env.get("APPDATA");
      if (appData != null && !appData.isBlank()) {
        // Path.of, not userHome.getFileSystem(): on the real OS they are the same file system.
        return Path.of(appData).resolve("Loupe");
      }
      return userHome.resolve("AppData").resolve("Roaming").resolve("Loupe");
    }
    if (os.startsWith("mac") || os.contains("darwin")) {
      return userHome.resolve("Library").resolve("Application Support").resolve("Loupe");
    }
    String xdg = env.get("XDG_CONFIG_HOME");
    if (xdg != null && !xdg.isBlank() && xdg.startsWith("/")) {
      return Path.of(xdg).resolve("loupe");
    }
    return userHome.resolve(".config").resolve("loupe");
  }
}
