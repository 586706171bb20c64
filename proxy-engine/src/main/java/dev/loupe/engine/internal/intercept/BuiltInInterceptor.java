package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A feature of Loupe's own written as a {@link Plugin}: its {@code request} and {@code response}
 * hooks get the same hook objects plugins get and hold a flow the same way (a {@link CompletionStage}
 * completed later). What differs from a plugin is how it is run: inline, on the caller's thread,
 * without a thread of its own or a hook timeout (a built-in neither hangs nor needs isolating), and
 * a failure is not swallowed: it fails the flow's interception (the full tier answers 500 naming it).
 *
 * <p>Subclasses say which flows they may change ({@link #couldChange}) and which they act on now
 * ({@link #wantsRequest}, {@link #wantsResponse}); hooks run only for those. Engine-only abilities
 * (a whole computed draft, any outcome, a throttle) are reached through {@link #engine}.
 */
abstract class BuiltInInterceptor implements Plugin, Interceptor {
  /** What a change by this interceptor is recorded as on the flow, or null when it records its own notes. */
  abstract String mark();

  /** Whether the request hook runs for {@code flow} now (its request head known; the body collected). */
  abstract boolean wantsRequest(Flow flow);

  /** Whether the response hook runs for {@code flow} now (the response collected). */
  abstract boolean wantsResponse(Flow flow);

  @Override
  public final CompletionStage<RequestOutcome> interceptRequest(Interception ic, RequestDraft draft) {
    if (!wantsRequest(ic.flow())) {
      return CompletableFuture.completedFuture(new RequestOutcome.Forward(draft));
    }
    PluginHooks.Request hook = PluginHooks.Request.inFlight(ic, draft, name());
    CompletionStage<?> held = request(hook);
    if (held == null) {
      return CompletableFuture.completedFuture(hook.finish(mark()));
    }
    return held.thenApply(v -> hook.finish(mark()));
  }

  @Override
  public final CompletionStage<ResponseOutcome> interceptResponse(Interception ic, RequestDraft sent,
      ResponseDraft draft) {
    if (!wantsResponse(ic.flow())) {
      return CompletableFuture.completedFuture(new ResponseOutcome.Deliver(draft));
    }
    PluginHooks.Response hook = PluginHooks.Response.inFlight(ic, sent, draft, name());
    CompletionStage<?> held = response(hook);
    if (held == null) {
      return CompletableFuture.completedFuture(hook.finish(mark()));
    }
    return held.thenApply(v -> hook.finish(mark()));
  }

  /** The engine's side of a hook this interceptor was given. */
  static PluginHooks.Request engine(RequestHook hook) {
    return (PluginHooks.Request) hook;
  }

  static PluginHooks.Response engine(ResponseHook hook) {
    return (PluginHooks.Response) hook;
  }
}
