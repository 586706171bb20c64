package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The session's plugins as one step of the {@link InterceptorChain}: the plugins whose filter
 * matches a flow run their {@code request} / {@code response} hooks in load order, each on its own
 * thread ({@link PluginEntry#inFlight}), before the message goes on. A hook that fails or times out
 * leaves the message as it was; a change is recorded on the flow as {@code plugin "NAME"}.
 *
 * <p>The plugins that intercept a flow's request are noted ({@link PluginObservers#claim}) so they
 * are not handed the same flow again, read-only, when it completes.
 */
final class PluginInterceptors implements Interceptor {
  private final List<PluginEntry> entries;
  private final PluginObservers observers;

  PluginInterceptors(List<PluginEntry> entries, PluginObservers observers) {
    this.entries = entries;
    this.observers = observers;
  }

  /** Whether any enabled plugin may change {@code flow} (its filter can still match it). */
  @Override
  public boolean couldChange(Flow flow) {
    if (entries.isEmpty()) {
      return false; // no iterator per exchange when no plugin is loaded
    }
    for (PluginEntry e : entries) {
      Filter f = e.filter;
      if (e.enabled && f != null && f.couldMatch(flow)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs the {@code request} hooks of the plugins intercepting the flow, in order; completes with the
   * outcome, at once on the caller's thread when none does.
   */
  @Override
  public CompletionStage<RequestOutcome> interceptRequest(Interception ic, RequestDraft draft) {
    RecordedFlow flow = ic.flow();
    CompletionStage<RequestOutcome> stage = CompletableFuture.completedFuture(new RequestOutcome.Forward(draft));
    for (PluginEntry e : entries) {
      Filter f = e.filter;
      if (!e.enabled || f == null || !f.test(flow)) {
        continue;
      }
      observers.claim(flow);
      if (!e.overrides("request")) {
        continue; // it changes only responses: nothing to ask now
      }
      stage = stage.thenCompose(outcome -> {
        if (!(outcome instanceof RequestOutcome.Forward fw)) {
          return CompletableFuture.completedFuture(outcome); // answered or killed by an earlier plugin
        }
        PluginHooks.Request hook = PluginHooks.Request.inFlight(ic, fw.request(), e.safeName());
        return e.inFlight("request", flow, () -> e.plugin.request(hook))
            .thenApply(ok -> ok ? hook.finish(e.mark()) : outcome);
      });
    }
    return stage;
  }

  @Override
  public CompletionStage<ResponseOutcome> interceptResponse(Interception ic, RequestDraft sent, ResponseDraft draft) {
    RecordedFlow flow = ic.flow();
    CompletionStage<ResponseOutcome> stage = CompletableFuture.completedFuture(new ResponseOutcome.Deliver(draft));
    for (PluginEntry e : entries) {
      Filter f = e.filter;
      if (!e.enabled || f == null || !f.test(flow) || !e.overrides("response")) {
        continue;
      }
      stage = stage.thenCompose(outcome -> {
        if (!(outcome instanceof ResponseOutcome.Deliver d)) {
          return CompletableFuture.completedFuture(outcome);
        }
        PluginHooks.Response hook = PluginHooks.Response.inFlight(ic, sent, d.response(), e.safeName());
        return e.inFlight("response", flow, () -> e.plugin.response(hook))
            .thenApply(ok -> ok ? hook.finish(e.mark()) : outcome);
      });
    }
    return stage;
  }
}
