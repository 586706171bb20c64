package dev.loupe.ui.plugins;

import dev.loupe.engine.api.plugin.Plugins.PluginInfo;
import dev.loupe.spi.ContentView;
import java.util.List;

/**
 * What the Plugins window and the detail pane need of the session's plugins: the list, the
 * content views, switching, reloading. The app implements it (switches are remembered in
 * settings.json; reloading reads the jar or script again); tests pass one over a real
 * {@code Plugins} registry.
 *
 * <p>Thread-safe. {@link #reload} blocks while it compiles or reads a jar: call it off the UI thread.
 */
public interface PluginControl {
  /** The plugins, in the order they run. */
  List<PluginInfo> list();

  /** The registered body viewers. */
  List<ContentView> contentViews();

  /** {@code onChange} runs (on any thread) whenever a plugin is added, switched, reloaded or fails. */
  AutoCloseable subscribe(Runnable onChange);

  /** Switches plugin {@code id} on or off. */
  void enabled(long id, boolean on);

  /** Whether plugin {@code id} came from a jar or a script that can be read again. */
  boolean canReload(long id);

  /** Reads plugin {@code id}'s jar or script again; null when the new version runs, else the problem. */
  String reload(long id);

  /** No plugins (a window started without them, tests of other features). */
  PluginControl NONE = new PluginControl() {
    @Override public List<PluginInfo> list() { return List.of(); }
    @Override public List<ContentView> contentViews() { return List.of(); }
    @Override public AutoCloseable subscribe(Runnable onChange) { return () -> { }; }
    @Override public void enabled(long id, boolean on) { }
    @Override public boolean canReload(long id) { return false; }
    @Override public String reload(long id) { return "no plugins in this session"; }
  };
}
