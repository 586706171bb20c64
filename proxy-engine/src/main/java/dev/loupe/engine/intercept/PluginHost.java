package dev.loupe.engine.intercept;

import dev.loupe.engine.api.Plugins;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.spi.ContentView;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.PluginContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs the session's {@link Plugin}s: their lifecycle, their in-flight hooks for the flows they
 * intercept (called by {@link Interception} on the full tier), and their observing hooks for every
 * other flow (fed from the {@link FlowStore} after the fact, so those flows stay on the relay tier).
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
  private static final AtomicLong IDS = new AtomicLong();

  private final List<Entry> entries = new CopyOnWriteArrayList<>();
  private final List<ContentView> views = new CopyOnWriteArrayList<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  /** Flows whose request went through in-flight hooks: not observed again at completion. */
  private final Map<Long, Boolean> intercepted = new ConcurrentHashMap<>();
  private final Path dataRoot;
  private volatile Duration hookTimeout = Duration.ofSeconds(10);
  private volatile boolean running;

  /** @param dataRoot where plugins get their data directories, or null for a temporary one */
  public PluginHost(Path dataRoot) {
    this.dataRoot = dataRoot;
  }

  // ---- registry --------------------------------------------------------------------------------

  @Override
  public PluginHandle add(Plugin plugin, String source, Map<String, String> options) {
    Entry e = new Entry(Objects.requireNonNull(plugin, "plugin"), source, options);
    entries.add(e);
    e.await(e.start());
    changed();
    return e;
  }

  @Override
  public List<PluginInfo> list() {
    return entries.stream().map(Entry::info).toList();
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

  private void changed() {
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException ex) {
        LOG.log(Level.WARNING, "plugin listener failed", ex);
      }
    }
  }

  /** The proxy listens: {@code running} for every plugin (and for plugins added later, at once). */
  public void running() {
    running = true;
    for (Entry e : entries) {
      Plugin p = e.plugin;
      e.submit("running", () -> {
        p.running();
        return null;
      });
    }
  }

  /**
   * Feeds the observing hooks from {@code store}'s events. Returns the subscription (close it to
   * stop).
   */
  public AutoCloseable observe(FlowStore store) {
    FlowStore.Subscription s = store.subscribe(this::onFlowEvent);
    return s::close;
  }

  // ---- the tier decision and in-flight hooks (Interception) ----------------------------------------

  /** Whether any enabled plugin may change {@code flow} (its filter can still match it). */
  boolean wants(Flow flow) {
    for (Entry e : entries) {
      Filter f = e.filter;
      if (e.enabled && f != null && f.couldMatch(flow)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs the {@code request} hooks of the plugins intercepting {@code flow}, in order, each on its
   * own thread; completes with the outcome. Completes at once, on the caller's thread, when none
   * intercepts it.
   */
  CompletionStage<RequestOutcome> request(Flow flow, RequestDraft draft) {
    CompletionStage<RequestOutcome> stage = CompletableFuture.completedFuture(new RequestOutcome.Forward(draft));
    for (Entry e : entries) {
      Filter f = e.filter;
      if (!e.enabled || f == null || !f.test(flow)) {
        continue;
      }
      intercepted.put(flow.id(), Boolean.TRUE);
      if (!e.overrides("request")) {
        continue; // it changes only responses: nothing to ask now
      }
      stage = stage.thenCompose(outcome -> {
        if (!(outcome instanceof RequestOutcome.Forward fw)) {
          return CompletableFuture.completedFuture(outcome); // answered or killed by an earlier plugin
        }
        PluginHooks.Request hook = new PluginHooks.Request(flow, fw.request(), true, e.plugin.name());
        return e.inFlight("request", flow, () -> e.plugin.request(hook))
            .thenApply(ok -> ok ? e.applied(flow, hook.changed(fw.request()), hook.outcome()) : outcome);
      });
    }
    return stage;
  }

  /** Like {@link #request}, for the response. */
  CompletionStage<ResponseOutcome> response(Flow flow, RequestDraft sent, ResponseDraft draft) {
    CompletionStage<ResponseOutcome> stage = CompletableFuture.completedFuture(new ResponseOutcome.Deliver(draft));
    for (Entry e : entries) {
      Filter f = e.filter;
      if (!e.enabled || f == null || !f.test(flow) || !e.overrides("response")) {
        continue;
      }
      stage = stage.thenCompose(outcome -> {
        if (!(outcome instanceof ResponseOutcome.Deliver d)) {
          return CompletableFuture.completedFuture(outcome);
        }
        PluginHooks.Response hook = new PluginHooks.Response(flow, d.response(), true, e.plugin.name());
        return e.inFlight("response", flow, () -> e.plugin.response(hook))
            .thenApply(ok -> ok ? e.applied(flow, hook.changed(d.response()), hook.outcome()) : outcome);
      });
    }
    return stage;
  }

  // ---- observing hooks ---------------------------------------------------------------------------

  /** On the store's delivery thread: queues each plugin's observing hooks for the flow, in order. */
  private void onFlowEvent(FlowEvent event) {
    Flow flow = event.flow();
    if (entries.isEmpty()) {
      intercepted.remove(flow.id());
      return;
    }
    if (event.type() == FlowEvent.Type.ADDED && flow.request() != null) {
      boolean connect = flow.request().method().equals("CONNECT");
      String hook = connect ? "connect" : "requestHeaders";
      for (Entry e : entries) {
        if (e.enabled && e.overrides(hook)) {
          Plugin p = e.plugin;
          e.observe(hook, flow, () -> {
            if (connect) {
              p.connect(flow);
            } else {
              p.requestHeaders(flow);
            }
            return null;
          });
        }
      }
    } else if (event.type() == FlowEvent.Type.COMPLETED) {
      boolean inFlight = intercepted.remove(flow.id()) != null;
      for (Entry e : entries) {
        if (e.enabled) {
          observeCompleted(e, flow, inFlight && e.filter != null);
        }
      }
    }
  }

  /** Queues the after-the-fact hooks for a finished flow on {@code e}'s thread. */
  private void observeCompleted(Entry e, Flow flow, boolean sawInFlight) {
    Plugin p = e.plugin;
    if (flow.request() == null || flow.request().method().equals("CONNECT") && flow.state() != FlowState.FAILED) {
      return;
    }
    // Only the hooks the plugin implements: the defaults do nothing, and an observed request or
    // response hook copies the body for the plugin, which one that never looks should not pay for.
    if (!sawInFlight && e.overrides("request")) {
      e.observe("request", flow, () -> p.request(PluginHooks.Request.observed(flow, p.name())));
    }
    if (flow.response() != null) {
      if (e.overrides("responseHeaders")) {
        e.observe("responseHeaders", flow, () -> {
          p.responseHeaders(flow);
          return null;
        });
      }
      if (!sawInFlight && e.overrides("response")) {
        e.observe("response", flow, () -> p.response(PluginHooks.Response.observed(flow, p.name())));
      }
    }
    if (e.overrides("webSocketMessage")) {
      for (WebSocketMessage m : flow.webSocketMessages()) {
        e.observe("webSocketMessage", flow, () -> {
          p.webSocketMessage(flow, m);
          return null;
        });
      }
    }
    if (flow.state() == FlowState.FAILED && e.overrides("error")) {
      e.observe("error", flow, () -> {
        p.error(flow);
        return null;
      });
    }
  }

  /** Unloads every plugin ({@code done}, waiting up to the hook timeout in all for them). */
  @Override
  public void close() {
    long deadline = System.nanoTime() + hookTimeout.toNanos();
    for (Entry e : entries) {
      e.stop(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    entries.clear();
  }

  // ---- one plugin ----------------------------------------------------------------------------------

  private final class Entry implements PluginHandle, PluginContext {
    final long id = IDS.incrementAndGet();
    final String source;
    volatile Plugin plugin;
    volatile Map<String, String> options;
    volatile boolean enabled = true;
    /** Off because configure failed (not by the user): a working replacement switches it on again. */
    volatile boolean offByFailure;
    volatile Filter filter;
    volatile String filterText;
    volatile String lastError;
    final AtomicLong errors = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final PluginThread worker;
    /** The hooks {@link #plugin}'s class implements (the others are not called: they do nothing). */
    private volatile java.util.Set<String> implemented;

    Entry(Plugin plugin, String source, Map<String, String> options) {
      this.plugin = plugin;
      this.source = source;
      this.options = Map.copyOf(options);
      this.worker = new PluginThread(safeName(), () -> hookTimeout);
      this.implemented = java.util.Set.copyOf(PluginHooks.implemented(plugin));
    }

    boolean overrides(String hook) {
      return implemented.contains(hook);
    }

    private String safeName() {
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
      if (running) {
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
      CompletableFuture<Void> done = worker.call(() -> {
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
        changed();
        return null;
      });
      return done;
    }

    /** Waits (up to the hook timeout and a little) for {@code f}, unless on the plugin's own thread. */
    void await(CompletableFuture<Void> f) {
      if (worker.isCurrent()) {
        return;
      }
      try {
        f.get(hookTimeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
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
    CompletableFuture<Void> submit(String hook, java.util.concurrent.Callable<Object> body) {
      return worker.call(body, false).handle((v, ex) -> {
        if (ex != null && !(unwrap(ex) instanceof java.util.concurrent.RejectedExecutionException)) {
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
    void observe(String hook, Flow flow, java.util.concurrent.Callable<Object> body) {
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
        if (cause instanceof java.util.concurrent.RejectedExecutionException) {
          long n = skipped.incrementAndGet();
          if (n == 1 || n % 1000 == 0) {
            lastError = n + " observed hook calls skipped: " + cause.getMessage();
            System.err.println("loupe: plugin " + safeName() + ": " + lastError);
            changed();
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
    CompletionStage<Boolean> inFlight(String hook, Flow flow, java.util.function.Supplier<CompletionStage<?>> body) {
      CompletableFuture<Boolean> result = new CompletableFuture<>();
      worker.call(body::get, false).whenComplete((stage, ex) -> {
        if (ex != null) {
          Throwable cause = unwrap(ex);
          if (!(cause instanceof java.util.concurrent.RejectedExecutionException)) {
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

    /** Records on {@code flow} that this plugin changed it (once), and returns {@code outcome}. */
    <T> T applied(Flow flow, boolean changed, T outcome) {
      String note = "plugin \"" + safeName() + "\"";
      if (changed && !flow.modifiedBy().contains(note)) {
        flow.modifiedBy(note);
      }
      return outcome;
    }

    void failed(String hook, Flow flow, Throwable ex) {
      String what = "plugin " + safeName() + ", hook " + hook + ": " + describe(ex);
      errors.incrementAndGet();
      lastError = hook + ": " + describe(ex);
      if (flow != null) {
        flow.note(what);
      }
      LOG.log(Level.FINE, what, ex);
      System.err.println("loupe: " + what);
      changed();
    }

    @Override
    public PluginInfo info() {
      return new PluginInfo(id, safeName(), safeVersion(), source, PluginHooks.implemented(plugin), enabled, filterText,
          lastError, errors.get());
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
      changed();
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
      implemented = java.util.Set.copyOf(PluginHooks.implemented(next));
      lastError = null;
      if (offByFailure) {
        offByFailure = false;
        enabled = true;
      }
      await(start());
      changed();
    }

    @Override
    public void problem(String message) {
      lastError = message;
      changed();
    }

    @Override
    public void remove() {
      entries.remove(this);
      stop(0);
      changed();
    }

    // PluginContext

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
        Path root = dataRoot != null ? dataRoot : Files.createTempDirectory("loupe-plugin-data");
        Path dir = root.resolve(safeName().replaceAll("[^A-Za-z0-9._-]", "_"));
        Files.createDirectories(dir);
        return dir;
      } catch (java.io.IOException ex) {
        throw new java.io.UncheckedIOException(ex);
      }
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
