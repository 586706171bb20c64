package dev.loupe.app;

import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.session.SessionManager;
import dev.loupe.ui.shell.DesktopApp;
import dev.loupe.ui.shell.DesktopContext;
import dev.loupe.ui.sysproxy.SystemProxyControl;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;

/** Opens the desktop window when this machine has a display. */
final class DesktopWindow {
  private DesktopWindow() {}

  /** Why no window can open here (no display on Linux), or null when one can. */
  static String whyNot() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.contains("linux") && System.getenv("DISPLAY") == null && System.getenv("WAYLAND_DISPLAY") == null) {
      return "no display: DISPLAY and WAYLAND_DISPLAY are unset; use --headless on servers";
    }
    return null;
  }

  /**
   * The window's session files: the one asked for ({@code loupe FILE.loupe}, {@code --session}), or a
   * new untitled one; a HAR file given ({@code loupe FILE.har}) is opened into a new session. Null when the JVM
   * is already shutting down (a SIGTERM while Loupe starts): the session was opened and is closed again.
   *
   * @throws IllegalStateException with the reason when a file given cannot be opened
   */
  static SessionManager sessions(Path confdir, FlowStore store, SessionOptions options, PrintStream out) {
    try {
      SessionManager sessions = new SessionManager(confdir, store, Path.of(System.getProperty("java.io.tmpdir")));
      sessions.start(options.record());
      out.println("Recording into " + sessions.current().file());
      if (options.har() != null) {
        ImportReport report = sessions.open(options.har());
        ConvertCommand.printProblems(report, System.err);
        out.println("Opened " + options.har() + ": " + report.imported() + " of " + report.entries() + " entries");
      }
      // SIGTERM with the window open, or while it starts: the session is still closed cleanly (idempotent)
      return ShutdownHooks.add(() -> close(sessions), "loupe-sessions-close") ? sessions : null;
    } catch (SessionException | IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** Shows the window and returns when the user closes it; then closes the sessions cleanly. */
  static void showAndWait(SessionManager sessions, DesktopContext ctx) {
    try {
      DesktopApp.showAndWait(ctx.withSessions(sessions));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      close(sessions);
    }
  }

  /** Writes what is left of the current session and closes it (the next start offers nothing back). */
  static void close(SessionManager sessions) {
    try {
      Path file = sessions.current() == null ? null : sessions.current().file();
      sessions.close();
      if (file != null) {
        System.err.println("Loupe: session saved to " + file);
      }
    } catch (SessionException e) {
      System.err.println("Loupe: " + e.getMessage());
    }
  }

  /** {@code control} reporting {@code reason} as why it cannot switch (the toolbar button is disabled). */
  static SystemProxyControl unsupported(SystemProxyControl control, String reason) {
    return new SystemProxyControl() {
      @Override public String backendName() { return control.backendName(); }
      @Override public String unsupportedReason() { return reason; }
      @Override public boolean isEnabled() { return false; }
      @Override public Result enable() { return new Result(false, reason); }
      @Override public Result disable() { return new Result(true, "The system proxy was not switched"); }
    };
  }
}
