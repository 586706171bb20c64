package dev.loupe.app.sysproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A private GNOME settings store: HOME, XDG_CONFIG_HOME (where dconf keeps {@code dconf/user}),
 * XDG_CACHE_HOME and XDG_RUNTIME_DIR all point into a temporary directory, GSETTINGS_BACKEND is
 * dconf, and every command runs inside its own {@code dbus-run-session}, so nothing here can
 * reach the real user's settings. Separate sessions share the store through the dconf file.
 */
final class IsolatedGsettings {
  private final Map<String, String> env = new HashMap<>();
  private final ProcessCommandRunner runner;

  /** Skips the calling test (JUnit assumption) when dbus-run-session or gsettings is missing. */
  static void assumeAvailable() {
    String path = System.getenv("PATH");
    assumeTrue(Backends.onPath("dbus-run-session", path),
        "dbus-run-session is not installed (Debian: apt-get install dbus-bin dbus)");
    assumeTrue(Backends.onPath("gsettings", path),
        "gsettings is not installed (Debian: apt-get install libglib2.0-bin dconf-gsettings-backend"
            + " dconf-service gsettings-desktop-schemas)");
  }

  IsolatedGsettings(Path root) throws IOException {
    Path home = Files.createDirectories(root.resolve("home"));
    Path config = Files.createDirectories(root.resolve("config"));
    Path cache = Files.createDirectories(root.resolve("cache"));
    Path runtime = Files.createDirectories(root.resolve("runtime"));
    Files.setPosixFilePermissions(runtime, PosixFilePermissions.fromString("rwx------"));
    env.put("HOME", home.toString());
    env.put("XDG_CONFIG_HOME", config.toString());
    env.put("XDG_CACHE_HOME", cache.toString());
    env.put("XDG_RUNTIME_DIR", runtime.toString());
    env.put("GSETTINGS_BACKEND", "dconf");
    for (String unset : List.of("DBUS_SESSION_BUS_ADDRESS", "XDG_CURRENT_DESKTOP", "KDE_SESSION_VERSION", "DISPLAY",
        "WAYLAND_DISPLAY", "JAVA_TOOL_OPTIONS")) {
      env.put(unset, null);
    }
    runner = new ProcessCommandRunner(env, List.of("dbus-run-session", "--"), Duration.ofSeconds(30));
  }

  /** Runs commands in a fresh dbus-run-session with the isolated environment. */
  CommandRunner runner() {
    return runner;
  }

  String get(String schema, String key) throws SystemProxyException {
    return runner.check(List.of("gsettings", "get", schema, key)).stdout().strip();
  }

  void set(String schema, String key, String gvariant) throws SystemProxyException {
    runner.check(List.of("gsettings", "set", schema, key, gvariant));
  }

  /** Every key of org.gnome.system.proxy and its children, as gsettings prints them. */
  String listAll() throws SystemProxyException {
    return runner.check(List.of("gsettings", "list-recursively", "org.gnome.system.proxy")).stdout();
  }

  /** {@code dbus-run-session -- java -cp <this class path> dev.loupe.app.Main args} in the isolated environment. */
  Loupe startLoupe(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("dbus-run-session", "--",
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), "dev.loupe.app.Main"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    env.forEach((k, v) -> {
      if (v == null) {
        pb.environment().remove(k);
      } else {
        pb.environment().put(k, v);
      }
    });
    return new Loupe(pb.start());
  }

  /** A Loupe JVM under dbus-run-session; stdout and stderr collected line by line. */
  static final class Loupe implements AutoCloseable {
    final Process session;
    final List<String> stdout = new CopyOnWriteArrayList<>();
    final List<String> stderr = new CopyOnWriteArrayList<>();
    private final Thread outPump;
    private final Thread errPump;

    Loupe(Process session) {
      this.session = session;
      outPump = pump(session.getInputStream(), stdout);
      errPump = pump(session.getErrorStream(), stderr);
    }

    private static Thread pump(java.io.InputStream in, List<String> sink) {
      Thread t = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            sink.add(line);
          }
        } catch (IOException ignored) {
          // the process is gone
        }
      }, "loupe-output");
      t.setDaemon(true);
      t.start();
      return t;
    }

    /** The Loupe JVM itself (dbus-run-session's child), not dbus-run-session. */
    ProcessHandle java() {
      return session.toHandle().children()
          .filter(h -> h.info().command().map(c -> c.endsWith("/java")).orElse(false))
          .findFirst().orElseThrow(() -> new AssertionError("no java child of dbus-run-session yet"));
    }

    String output() {
      return "stdout:\n" + String.join("\n", stdout) + "\nstderr:\n" + String.join("\n", stderr);
    }

    boolean printed(String fragment) {
      return stdout.stream().anyMatch(l -> l.contains(fragment));
    }

    /** Waits for the session to end and for its output to be read; returns its exit status. */
    int awaitExit(Duration timeout) throws InterruptedException {
      assertThat(session.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)).as("exited\n%s", output()).isTrue();
      outPump.join(5000);
      errPump.join(5000);
      return session.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
      if (session.isAlive()) {
        session.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        session.destroyForcibly();
        session.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
