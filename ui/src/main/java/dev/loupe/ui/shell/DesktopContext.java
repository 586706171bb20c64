package dev.loupe.ui.shell;

import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.settings.SettingsViewModel;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What the desktop window needs from the app that starts it: the flows, where the proxy listens,
 * the configuration directory (settings and layout live there), the settings in force, and how to
 * apply changed settings to the running proxy.
 *
 * @param applier applies saved settings; returns a line for the user (e.g. the new address)
 */
public record DesktopContext(FlowStore store, String listening, Path confdir, Settings settings,
    SettingsViewModel.Applier applier) {
  public DesktopContext {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(listening, "listening");
    Objects.requireNonNull(confdir, "confdir");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(applier, "applier");
  }
}
