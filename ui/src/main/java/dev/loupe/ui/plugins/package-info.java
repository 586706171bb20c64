/**
 * The Plugins window: the session's plugins listed live with their switch, errors and Reload
 * ({@link dev.loupe.ui.plugins.PluginsWindow}, its model {@link dev.loupe.ui.plugins.PluginsViewModel})
 * behind the {@link dev.loupe.ui.plugins.PluginControl} port the app implements.
 */
package dev.loupe.ui.plugins;
