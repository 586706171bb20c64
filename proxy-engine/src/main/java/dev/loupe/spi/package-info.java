/**
 * The plugin SPI: what a Loupe plugin implements ({@link dev.loupe.spi.Plugin}, {@link
 * dev.loupe.spi.ContentView}) and the handles its hooks get ({@link dev.loupe.spi.RequestHook},
 * {@link dev.loupe.spi.ResponseHook}, {@link dev.loupe.spi.PluginContext}). Hooks are named after
 * mitmproxy's addon events so addons port over; see docs/PLUGINS.md.
 *
 * <p>Plugins compile against this package and {@code dev.loupe.engine.flow} (read it, never call its
 * setters: recording is the engine's) and {@code dev.loupe.engine.filter}; nothing else of the
 * engine is public to them.
 */
package dev.loupe.spi;
