package dev.loupe.ui.plugins;

import dev.loupe.engine.api.plugin.Plugins.PluginInfo;
import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.intercept.PluginHost;
import dev.loupe.spi.ContentView;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.PluginContext;
import dev.loupe.spi.RequestHook;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real {@link PluginHost} with a few plugins, behind a {@link PluginControl} that records
 * reloads (the app's reload reads jars and scripts; here a reload swaps in a new instance).
 */
final class TestPlugins implements PluginControl, AutoCloseable {
  final PluginHost host = new PluginHost(null);
  final List<String> reloads = new CopyOnWriteArrayList<>();
  final Plugins.PluginHandle tagger;
  final Plugins.PluginHandle logger;
  volatile String reloadProblem;

  static final class Tagger implements Plugin {
    final String version;

    Tagger(String version) {
      this.version = version;
    }

    @Override public String name() { return "tagger"; }
    @Override public String version() { return version; }
    @Override public String interceptFilter() { return "~d example.com"; }

    @Override
    public CompletionStage<?> request(RequestHook hook) {
      return null;
    }
  }

  static final class Logger implements Plugin {
    @Override public String name() { return "logger"; }

    @Override
    public void configure(PluginContext context) {}

    @Override
    public void done() {}
  }

  static final class Upper implements ContentView {
    @Override public String name() { return "Upper"; }
    @Override public boolean accepts(Headers headers, byte[] body) { return true; }
    @Override public View render(Headers headers, byte[] body) { return new Text("X"); }
  }

  TestPlugins() {
    tagger = host.add(new Tagger("1.0"), "script:/tmp/Tagger.java", Map.of());
    logger = host.add(new Logger(), "classpath", Map.of());
    host.addContentView(new Upper(), "classpath");
  }

  @Override public List<PluginInfo> list() { return host.list(); }
  @Override public List<ContentView> contentViews() { return host.contentViews(); }
  @Override public AutoCloseable subscribe(Runnable onChange) { return host.subscribe(onChange); }

  @Override
  public void enabled(long id, boolean on) {
    host.get(id).enabled(on);
  }

  @Override
  public boolean canReload(long id) {
    return host.get(id).info().source().startsWith("script:");
  }

  @Override
  public String reload(long id) {
    reloads.add(host.get(id).info().name());
    if (reloadProblem != null) {
      host.get(id).problem(reloadProblem);
      return reloadProblem;
    }
    host.get(id).replace(new Tagger("2.0"));
    return null;
  }

  @Override
  public void close() {
    host.close();
  }
}
