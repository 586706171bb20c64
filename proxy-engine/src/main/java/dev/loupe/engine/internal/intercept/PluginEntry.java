package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.PluginContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One loaded plugin in a {@link PluginHost}: its thread ({@link PluginThread}), its lifecycle ({@code
 * load}, {@code configure}, {@code running}, {@code done}), its filter, and how its hooks are run —
 * in flight ({@link #inFlight}: the flow waits), observing ({@link #observe}: queued, skipped when far
 * behind) or lifecycle ({@link #submit}). A hook that throws or times out is recorded on the flow (a
 * note naming the plugin and the hook) and on the plugin (last error, error count), and on stderr.
 *
 * <p>Thread-safe: the fields hooks read are volatile; the plugin's own calls run on its thread.
 */
final class PluginEntry implements Plugins.PluginHandle, PluginContext {
  private static final Logger LOG = Logger.getLogger(PluginEntry.class.getName());
  private static final AtomicLong IDS = new AtomicLong();

  final long id = IDS.incrementAndGet();
  final String source;
  private final PluginHost host;
  volatile Plugin plugin;
  private volatile Map<String, String> options;
  volatile boolean enabled = true;
  /** Off because configure failed (not by the user): a working replacement switches it on again. */
  private volatile boolean offByFailure;
  /** The flows it may change, or null (it only observes). */
  volatile Filter filter;
  private volatile String filterText;
  private volatile String lastError;
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong skipped = new AtomicLong();
  private final PluginThread worker;
  /** The hooks {@link #plugin}'s class implements (the others are not called: they do nothing). */
  private volatile Set<String> implemented;

  PluginEntry(PluginHost host, Plugin plugin, String source, Map<String, String> options) {
    this.host = host;
    this.plugin = plugin;
    this.source = source;
    this.options = Map.copyOf(options);
    this.worker = new PluginThread(safeName(), host::hookTimeout);
    this.implemented = Set.copyOf(PluginHooks.implemented(plugin));
  }

  boolean overrides(String hook) {
    return implemented.contains(hook);
  }

  String safeName() {
    try {
      return plugin.name();
    } catch (RuntimeException ex) {
      return plugin.getClass().getName();
    }
  }

  /** {@code load}, {@code configure} (and {@code running} when the proxy is up); completes after configure. */
  CompletableFuture<Void> start() {
    Plugin p = plugin;
    submit("load", () -> {
      p.load(this);
      return null;
    });
    CompletableFuture<Void> configured = configure();
    if (host.isRunning()) {
      submit("running", () -> {
        p.running();
        return null;
      });
    }
    return configured;
  }

  /**
   * Runs {@code configure} and reads the filter. A plugin whose configure fails is switched off
   * (its options are wrong: better no effect than a half-configured one), with the error shown.
   */
  private CompletableFuture<Void> configure() {
    Plugin p = plugin;
    return worker.call(() -> {
      p.configure(this);
      String text = p.interceptFilter();
      Filter parsed = text == null || text.isBlank() ? null : Filter.parse(text);
      filterText = text;
      filter = parsed;
      return null;
    }, false).handle((v, ex) -> {
      if (ex != null) {
        filter = null;
        enabled = false;
        offByFailure = true;
        failed("configure", null, unwrap(ex));
      }
      host.changed();
      return null;
    });
  }

  /** Waits (up to the hook timeout and a little) for {@code f}, unless on the plugin's own thread. */
  void await(CompletableFuture<Void> f) {
    if (worker.isCurrent()) {
      return;
    }
    try {
      f.get(host.hookTimeout().toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | TimeoutException ex) {
      // recorded by the hook's own handling
    }
  }

  void stop(long awaitMillis) {
    Plugin p = plugin;
    filter = null;
    submit("done", () -> {
      p.done();
      return null;
    });
    worker.shutdown(awaitMillis);
  }

  /** A lifecycle hook on this plugin's thread; errors and time-outs recorded. */
  CompletableFuture<Void> submit(String hook, Callable<Object> body) {
    return worker.call(body, false).handle((v, ex) -> {
      if (ex != null && !(unwrap(ex) instanceof RejectedExecutionException)) {
        failed(hook, null, unwrap(ex));
      }
      return null;
    });
  }

  /**
   * An observing hook for {@code flow}, queued on this plugin's thread. A stage it returns is not
   * waited for (the flow is over), but its failure is recorded. Skipped, and counted, when the
   * plugin is too far behind.
   */
  void observe(String hook, RecordedFlow flow, Callable<Object> body) {
    worker.call(body, true).whenComplete((r, ex) -> {
      if (ex == null) {
        if (r instanceof CompletionStage<?> stage) {
          stage.whenComplete((v, err) -> {
            if (err != null) {
              failed(hook, flow, unwrap(err));
            }
          });
        }
        return;
      }
      Throwable cause = unwrap(ex);
      if (cause instanceof RejectedExecutionException) {
        long n = skipped.incrementAndGet();
        if (n == 1 || n % 1000 == 0) {
          lastError = n + " observed hook calls skipped: " + cause.getMessage();
          System.err.println("loupe: plugin " + safeName() + ": " + lastError);
          host.changed();
        }
        return;
      }
      failed(hook, flow, cause);
    });
  }

  /**
   * An in-flight hook: completes true when the hook returned (and any stage it returned
   * completed), false when it threw or timed out (the flow then goes on unchanged).
   */
  CompletionStage<Boolean> inFlight(String hook, RecordedFlow flow, Supplier<CompletionStage<?>> body) {
    CompletableFuture<Boolean> result = new CompletableFuture<>();
    worker.call(body::get, false).whenComplete((stage, ex) -> {
      if (ex != null) {
        Throwable cause = unwrap(ex);
        if (!(cause instanceof RejectedExecutionException)) {
          failed(hook, flow, cause);
        }
        result.complete(false);
        return;
      }
      if (stage == null) {
        result.complete(true);
        return;
      }
      // A pause: the flow waits for the plugin's stage (the pause timeout is the plugin's to keep).
      stage.whenComplete((v, err) -> {
        if (err != null) {
          failed(hook, flow, unwrap(err));
          result.complete(false);
        } else {
          result.complete(true);
        }
      });
    });
    return result;
  }

  /** What this plugin's changes are recorded as on a flow. */
  String mark() {
    return "plugin \"" + safeName() + "\"";
  }

  void failed(String hook, RecordedFlow flow, Throwable ex) {
    String what = "plugin " + safeName() + ", hook " + hook + ": " + describe(ex);
    errors.incrementAndGet();
    lastError = hook + ": " + describe(ex);
    if (flow != null) {
      flow.note(what);
    }
    LOG.log(Level.FINE, what, ex);
    System.err.println("loupe: " + what);
    host.changed();
  }

  @Override
  public Plugins.PluginInfo info() {
    return new Plugins.PluginInfo(id, safeName(), safeVersion(), source, PluginHooks.implemented(plugin), enabled,
        filterText, lastError, errors.get());
  }

  private String safeVersion() {
    try {
      return plugin.version();
    } catch (RuntimeException ex) {
      return "?";
    }
  }

  @Override
  public void enabled(boolean on) {
    enabled = on;
    offByFailure = false;
    host.changed();
  }

  @Override
  public void options(Map<String, String> next) {
    options = Map.copyOf(next);
    await(configure());
  }

  @Override
  public void replace(Plugin next) {
    Objects.requireNonNull(next, "next");
    Plugin old = plugin;
    submit("done", () -> {
      old.done();
      return null;
    });
    plugin = next;
    implemented = Set.copyOf(PluginHooks.implemented(next));
    lastError = null;
    if (offByFailure) {
      offByFailure = false;
      enabled = true;
    }
    await(start());
    host.changed();
  }

  @Override
  public void problem(String message) {
    lastError = message;
    host.changed();
  }

  @Override
  public void remove() {
    host.removed(this);
    stop(0);
    host.changed();
  }

  // ---- PluginContext -----------------------------------------------------------------------------

  @Override
  public Map<String, String> options() {
    return options;
  }

  @Override
  public void log(String message) {
    System.err.println("loupe: plugin " + safeName() + ": " + message);
  }

  @Override
  public Path dataDirectory() {
    try {
      Path root = host.dataRoot() != null ? host.dataRoot() : Files.createTempDirectory("loupe-plugin-data");
      Path dir = root.resolve(safeName().replaceAll("[^A-Za-z0-9._-]", "_"));
      Files.createDirectories(dir);
      return dir;
    } catch (java.io.IOException ex) {
      throw new java.io.UncheckedIOException(ex);
    }
  }

  private static Throwable unwrap(Throwable ex) {
    return (ex instanceof java.util.concurrent.CompletionException
        || ex instanceof java.util.concurrent.ExecutionException) && ex.getCause() != null ? ex.getCause() : ex;
  }

  private static String describe(Throwable ex) {
    String m = ex.getMessage();
    return ex.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : " (" + m + ")");
  }
}
