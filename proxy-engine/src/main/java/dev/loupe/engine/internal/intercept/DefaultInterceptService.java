package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Breakpoints, rules, plugins and paused flows: the one service the desktop UI and the control API
 * both drive, and the engine asks about every request ({@link #begin}). The rules and breakpoints run
 * as interceptors on the plugin SPI, in one pipeline with the plugins ({@link InterceptorChain}). It outlives engine restarts (a
 * settings change restarts the engine; rules and pauses stay).
 *
 * <p>Thread-safe.
 */
public final class DefaultInterceptService implements InterceptService {
  /** The service {@link InterceptService#create} finds. */
  public static final class Factory implements InterceptService.Factory {
    @Override
    public InterceptService create(java.nio.file.Path pluginData) {
      return new DefaultInterceptService(pluginData);
    }
  }

  private final InterceptList<Rule> rules = new InterceptList<>(Rule.class);
  private final InterceptList<Breakpoint> breakpoints = new InterceptList<>(Breakpoint.class);
  private final Map<Long, BreakpointPause> paused = new ConcurrentHashMap<>();
  private final CopyOnWriteArrayList<PauseListener> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "loupe-pause-timer");
    t.setDaemon(true);
    return t;
  });
  private volatile Duration pauseTimeout = Duration.ZERO;

  private final PluginHost plugins;
  /** Rules, plugins and breakpoints as one pipeline of interceptors. */
  private final InterceptorChain chain = new InterceptorChain(this);

  public DefaultInterceptService() {
    this(null);
  }

  /** @param pluginData where plugins keep their files ({@code CONFDIR/plugin-data}), or null */
  public DefaultInterceptService(java.nio.file.Path pluginData) {
    this.plugins = new PluginHost(pluginData);
  }

  /**
   * The engine's implementation behind {@code service} (made by {@link InterceptService#create}).
   *
   * @throws IllegalArgumentException for a service made elsewhere
   */
  public static DefaultInterceptService of(InterceptService service) {
    if (service instanceof DefaultInterceptService d) {
      return d;
    }
    throw new IllegalArgumentException("not the engine's intercept service (make one with InterceptService.create()): "
        + service);
  }

  /** The session's plugins (they outlive proxy restarts, like the rules). */
  @Override
  public PluginHost plugins() {
    return plugins;
  }

  @Override
  public InterceptList<Rule> rules() {
    return rules;
  }

  @Override
  public InterceptList<Breakpoint> breakpoints() {
    return breakpoints;
  }

  /** How long a flow may stay paused before it is resumed unchanged; zero (the default) = forever. */
  @Override
  public Duration pauseTimeout() {
    return pauseTimeout;
  }

  @Override
  public void pauseTimeout(Duration d) {
    if (d == null || d.isNegative()) {
      throw new IllegalArgumentException("pause timeout must be zero (off) or positive");
    }
    pauseTimeout = d;
  }

  /** Flows paused now, oldest first. */
  @Override
  public List<PausedFlow> pausedFlows() {
    List<PausedFlow> out = new ArrayList<>(paused.values());
    out.sort(Comparator.comparing(PausedFlow::since).thenComparing(p -> p.flow().id()));
    return out;
  }

  /** The paused flow with {@code flowId}, or null. */
  @Override
  public PausedFlow paused(long flowId) {
    return paused.get(flowId);
  }

  @Override
  public AutoCloseable subscribe(PauseListener l) {
    listeners.add(l);
    return () -> listeners.remove(l);
  }

  /** Resumes every paused flow unchanged (the user leaves the app, or switches breakpoints off). */
  @Override
  public int releaseAll() {
    int n = 0;
    for (PausedFlow p : pausedFlows()) {
      if (p.resume()) {
        n++;
      }
    }
    return n;
  }

  /**
   * Engine side: whether anything may want to see or change {@code flow} (its request head is
   * known), and if so the handle the client leg uses for it; null keeps the flow on the relay tier.
   * A rule, breakpoint or intercepting plugin wants a flow when its filter can still match it: atoms
   * about the response or the body are not known yet and count as "maybe".
   */
  public Interception begin(RecordedFlow flow) {
    if (!chain.couldChange(flow)) {
      return null;
    }
    return new Interception(chain, flow);
  }

  /** Pauses {@code flow} at {@code phase} (the breakpoint interceptor); released through the returned handle. */
  BreakpointPause pause(RecordedFlow flow, Flow.Paused phase, RequestDraft request, ResponseDraft response) {
    BreakpointPause p = new BreakpointPause(flow, phase, request, response, this::released);
    flow.paused(phase);
    paused.put(flow.id(), p);
    Duration t = pauseTimeout;
    if (!t.isZero()) {
      timer.schedule(() -> {
        if (!p.released()) {
          p.release(phase == Flow.Paused.REQUEST ? new RequestOutcome.Forward(request)
              : new ResponseOutcome.Deliver(response),
              "breakpoint: timed out after " + t.toMillis() + " ms, resumed unchanged");
        }
      }, t.toMillis(), TimeUnit.MILLISECONDS);
    }
    for (PauseListener l : listeners) {
      l.paused(p);
    }
    return p;
  }

  private void released(BreakpointPause p) {
    paused.remove(p.flow().id(), p);
    for (PauseListener l : listeners) {
      l.released(p);
    }
  }

  /** Releases every pause and stops the timeout timer. */
  @Override
  public void close() {
    plugins.close();
    releaseAll();
    timer.shutdownNow();
  }
}
