package dev.loupe.engine.api.plugin;

import dev.loupe.spi.ContentView;
import dev.loupe.spi.Plugin;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The plugins a Loupe session runs, and the content views they add. What loads plugins (the app:
 * class path, {@code CONFDIR/plugins}, {@code --plugin}, scripts) adds them here; the window and the
 * control API list and switch them. Thread-safe.
 */
public interface Plugins extends AutoCloseable {
  /**
   * Starts {@code plugin} ({@code load}, {@code configure} with {@code options}, and {@code running}
   * when the proxy is up). {@code source} says where it came from ({@code classpath}, {@code jar:PATH},
   * {@code script:PATH}). A plugin whose {@code load} or {@code configure} throws is kept, switched
   * off, with the error shown. Returns once {@code configure} has run (or the hook timeout passed),
   * so the plugin's filter applies to the next flow.
   */
  PluginHandle add(Plugin plugin, String source, Map<String, String> options);

  /** The plugins in the order they run, as they stand now. */
  List<PluginInfo> list();

  /** The handle of plugin {@code id}, or null. */
  PluginHandle get(long id);

  /** Registers a body viewer. */
  void addContentView(ContentView view, String source);

  List<ContentView> contentViews();

  /** Unregisters a body viewer (its jar or script was reloaded). */
  void removeContentView(ContentView view);

  /** How long a hook may run before the flow goes on without it (default 10 s). */
  void hookTimeout(Duration timeout);

  Duration hookTimeout();

  /** Called (on any thread) whenever a plugin is added, removed, switched, reloaded or fails. */
  AutoCloseable subscribe(Runnable onChange);

  /** Stops every plugin ({@code done}) and their threads; the app does this when Loupe quits. */
  @Override
  void close();

  /** One loaded plugin. */
  interface PluginHandle {
    PluginInfo info();

    /**
     * Switches the plugin on or off (off: its hooks are not called; its tier claim ends). A plugin
     * whose {@code configure} failed is off until it is switched on again or replaced.
     */
    void enabled(boolean on);

    /** New options: {@code configure} runs again on the plugin's thread. */
    void options(Map<String, String> options);

    /**
     * Replaces the plugin by a new version of itself (a script edited on disk): {@code done} on
     * the old one, then {@code load}, {@code configure}, {@code running} on the new one. Returns
     * once the new one is configured. The on/off switch stays as the user left it; a plugin that
     * was off because its {@code configure} failed is on again.
     */
    void replace(Plugin next);

    /** Records a problem that is not a hook's (a script that no longer compiles): shown as its last error. */
    void problem(String message);

    /** Unloads it ({@code done}). */
    void remove();
  }

  /**
   * What the Plugins window and the control API show of a plugin.
   *
   * @param hooks            the flow and lifecycle hooks it overrides
   * @param interceptFilter  the flows it may change (null: it only observes)
   * @param lastError        the last hook failure or problem, or null
   * @param errors           how many hook calls failed or timed out
   */
  record PluginInfo(long id, String name, String version, String source, List<String> hooks, boolean enabled,
      String interceptFilter, String lastError, long errors) {
    public PluginInfo {
      hooks = List.copyOf(hooks);
    }
  }
}
