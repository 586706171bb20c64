package dev.loupe.ui.plugins;

import dev.loupe.engine.api.plugin.Plugins.PluginInfo;

/**
 * One row of the Plugins window, made from a {@link PluginInfo}.
 *
 * @param hooks      the hooks it implements, comma-separated
 * @param tier       "changes flows matching F" or "observes" (what it costs: full tier or none)
 * @param lastError  the last failure or problem, or empty
 * @param reloadable whether Reload applies (a jar or a script)
 */
public record PluginRow(long id, String name, String version, String source, String hooks, boolean enabled,
    String tier, String lastError, long errors, boolean reloadable) {

  static PluginRow of(PluginInfo i, boolean reloadable) {
    return new PluginRow(i.id(), i.name(), i.version(), i.source(),
        i.hooks().isEmpty() ? "—" : String.join(", ", i.hooks()), i.enabled(),
        i.interceptFilter() == null ? "observes" : "changes flows matching " + i.interceptFilter(),
        i.lastError() == null ? "" : i.lastError(), i.errors(), reloadable);
  }
}
