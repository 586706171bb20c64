package dev.loupe.app.connect;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Finds the Chromium-family browsers (Chromium, Chrome, Edge, Brave) and Firefox installed here:
 * on Linux by their commands on the {@code PATH}, on macOS in {@code /Applications}, on Windows in
 * the program files folders. A browser reachable under two names (Debian's {@code firefox} and
 * {@code firefox-esr}) is listed once.
 *
 * <p>Stateless; looks again on every call (a browser installed meanwhile shows up).
 */
public final class Browsers {
  private record Candidate(String id, String name, Browser.Family family, List<String> linux, String mac,
      List<String> windows) {}

  private static final List<Candidate> CANDIDATES = List.of(
      new Candidate("chromium", "Chromium", Browser.Family.CHROMIUM, List.of("chromium", "chromium-browser"),
          "Chromium.app/Contents/MacOS/Chromium", List.of("Chromium\\Application\\chrome.exe")),
      new Candidate("chrome", "Google Chrome", Browser.Family.CHROMIUM, List.of("google-chrome", "google-chrome-stable"),
          "Google Chrome.app/Contents/MacOS/Google Chrome", List.of("Google\\Chrome\\Application\\chrome.exe")),
      new Candidate("edge", "Microsoft Edge", Browser.Family.CHROMIUM,
          List.of("microsoft-edge", "microsoft-edge-stable"), "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
          List.of("Microsoft\\Edge\\Application\\msedge.exe")),
      new Candidate("brave", "Brave", Browser.Family.CHROMIUM, List.of("brave-browser", "brave"),
          "Brave Browser.app/Contents/MacOS/Brave Browser",
          List.of("BraveSoftware\\Brave-Browser\\Application\\brave.exe")),
      new Candidate("firefox", "Firefox", Browser.Family.FIREFOX, List.of("firefox", "firefox-esr"),
          "Firefox.app/Contents/MacOS/firefox", List.of("Mozilla Firefox\\firefox.exe")));

  private Browsers() {}

  /** The browsers installed on this machine, in a fixed order (Chromium family first). */
  public static List<Browser> installed() {
    return find(System.getProperty("os.name", ""), System.getenv(), Files::isExecutable);
  }

  /** {@link #installed()} for a given OS name, environment and file check (tests). */
  static List<Browser> find(String osName, Map<String, String> env, java.util.function.Predicate<Path> executable) {
    String os = osName.toLowerCase(Locale.ROOT);
    Function<Candidate, List<Path>> places;
    if (os.contains("mac")) {
      places = c -> List.of(Path.of("/Applications", c.mac()),
          Path.of(env.getOrDefault("HOME", "/"), "Applications", c.mac()));
    } else if (os.contains("win")) {
      List<String> roots = new ArrayList<>();
      for (String var : List.of("ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA")) {
        if (env.get(var) != null) {
          roots.add(env.get(var));
        }
      }
      places = c -> c.windows().stream().flatMap(rel -> roots.stream().map(r -> Path.of(r, rel))).toList();
    } else {
      List<String> path = List.of(env.getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin").split(":"));
      places = c -> c.linux().stream().flatMap(cmd -> path.stream().filter(d -> !d.isEmpty())
          .map(d -> Path.of(d, cmd))).toList();
    }
    List<Browser> found = new ArrayList<>();
    Set<Path> seen = new HashSet<>();
    for (Candidate c : CANDIDATES) {
      for (Path p : places.apply(c)) {
        if (executable.test(p)) {
          if (seen.add(realPath(p))) {
            found.add(new Browser(c.id(), c.name(), c.family(), p));
          }
          break;
        }
      }
    }
    return found;
  }

  /** The first installed browser with this {@code id} or family name ({@code chromium} picks any of that family). */
  public static Browser pick(List<Browser> installed, String which) {
    String w = which.toLowerCase(Locale.ROOT);
    for (Browser b : installed) {
      if (b.id().equals(w)) {
        return b;
      }
    }
    for (Browser b : installed) {
      if (b.family().name().toLowerCase(Locale.ROOT).equals(w)) {
        return b;
      }
    }
    return null;
  }

  private static Path realPath(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p.toAbsolutePath();
    }
  }
}
