package dev.loupe.app.plugins;

import dev.loupe.engine.api.plugin.Plugins.PluginHandle;
import dev.loupe.spi.ContentView;
import dev.loupe.spi.Plugin;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Single-file Java plugins: compiled in memory at start ({@link ScriptCompiler}) and again whenever
 * the file changes, as mitmproxy reloads its scripts. A script that does not compile keeps the
 * previous version running (the plugin's last error says why, and one line goes to stderr); one
 * that never compiled shows as a switched-off placeholder until it does. New {@code .java} files in
 * {@code CONFDIR/scripts} are picked up while Loupe runs.
 *
 * <h3>Watching</h3>
 * A daemon thread reads every script every {@value #POLL_MS} ms and reloads one whose text changed
 * and then stayed the same for one more poll (an editor's save in several writes compiles once).
 * Polling rather than a WatchService: it sees files replaced by rename, on any file system, and a
 * handful of small files cost nothing to read.
 *
 * <p>Guarded by the {@link PluginLoader}'s lock (the watcher takes it for each reload).
 */
final class ScriptPlugins implements AutoCloseable {
  static final long POLL_MS = 500;
  /** Scripts longer than this are refused (a script is one file of code, not data). */
  static final int MAX_SCRIPT_BYTES = 1 << 20;

  private final PluginLoader loader;
  private final ScriptCompiler compiler;
  private final PrintStream out;
  private final PrintStream err;
  private final Map<Path, Script> scripts = new LinkedHashMap<>();
  private final List<Path> directories = new ArrayList<>();
  private Thread watcher;
  private volatile boolean closed;

  ScriptPlugins(PluginLoader loader, ScriptCompiler compiler, PrintStream out, PrintStream err) {
    this.loader = loader;
    this.compiler = compiler;
    this.out = out;
    this.err = err;
  }

  /** One script file: what was last compiled (or tried), and what the watcher saw last. */
  private static final class Script {
    final Path path;
    final PluginLoader.Unit unit;
    String loadedText;
    String lastSeen;
    boolean placeholder;
    boolean missingReported;

    Script(Path path, PluginLoader.Unit unit) {
      this.path = path;
      this.unit = unit;
    }
  }

  /** A script that has not compiled yet: listed (with its error), switched off, no hooks. */
  static final class Placeholder implements Plugin {
    private final String name;

    Placeholder(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String version() {
      return "-";
    }
  }

  void watchDirectory(Path dir) {
    directories.add(dir.toAbsolutePath().normalize());
  }

  /** Compiles and loads {@code file} (once: a script named twice loads once). */
  void load(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    String source = "script:" + abs;
    if (loader.known(source)) {
      return;
    }
    Script s = new Script(abs, loader.unit(source, abs));
    scripts.put(abs, s);
    String text;
    try {
      text = read(abs);
    } catch (IOException e) {
      fail(s, "cannot read it: " + e.getMessage(), null);
      return;
    }
    s.lastSeen = text;
    s.loadedText = text;
    try {
      Built b = build(abs, text);
      for (Plugin p : b.plugins()) {
        s.unit.handles.put(p.getClass().getName(), loader.add(p, source));
      }
      for (ContentView v : b.views()) {
        s.unit.views.add(v);
        loader.plugins().addContentView(v, source);
      }
    } catch (ScriptCompiler.CompileException e) {
      fail(s, e.getMessage(), null);
    }
  }

  /** A script that cannot run: a switched-off placeholder carries the problem; one line on stderr. */
  private void fail(Script s, String problem, String prefix) {
    String name = s.path.getFileName().toString().replaceFirst("\\.java$", "");
    PluginHandle h = loader.plugins().add(new Placeholder(name), s.unit.source, java.util.Map.of());
    h.enabled(false);
    h.problem(problem);
    s.unit.handles.put(Placeholder.class.getName(), h);
    s.placeholder = true;
    err.println("loupe: script " + s.path + " not loaded: " + problem);
  }

  /** Compiles {@code unit}'s script again now; null when it runs the new version, else the problem. */
  String reload(PluginLoader.Unit unit) {
    Script s = scripts.get(unit.path);
    if (s == null) {
      return "not a script";
    }
    String text;
    try {
      text = read(s.path);
    } catch (IOException e) {
      return problem(s, "cannot read it: " + e.getMessage());
    }
    s.lastSeen = text;
    s.loadedText = text;
    try {
      Built b = build(s.path, text);
      boolean wasPlaceholder = s.placeholder;
      loader.replaceAll(s.unit, b.plugins(), b.views());
      s.placeholder = false;
      for (PluginHandle h : s.unit.handles.values()) {
        out.println((wasPlaceholder ? "Loaded " : "Reloaded ") + PluginLoader.describe(h.info()));
      }
      out.flush();
      return null;
    } catch (ScriptCompiler.CompileException e) {
      return problem(s, e.getMessage());
    }
  }

  private String problem(Script s, String message) {
    String problem = s.placeholder ? message : message + " (still running the previous version)";
    s.unit.handles.values().forEach(h -> h.problem(problem));
    err.println("loupe: script " + s.path + ": " + problem);
    err.flush();
    return problem;
  }

  private record Built(List<Plugin> plugins, List<ContentView> views) {}

  /** Compiles {@code text} and makes one instance of every plugin and content view class in it. */
  private Built build(Path file, String text) throws ScriptCompiler.CompileException {
    List<Plugin> ps = new ArrayList<>();
    List<ContentView> vs = new ArrayList<>();
    for (Class<?> c : compiler.compile(file, text)) {
      boolean plugin = Plugin.class.isAssignableFrom(c);
      boolean view = ContentView.class.isAssignableFrom(c);
      if (!plugin && !view || c.isInterface() || Modifier.isAbstract(c.getModifiers())
          || c.isMemberClass() && !Modifier.isStatic(c.getModifiers()) || c.isAnonymousClass() || c.isLocalClass()) {
        continue;
      }
      Object instance;
      try {
        Constructor<?> ctor = c.getDeclaredConstructor();
        ctor.setAccessible(true);
        instance = ctor.newInstance();
      } catch (NoSuchMethodException e) {
        throw new ScriptCompiler.CompileException(file.getFileName() + ": " + c.getSimpleName()
            + " needs a constructor without parameters");
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        Throwable t = e instanceof java.lang.reflect.InvocationTargetException && e.getCause() != null
            ? e.getCause() : e;
        throw new ScriptCompiler.CompileException(file.getFileName() + ": new " + c.getSimpleName() + "() failed: "
            + t);
      }
      if (plugin) {
        ps.add((Plugin) instance);
      }
      if (view) {
        vs.add((ContentView) instance);
      }
    }
    if (ps.isEmpty() && vs.isEmpty()) {
      throw new ScriptCompiler.CompileException(file.getFileName()
          + ": no class implements dev.loupe.spi.Plugin or dev.loupe.spi.ContentView");
    }
    return new Built(ps, vs);
  }

  private static String read(Path p) throws IOException {
    long size = Files.size(p);
    if (size > MAX_SCRIPT_BYTES) {
      throw new IOException("larger than " + MAX_SCRIPT_BYTES + " bytes");
    }
    return Files.readString(p, StandardCharsets.UTF_8);
  }

  // ---- watching ------------------------------------------------------------------------------------

  void startWatching() {
    synchronized (loader) {
      if (watcher != null || closed || scripts.isEmpty() && directories.isEmpty()) {
        return;
      }
      watcher = new Thread(this::watch, "loupe-script-watcher");
      watcher.setDaemon(true);
      watcher.start();
    }
  }

  private void watch() {
    while (!closed) {
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        return;
      }
      synchronized (loader) {
        if (closed) {
          return;
        }
        pollOnce();
      }
    }
  }

  /** One look at every script and watched directory. Under the loader's lock. */
  void pollOnce() {
    for (Script s : List.copyOf(scripts.values())) {
      String text;
      try {
        text = read(s.path);
        s.missingReported = false;
      } catch (IOException e) {
        if (!s.missingReported) {
          s.missingReported = true;
          String problem = Files.exists(s.path) ? "cannot read it: " + e.getMessage()
              : "the file is gone; the last version keeps running until Loupe stops";
          s.unit.handles.values().forEach(h -> h.problem(problem));
          err.println("loupe: script " + s.path + ": " + problem);
        }
        continue;
      }
      boolean settled = Objects.equals(text, s.lastSeen);
      s.lastSeen = text;
      if (settled && !text.equals(s.loadedText)) {
        reload(s.unit);
      }
    }
    for (Path dir : directories) {
      for (Path p : PluginLoader.list(dir, "*.java")) {
        Path abs = p.toAbsolutePath().normalize();
        if (!scripts.containsKey(abs)) {
          load(abs);
          Script s = scripts.get(abs);
          if (s != null && !s.placeholder) {
            s.unit.handles.values().forEach(h -> out.println("Loaded " + PluginLoader.describe(h.info())));
            out.flush();
          }
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    Thread w = watcher;
    if (w != null) {
      w.interrupt();
    }
  }
}
