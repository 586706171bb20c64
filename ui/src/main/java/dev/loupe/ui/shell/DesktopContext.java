package dev.loupe.ui.shell;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.plugins.PluginControl;
import dev.loupe.ui.session.SessionManager;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.settings.SettingsViewModel;
import dev.loupe.ui.status.ActivityFeed;
import dev.loupe.ui.sysproxy.SystemProxyControl;
import dev.loupe.ui.trust.TrustPort;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What the desktop window needs from the app that starts it: the flows, where the proxy listens,
 * the configuration directory (settings and layout live there), the settings in force, and how to
 * apply changed settings to the running proxy.
 *
 * @param applier     applies saved settings; returns the address the proxy then listens on
 * @param systemProxy switches the OS proxy to Loupe and back (its {@code unsupportedReason} says
 *                    when it cannot, e.g. in reverse mode)
 * @param trust       the CA trust dialog's port
 * @param intercept   rules, breakpoints and paused flows (shared with the engine and the control API)
 * @param replayer    sends replayed and composed requests through the running proxy's server leg
 * @param agentActivity calls made by AI agents through Loupe's MCP server, for the status bar
 * @param connect     browser and terminal launchers, remote access (the toolbar's connect controls)
 * @param plugins     the session's plugins (the Plugins window, the detail pane's content views)
 * @param sessions    the session files the window records into (File menu, autosave), or null to keep
 *                    flows in memory only
 */
public record DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
    SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
    InterceptService intercept, Replayer replayer, ActivityFeed agentActivity,
    dev.loupe.ui.connect.ConnectPort connect, PluginControl plugins, SessionManager sessions) {
  /** Without agent activity (no MCP server), the connect controls (shown as unavailable) and plugins. */
  public DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
      SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
      InterceptService intercept, Replayer replayer) {
    this(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer, ActivityFeed.NONE);
  }

  /** Without the connect controls (shown as unavailable) and without plugins. */
  public DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
      SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
      InterceptService intercept, Replayer replayer, ActivityFeed agentActivity) {
    this(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer, agentActivity,
        dev.loupe.ui.connect.ConnectPort.unsupported("not wired in this window"), PluginControl.NONE, null);
  }

  /** Without plugins and session files. */
  public DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
      SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
      InterceptService intercept, Replayer replayer, ActivityFeed agentActivity,
      dev.loupe.ui.connect.ConnectPort connect) {
    this(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer, agentActivity,
        connect, PluginControl.NONE, null);
  }

  /** Without the connect controls (shown as unavailable) and session files. */
  public DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
      SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
      InterceptService intercept, Replayer replayer, ActivityFeed agentActivity, PluginControl plugins) {
    this(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer, agentActivity,
        dev.loupe.ui.connect.ConnectPort.unsupported("not wired in this window"), plugins, null);
  }

  /** Without the connect controls and plugins, recording into {@code sessions}. */
  public DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
      SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
      InterceptService intercept, Replayer replayer, ActivityFeed agentActivity, SessionManager sessions) {
    this(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer, agentActivity,
        dev.loupe.ui.connect.ConnectPort.unsupported("not wired in this window"), PluginControl.NONE, sessions);
  }

  /** Without session files. */
  public DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
      SettingsViewModel.Applier applier, SystemProxyControl systemProxy, TrustPort trust,
      InterceptService intercept, Replayer replayer, ActivityFeed agentActivity,
      dev.loupe.ui.connect.ConnectPort connect, PluginControl plugins) {
    this(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer, agentActivity,
        connect, plugins, null);
  }

  /** The same context recording into {@code manager}'s sessions. */
  public DesktopContext withSessions(SessionManager manager) {
    return new DesktopContext(store, listening, confdir, settings, applier, systemProxy, trust, intercept, replayer,
        agentActivity, connect, plugins, manager);
  }

  public DesktopContext {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(listening, "listening");
    Objects.requireNonNull(confdir, "confdir");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(applier, "applier");
    Objects.requireNonNull(systemProxy, "systemProxy");
    Objects.requireNonNull(trust, "trust");
    Objects.requireNonNull(intercept, "intercept");
    Objects.requireNonNull(replayer, "replayer");
    Objects.requireNonNull(agentActivity, "agentActivity");
    Objects.requireNonNull(connect, "connect");
    Objects.requireNonNull(plugins, "plugins");
  }
}
