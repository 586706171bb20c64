package dev.loupe.app;

import dev.loupe.app.connect.ClientListeners;
import dev.loupe.app.connect.ConnectService;
import dev.loupe.app.mcp.McpActivity;
import dev.loupe.app.trust.CaTrustPort;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.ui.session.SessionManager;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.shell.DesktopContext;

/**
 * {@code loupe} without {@code --headless}: what the window changes before the proxy starts (the
 * renderer, its saved settings), and the window itself over a started {@link ProxyRun}. Runs on the
 * thread running the command, which the window blocks until the user closes it.
 */
final class WindowRun {
  private WindowRun() {}

  /**
   * Before anything starts: the renderer, and the window's saved settings filling in the options not given
   * on the command line. Returns the saved settings.
   */
  static Settings beforeStart(LoupeCommand c) {
    // No GPU: JavaFX's own renderer and no Mesa. Sets an environment variable, so first, while no thread of
    // Loupe's runs yet (setenv is not safe next to threads reading the environment); before GTK starts.
    SoftwareRendering.applyIfWanted();
    java.nio.file.Path dir = c.confdir != null ? c.confdir : ConfigDirectory.defaultDirectory();
    Settings saved = DesktopSettings.load(dir, System.out);
    DesktopSettings.merge(saved, c, c.spec.commandLine().getParseResult());
    AccessOptions.applySavedRemoteAccess(c, dir, c.spec.commandLine().getParseResult().hasMatchedOption("--listen"),
        System.out);
    return saved;
  }

  /**
   * Shows the window over {@code run} and returns when the user closed it (null), or returns why it cannot
   * open here (no display, or the toolkit failed to start) without showing it.
   */
  static String showAndWait(ProxyRun run, Settings saved) {
    String noDisplay = DesktopWindow.whyNot();
    if (noDisplay != null) {
      return noDisplay;
    }
    run.pluginLoader.rememberSwitches(); // the window's switches persist, as its other settings do
    SessionManager sessions = DesktopWindow.sessions(run.dir, run.store, run.sessionFiles, run.out);
    if (sessions == null) {
      return null; // the JVM is shutting down (a SIGTERM while the window started): the session is closed
    }
    try {
      EngineSwitch engines = run.engines;
      String listening = ConnectService.listeningText(engines.current().address(), run.access.auth());
      ConnectService connect = new ConnectService(engines::current, engines::config, engines::restart,
          run.running != null ? run.running.clients() : new ClientListeners(engines::current), run.dir, run.ca);
      if (!ShutdownHooks.add(connect::close, "loupe-launched-browsers")) {
        return null; // shutting down: the sessions' own hook closes them
      }
      IdleCompaction compaction = IdleCompaction.start(); // the window is a desktop app: idle most of its life
      try {
        DesktopWindow.showAndWait(sessions, new DesktopContext(run.store, listening, run.dir,
            DesktopSettings.current(saved, run.command, listening), DesktopSettings.applier(engines, run.sysProxy),
            run.options.reverse() == null ? run.sysProxy.control()
                : DesktopWindow.unsupported(run.sysProxy.control(),
                    "Loupe runs in reverse mode; the system proxy is for regular mode"),
            CaTrustPort.forThisMachine(run.ca), run.intercept, engines.replayer(), new McpActivity(run.dir), connect,
            run.pluginLoader.windowControl()));
      } finally {
        compaction.stop();
      }
      connect.close(); // the browsers started from the window go with it (their profiles deleted)
      run.intercept.releaseAll(); // the user left: nothing stays paused while the proxy shuts down
      run.sysProxy.restoreOnExit();
      return null; // the window was closed: exiting runs the session's shutdown (HAR, proxy)
    } catch (RuntimeException | LinkageError e) {
      String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      DesktopWindow.close(sessions);
      return why;
    }
  }
}
