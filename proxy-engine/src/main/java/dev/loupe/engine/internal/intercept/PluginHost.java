package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.spi.ContentView;
import dev.loupe.spi.Plugin;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the session's {@link Plugin}s: the registry and their lifecycle ({@link PluginEntry}), their
 * in-flight hooks for the flows they intercept ({@link PluginInterceptors}, a step of the same
 * {@link InterceptorChain} the built-in rules and breakpoints run in), and their observing hooks for
 * every other flow ({@link PluginObservers}, fed from the {@link FlowStore} after the fact, so those
 * flows stay on the relay tier).
 *
 * <h3>Threads</h3>
 * Each plugin has one thread of its own: its hooks run there, one at a time, never on an event loop.
 * A hook that throws, or does not return within {@link #hookTimeout()}, records the failure on the
 * flow ({@link Flow#notes()}) and on the plugin ({@link Plugins.PluginInfo#lastError()}); the flow
 * goes on unchanged. A plugin thread stuck in any hook (in-flight, observing or lifecycle) is
 * abandoned (interrupted) and replaced ({@link PluginThread}), so one hung hook does not hold that
 * plugin's later flows.
 */
public final class PluginHost implements Plugins, AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PluginHost.class.getName());

  private final List<PluginEntry> entries = new CopyOnWriteArrayList<>();
  private final List<ContentView> views = new CopyOnWriteArrayList<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final PluginObservers observers = new PluginObservers(entries);
  private final PluginInterceptors interceptors = new PluginInterceptors(entries, observers);
  private final Path dataRoot;
  private volatile Duration hookTimeout = Duration.ofSeconds(10);
  private volatile boolean running;
  /** The store the observers follow once a plugin is loaded (see {@link #observe}), or null. */
  private FlowStore observed; // guarded by this
  private FlowStore.Subscription observing; // guarded by this

  /** @param dataRoot where plugins get their data directories, or null for a temporary one */
  public PluginHost(Path dataRoot) {
    this.dataRoot = dataRoot;
  }

  // ---- registry --------------------------------------------------------------------------------

  @Override
  public PluginHandle add(Plugin plugin, String source, Map<String, String> options) {
    PluginEntry e = new PluginEntry(this, Objects.requireNonNull(plugin, "plugin"), source, options);
    startObserving();
    entries.add(e);
    e.await(e.start());
    changed();
    return e;
  }

  @Override
  public List<PluginInfo> list() {
    return entries.stream().map(PluginEntry::info).toList();
  }

  @Override
  public PluginHandle get(long id) {
    return entries.stream().filter(e -> e.id == id).findFirst().orElse(null);
  }

  @Override
  public void addContentView(ContentView view, String source) {
    views.add(Objects.requireNonNull(view, "view"));
    changed();
  }

  @Override
  public List<ContentView> contentViews() {
    return List.copyOf(views);
  }

  @Override
  public void removeContentView(ContentView view) {
    if (views.remove(view)) {
      changed();
    }
  }

  @Override
  public void hookTimeout(Duration timeout) {
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the hook timeout must be positive: " + timeout);
    }
    hookTimeout = timeout;
  }

  @Override
  public Duration hookTimeout() {
    return hookTimeout;
  }

  @Override
  public AutoCloseable subscribe(Runnable onChange) {
    listeners.add(onChange);
    return () -> listeners.remove(onChange);
  }

  void changed() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException ex) {
        LOG.log(Level.WARNING, "plugin listener failed", ex);
      }
    }
  }

  /** {@code e} was removed by its handle. */
  void removed(PluginEntry e) {
    entries.remove(e);
  }

  /** Whether the proxy listens (plugins added now get {@code running} at once). */
  boolean isRunning() {
    return running;
  }

  /** Where plugins keep their files, or null. */
  Path dataRoot() {
    return dataRoot;
  }

  /** The plugins as a step of the interception pipeline. */
  PluginInterceptors interceptors() {
    return interceptors;
  }

  /** The proxy listens: {@code running} for every plugin (and for plugins added later, at once). */
  public void running() {
    running = true;
    for (PluginEntry e : entries) {
      Plugin p = e.plugin;
      e.submit("running", () -> {
        p.running();
        return null;
      });
    }
  }

  /**
   * Feeds the observing hooks from {@code store}'s events, from the first plugin loaded on (a Loupe
   * without plugins queues nothing per flow for them). Returns the handle that stops it.
   */
  public AutoCloseable observe(FlowStore store) {
    synchronized (this) {
      observed = Objects.requireNonNull(store, "store");
    }
    if (!entries.isEmpty()) {
      startObserving();
    }
    return () -> {
      FlowStore.Subscription s;
      synchronized (this) {
        s = observing;
        observing = null;
        observed = null;
      }
      if (s != null) {
        s.close();
      }
    };
  }

  private synchronized void startObserving() {
    if (observing != null || observed == null) {
      return;
    }
    // The observers act on a flow's first and last events only: updates are not even queued.
    observing = observed.subscribe(observers::onFlowEvent, 10_000,
        EnumSet.of(FlowEvent.Type.ADDED, FlowEvent.Type.COMPLETED));
  }

  /** Unloads every plugin ({@code done}, waiting up to the hook timeout in all for them). */
  @Override
  public void close() {
    long deadline = System.nanoTime() + hookTimeout.toNanos();
    for (PluginEntry e : entries) {
      e.stop(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    entries.clear();
  }
}
