/**
 * The session's plugins as the app loads them and the window and control API list and switch them
 * ({@link dev.loupe.engine.api.plugin.Plugins}). Plugins themselves are written against {@code
 * dev.loupe.spi}; the host that runs them is internal ({@code internal.intercept.PluginHost}).
 */
package dev.loupe.engine.api.plugin;
