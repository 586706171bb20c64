package dev.loupe.app.plugins;

import dev.loupe.engine.api.plugin.Plugins.PluginHandle;
import dev.loupe.engine.api.plugin.Plugins.PluginInfo;
import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.spi.ContentView;
import dev.loupe.spi.Plugin;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Finds and loads the session's plugins into {@link Plugins}, and reloads them:
 * <ul>
 *   <li>the class path: {@link ServiceLoader} for {@link Plugin} and {@link ContentView};
 *   <li>jars in {@code CONFDIR/plugins/} and {@code --plugin JAR}: each in a class loader of its own
 *       (a copy of the jar, so a jar rebuilt in place is read afresh on reload);
 *   <li>single-file scripts, {@code CONFDIR/scripts/*.java}, {@code --script} and
 *       {@code --plugin FILE.java}: see {@link ScriptPlugins}.
 * </ul>
 * Options and on/off flags come from {@link PluginConfig}. What loaded is described one line per
 * plugin ({@link #loadAll}); what failed is said on stderr, and Loupe goes on without it.
 *
 * <p>Thread-safe: loading and reloading are serialised on this object (the script watcher, the
 * window's Reload and the control API may ask at once).
 */
public final class PluginLoader implements AutoCloseable {
  private final Plugins plugins;
  private final Path confdir;
  private final PluginConfig config;
  private final PrintStream err;
  private final ScriptPlugins scripts;
  /** Whether switching a plugin on or off is remembered in settings.json (the desktop app). */
  private volatile boolean rememberSwitches;
  /** Every loaded unit by source ({@code classpath}, {@code jar:PATH}, {@code script:PATH}). */
  private final Map<String, Unit> units = new LinkedHashMap<>();

  PluginLoader(Plugins plugins, Path confdir, PluginConfig config, ScriptCompiler compiler, PrintStream out,
      PrintStream err) {
    this.plugins = plugins;
    this.confdir = confdir;
    this.config = config;
    this.err = err;
    this.scripts = new ScriptPlugins(this, compiler, out, err);
  }

  /**
   * A loader for {@code confdir}'s settings.json with the command line's {@code --set} on top.
   *
   * @throws IllegalArgumentException for a bad option (the message names it)
   */
  public static PluginLoader create(Plugins plugins, Path confdir, PluginOptions options, PrintStream out,
      PrintStream err) {
    PluginConfig config;
    try {
      config = PluginSettings.read(confdir);
    } catch (IOException e) {
      err.println("loupe: ignoring the plugin settings: " + e.getMessage());
      config = PluginConfig.EMPTY;
    }
    config = config.withAssignments(options.assignments());
    if (options.hookTimeout() != null) {
      plugins.hookTimeout(options.hookTimeout());
    }
    return new PluginLoader(plugins, confdir, config, ScriptCompiler.forThisJvm(), out, err);
  }

  /** One loaded source and what it gave; guarded by the loader. */
  static final class Unit {
    final String source;
    final Path path;
    /** Plugin handles by the plugin's class name (a reload replaces the one of the same class). */
    final Map<String, PluginHandle> handles = new LinkedHashMap<>();
    final List<ContentView> views = new ArrayList<>();
    URLClassLoader loader;

    Unit(String source, Path path) {
      this.source = source;
      this.path = path;
    }
  }

  /**
   * Loads everything asked for; returns a line per loaded plugin and content view.
   *
   * @param defaults  also the class path, {@code CONFDIR/plugins} and {@code CONFDIR/scripts}
   * @throws IllegalArgumentException when {@code --set} names a plugin that did not load, or a
   *     {@code --plugin}/{@code --script} file does not exist
   */
  public synchronized List<String> loadAll(boolean defaults, List<Path> pluginPaths, List<Path> scriptPaths) {
    for (Path p : pluginPaths) {
      if (!Files.isRegularFile(p)) {
        throw new IllegalArgumentException("--plugin: no such file: " + p);
      }
      if (!p.toString().endsWith(".jar") && !p.toString().endsWith(".java")) {
        throw new IllegalArgumentException("--plugin: expected a .jar or a .java file, got " + p);
      }
    }
    for (Path p : scriptPaths) {
      if (!Files.isRegularFile(p) || !p.toString().endsWith(".java")) {
        throw new IllegalArgumentException("--script: expected an existing .java file, got " + p);
      }
    }
    if (defaults) {
      loadClassPath();
      for (Path jar : list(confdir.resolve("plugins"), "*.jar")) {
        loadJar(jar);
      }
      scripts.watchDirectory(confdir.resolve("scripts"));
      for (Path s : list(confdir.resolve("scripts"), "*.java")) {
        scripts.load(s);
      }
    }
    for (Path p : pluginPaths) {
      if (p.toString().endsWith(".java")) {
        scripts.load(p);
      } else {
        loadJar(p);
      }
    }
    for (Path s : scriptPaths) {
      scripts.load(s);
    }
    List<String> names = plugins.list().stream().map(PluginInfo::name).toList();
    for (String n : config.namedOnCommandLine()) {
      if (!names.contains(n)) {
        throw new IllegalArgumentException("--set: no plugin named '" + n + "' is loaded"
            + (names.isEmpty() ? "" : " (loaded: " + String.join(", ", names) + ")"));
      }
    }
    List<String> lines = new ArrayList<>();
    for (Unit u : units.values()) {
      for (PluginHandle h : u.handles.values()) {
        lines.add(describe(h.info()));
      }
      for (ContentView v : u.views) {
        lines.add("Content view " + safeName(v) + " (" + u.source + ")");
      }
    }
    return lines;
  }

  /** Starts watching the scripts for changes (call once the proxy runs). */
  public void startWatching() {
    scripts.startWatching();
  }

  /** {@code Plugin NAME VERSION (SOURCE): hooks ...; changes flows matching F | observes}. */
  static String describe(PluginInfo i) {
    StringBuilder sb = new StringBuilder("Plugin ").append(i.name()).append(' ').append(i.version())
        .append(" (").append(i.source()).append("): ");
    sb.append(i.hooks().isEmpty() ? "no hooks" : "hooks " + String.join(", ", i.hooks()));
    sb.append(i.interceptFilter() != null ? "; changes flows matching " + i.interceptFilter() : "; observes");
    if (!i.enabled()) {
      sb.append("; switched off");
    }
    if (i.lastError() != null) {
      sb.append("; error: ").append(i.lastError());
    }
    return sb.toString();
  }

  // ---- class path and jars -------------------------------------------------------------------------

  private void loadClassPath() {
    Unit u = new Unit("classpath", null);
    ClassLoader cl = PluginLoader.class.getClassLoader();
    try {
      for (Plugin p : instances(ServiceLoader.load(Plugin.class, cl), null)) {
        u.handles.put(p.getClass().getName(), add(p, u.source));
      }
      for (ContentView v : instances(ServiceLoader.load(ContentView.class, cl), null)) {
        u.views.add(v);
        plugins.addContentView(v, u.source);
      }
    } catch (ServiceConfigurationError e) {
      err.println("loupe: a plugin on the class path cannot load: " + e.getMessage());
    }
    if (!u.handles.isEmpty() || !u.views.isEmpty()) {
      units.put(u.source, u);
    }
  }

  /** Loads the plugins and views of {@code jar}; a jar that cannot load is reported and skipped. */
  private void loadJar(Path jar) {
    Path abs = jar.toAbsolutePath().normalize();
    String source = "jar:" + abs;
    if (units.containsKey(source)) {
      return; // named twice (CONFDIR/plugins and --plugin)
    }
    Unit u = new Unit(source, abs);
    try {
      Loaded l = openJar(abs);
      u.loader = l.loader();
      for (Plugin p : l.plugins()) {
        u.handles.put(p.getClass().getName(), add(p, source));
      }
      for (ContentView v : l.views()) {
        u.views.add(v);
        plugins.addContentView(v, source);
      }
      units.put(source, u);
    } catch (IOException | RuntimeException | ServiceConfigurationError | LinkageError e) {
      err.println("loupe: plugin jar " + abs + " not loaded: " + message(e));
    }
  }

  private record Loaded(URLClassLoader loader, List<Plugin> plugins, List<ContentView> views) {}

  private Loaded openJar(Path jar) throws IOException {
    Path copy = Files.createTempFile("loupe-plugin-", ".jar");
    copy.toFile().deleteOnExit();
    Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    URLClassLoader cl = new URLClassLoader("plugin:" + jar.getFileName(), new URL[] {copy.toUri().toURL()},
        PluginLoader.class.getClassLoader());
    try {
      List<Plugin> ps = instances(ServiceLoader.load(Plugin.class, cl), cl);
      List<ContentView> vs = instances(ServiceLoader.load(ContentView.class, cl), cl);
      if (ps.isEmpty() && vs.isEmpty()) {
        throw new IOException("it registers no plugin: add META-INF/services/dev.loupe.spi.Plugin (or"
            + " dev.loupe.spi.ContentView) naming the class");
      }
      return new Loaded(cl, ps, vs);
    } catch (IOException | RuntimeException | ServiceConfigurationError | LinkageError e) {
      cl.close();
      throw e;
    }
  }

  /** The providers {@code loader} itself defines ({@code only}), or all when null. */
  private static <T> List<T> instances(ServiceLoader<T> sl, ClassLoader only) {
    List<T> out = new ArrayList<>();
    for (ServiceLoader.Provider<T> p : sl.stream().toList()) {
      if (only == null || p.type().getClassLoader() == only) {
        out.add(p.get());
      }
    }
    return out;
  }

  /** Adds {@code p} with its configured options and switch. */
  PluginHandle add(Plugin p, String source) {
    String name = safeName(p);
    PluginHandle h = plugins.add(p, source, config.optionsOf(name));
    if (!config.enabledOf(name)) {
      h.enabled(false);
    }
    return h;
  }

  // ---- switching and reloading (the window, the control API) --------------------------------------

  /** From now on, {@link #enabled} records each switch in settings.json (the window's runs). */
  public void rememberSwitches() {
    rememberSwitches = true;
  }

  /**
   * Switches plugin {@code id} on or off; returns its new state, or null when there is no such
   * plugin. When switches are remembered, a failure to write settings.json is reported on stderr
   * (the switch itself holds).
   */
  public synchronized PluginInfo enabled(long id, boolean on) {
    PluginHandle h = plugins.get(id);
    if (h == null) {
      return null;
    }
    h.enabled(on);
    if (rememberSwitches) {
      try {
        PluginSettings.writeEnabled(confdir, h.info().name(), on);
      } catch (IOException | RuntimeException e) {
        err.println("loupe: cannot remember the plugin switch in " + confdir.resolve(PluginSettings.FILE) + ": "
            + e.getMessage());
      }
    }
    return h.info();
  }

  /** The Plugins window's port: this loader's switching (remembered) and reloading. */
  public dev.loupe.ui.plugins.PluginControl windowControl() {
    PluginLoader loader = this;
    return new dev.loupe.ui.plugins.PluginControl() {
      @Override public List<PluginInfo> list() { return plugins.list(); }
      @Override public List<ContentView> contentViews() { return plugins.contentViews(); }
      @Override public AutoCloseable subscribe(Runnable onChange) { return plugins.subscribe(onChange); }
      @Override public void enabled(long id, boolean on) { loader.enabled(id, on); }
      @Override public boolean canReload(long id) { return loader.canReload(id); }
      @Override public String reload(long id) { return loader.reload(id); }
    };
  }

  /** The session's plugin registry. */
  public Plugins registry() {
    return plugins;
  }

  // ---- reload --------------------------------------------------------------------------------------

  /** Whether plugin {@code id} came from a jar or a script (the class path cannot be reloaded). */
  public synchronized boolean canReload(long id) {
    Unit u = unitOf(id);
    return u != null && u.path != null;
  }

  /** Reloads plugin {@code id}'s jar or script; returns null when done, else what went wrong. */
  public synchronized String reload(long id) {
    Unit u = unitOf(id);
    if (u == null) {
      return "no plugin " + id;
    }
    if (u.path == null) {
      return "plugins on the class path cannot be reloaded: restart Loupe";
    }
    if (u.source.startsWith("script:")) {
      return scripts.reload(u);
    }
    try {
      Loaded l = openJar(u.path);
      replaceAll(u, l.plugins(), l.views());
      URLClassLoader old = u.loader;
      u.loader = l.loader();
      if (old != null) {
        old.close();
      }
      return null;
    } catch (IOException | RuntimeException | ServiceConfigurationError | LinkageError e) {
      String problem = "reload failed, still running the previous version: " + message(e);
      u.handles.values().forEach(h -> h.problem(problem));
      err.println("loupe: plugin jar " + u.path + ": " + problem);
      return problem;
    }
  }

  /**
   * Swaps {@code u}'s plugins for {@code next} (same class: replaced in place; new: added; gone:
   * removed) and its views for {@code nextViews}.
   */
  void replaceAll(Unit u, List<Plugin> next, List<ContentView> nextViews) {
    Map<String, PluginHandle> kept = new LinkedHashMap<>();
    for (Plugin p : next) {
      String cls = p.getClass().getName();
      PluginHandle h = u.handles.remove(cls);
      if (h == null) {
        h = add(p, u.source);
      } else {
        h.replace(p);
      }
      kept.put(cls, h);
    }
    u.handles.values().forEach(PluginHandle::remove);
    u.handles.clear();
    u.handles.putAll(kept);
    u.views.forEach(plugins::removeContentView);
    u.views.clear();
    for (ContentView v : nextViews) {
      u.views.add(v);
      plugins.addContentView(v, u.source);
    }
  }

  Unit unit(String source, Path path) {
    return units.computeIfAbsent(source, s -> new Unit(s, path));
  }

  boolean known(String source) {
    return units.containsKey(source);
  }

  private Unit unitOf(long id) {
    for (Unit u : units.values()) {
      for (PluginHandle h : u.handles.values()) {
        if (h.info().id() == id) {
          return u;
        }
      }
    }
    return null;
  }

  Plugins plugins() {
    return plugins;
  }

  PluginConfig config() {
    return config;
  }

  static List<Path> list(Path dir, String glob) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob)) {
      ds.forEach(p -> {
        if (Files.isRegularFile(p)) {
          out.add(p);
        }
      });
    } catch (IOException e) {
      return List.of();
    }
    out.sort(null);
    return out;
  }

  static String safeName(Object pluginOrView) {
    try {
      return pluginOrView instanceof Plugin p ? p.name() : ((ContentView) pluginOrView).name();
    } catch (RuntimeException e) {
      return pluginOrView.getClass().getSimpleName();
    }
  }

  static String message(Throwable e) {
    Throwable t = e instanceof ServiceConfigurationError && e.getCause() != null ? e.getCause() : e;
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  /** Stops watching scripts and closes the jars' class loaders (the plugins are unloaded by the host). */
  @Override
  public synchronized void close() {
    scripts.close();
    for (Unit u : units.values()) {
      if (u.loader != null) {
        try {
          u.loader.close();
        } catch (IOException ignored) {
          // a temp copy
        }
      }
    }
  }
}
