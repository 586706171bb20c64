package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.Breakpoint;
import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.flow.Flow;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import java.util.concurrent.CompletionStage;

/**
 * The breakpoints as an interceptor, last in the chain: the first enabled breakpoint for the phase
 * whose filter matches pauses the flow ({@link PausedFlow}), and the hook's stage completes when the
 * user (or the pause timeout) releases it — the SPI's "hold a flow until a stage completes". The
 * release decides the outcome: resumed (edited or not), answered, or aborted; the release itself
 * records its note on the flow ({@code breakpoint: request edited}), so this adds no mark of its own.
 * If the client leaves, the pause is cancelled and the stage fails with a cancellation.
 */
final class BreakpointInterceptor extends BuiltInInterceptor {
  private final DefaultInterceptService service;

  BreakpointInterceptor(DefaultInterceptService service) {
    this.service = service;
  }

  @Override
  public String name() {
    return "breakpoint";
  }

  @Override
  String mark() {
    return null;
  }

  @Override
  public boolean couldChange(Flow flow) {
    InterceptList<Breakpoint> list = service.breakpoints();
    if (!list.active()) {
      return false;
    }
    java.util.List<InterceptList.Compiled<Breakpoint>> compiled = list.compiled();
    for (int i = 0, n = compiled.size(); i < n; i++) { // by index: no iterator per exchange
      InterceptList.Compiled<Breakpoint> b = compiled.get(i);
      if (b.entry().enabled() && b.filter().couldMatch(flow)) {
        return true;
      }
    }
    return false;
  }

  @Override
  boolean wantsRequest(Flow flow) {
    return breakpointFor(flow, Flow.Paused.REQUEST) != null;
  }

  @Override
  boolean wantsResponse(Flow flow) {
    return breakpointFor(flow, Flow.Paused.RESPONSE) != null;
  }

  /** The first enabled breakpoint for {@code phase} whose filter matches {@code flow}, or null. */
  private Breakpoint breakpointFor(Flow flow, Flow.Paused phase) {
    InterceptList<Breakpoint> list = service.breakpoints();
    if (!list.active()) {
      return null;
    }
    for (InterceptList.Compiled<Breakpoint> b : list.compiled()) {
      Breakpoint bp = b.entry();
      if (bp.enabled() && (phase == Flow.Paused.REQUEST ? bp.request() : bp.response()) && b.filter().test(flow)) {
        return bp;
      }
    }
    return null;
  }

  @Override
  public CompletionStage<?> request(RequestHook hook) {
    PluginHooks.Request h = engine(hook);
    BreakpointPause p = service.pause(h.interception().flow(), Flow.Paused.REQUEST, h.draft(), null);
    h.interception().paused(p);
    return p.decision().thenAccept(o -> h.end((RequestOutcome) o));
  }

  @Override
  public CompletionStage<?> response(ResponseHook hook) {
    PluginHooks.Response h = engine(hook);
    Interception ic = h.interception();
    BreakpointPause p = service.pause(ic.flow(), Flow.Paused.RESPONSE, h.sent(), h.draft());
    ic.paused(p);
    return p.decision().thenAccept(o -> h.end((ResponseOutcome) o));
  }
}
