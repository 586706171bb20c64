package dev.loupe.app.sysproxy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/** Picks the {@link ProxyBackend} for an OS and desktop. Stateless. */
final class Backends {
  private Backends() {}

  /** A backend, or why there is none. Exactly one of the two is non-null. */
  record Detection(ProxyBackend backend, String unsupportedReason) {}

  /** The backend for the running OS, desktop and PATH. */
  static Detection detect(CommandRunner runner) {
    Map<String, String> env = System.getenv();
    return detect(System.getProperty("os.name", ""), env, program -> onPath(program, env.get("PATH")), runner);
  }

  /**
   * @param osName as in the {@code os.name} system property
   * @param env the environment (XDG_CURRENT_DESKTOP, KDE_SESSION_VERSION)
   * @param onPath whether a program of that name can be run
   */
  static Detection detect(String osName, Map<String, String> env, Predicate<String> onPath, CommandRunner runner) {
    String os = osName.toLowerCase(Locale.ROOT);
    if (os.startsWith("windows")) {
      return new Detection(new WindowsBackend(runner), null);
    }
    if (os.startsWith("mac") || os.contains("darwin")) {
      return new Detection(new MacBackend(runner), null);
    }
    String desktop = env.getOrDefault("XDG_CURRENT_DESKTOP", "").toUpperCase(Locale.ROOT);
    boolean kde = false;
    for (String d : desktop.split(":")) {
      kde |= d.strip().equals("KDE");
    }
    if (kde) {
      boolean has6 = onPath.test("kwriteconfig6") && onPath.test("kreadconfig6");
      boolean has5 = onPath.test("kwriteconfig5") && onPath.test("kreadconfig5");
      if (has6 && (!has5 || !"5".equals(env.get("KDE_SESSION_VERSION")))) {
        return new Detection(new KdeBackend(runner, 6), null);
      }
      if (has5) {
        return new Detection(new KdeBackend(runner, 5), null);
      }
      if (!onPath.test("gsettings")) {
        return new Detection(null, "KDE desktop, but neither kwriteconfig6/kreadconfig6 nor"
            + " kwriteconfig5/kreadconfig5 is on the PATH");
      }
    }
    if (onPath.test("gsettings")) {
      return new Detection(new GnomeBackend(runner), null);
    }
    return new Detection(null, "no proxy settings tool found: gsettings (GNOME and other GTK desktops) or"
        + " kwriteconfig5/6 (KDE) must be on the PATH");
  }

  /** The backend a state file names, so a restore undoes what that backend did. */
  static ProxyBackend byId(String id, CommandRunner runner) throws SystemProxyException {
    return switch (id) {
      case "gnome" -> new GnomeBackend(runner);
      case "kde5" -> new KdeBackend(runner, 5);
      case "kde6" -> new KdeBackend(runner, 6);
      case "macos" -> new MacBackend(runner);
      case "windows" -> new WindowsBackend(runner);
      default -> throw new SystemProxyException("unknown system proxy backend '" + id + "' in the state file");
    };
  }

  static boolean onPath(String program, String path) {
    if (path == null) {
      return false;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path p = Path.of(dir, program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return true;
      }
    }
    return false;
  }
}
