package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.flow.Flow;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The interception pipeline of the full tier: every {@link Interceptor} in the order it runs — the
 * enabled rules in list order ({@link RuleInterceptor}), the plugins ({@link PluginInterceptors}),
 * the breakpoints ({@link BreakpointInterceptor}). A request goes from step to step while it is
 * forwarded; an answer or an abort ends the side (later steps are not asked). The same steps decide
 * the tier: a flow no step could change stays on the relay tier ({@link #couldChange}).
 *
 * <p>Thread-safe. The rule steps are rebuilt when the rule list changes (a new snapshot of it), not
 * per flow, so the tier decision allocates nothing.
 */
final class InterceptorChain {
  /** The rule steps made from one snapshot of the rule list. */
  private record RuleSteps(List<InterceptList.Compiled<Rule>> source, List<RuleInterceptor> steps) {}

  private final DefaultInterceptService service;
  private final BreakpointInterceptor breakpoints;
  private volatile RuleSteps rules = new RuleSteps(List.of(), List.of());

  InterceptorChain(DefaultInterceptService service) {
    this.service = service;
    this.breakpoints = new BreakpointInterceptor(service);
  }

  /** Whether any step may change {@code flow} (its request head is known): the full tier's test. */
  boolean couldChange(Flow flow) {
    if (service.rules().active()) {
      List<RuleInterceptor> steps = ruleSteps();
      for (int i = 0, n = steps.size(); i < n; i++) { // by index: no iterator per exchange
        if (steps.get(i).couldChange(flow)) {
          return true;
        }
      }
    }
    return breakpoints.couldChange(flow) || service.plugins().interceptors().couldChange(flow);
  }

  /** The steps in the order they run now. */
  List<Interceptor> steps() {
    List<Interceptor> out = new ArrayList<>();
    if (service.rules().active()) {
      out.addAll(ruleSteps());
    }
    out.add(service.plugins().interceptors());
    out.add(breakpoints);
    return out;
  }

  CompletionStage<RequestOutcome> request(Interception ic, RequestDraft draft) {
    CompletionStage<RequestOutcome> stage = CompletableFuture.completedFuture(new RequestOutcome.Forward(draft));
    for (Interceptor step : steps()) {
      stage = stage.thenCompose(outcome -> outcome instanceof RequestOutcome.Forward fw
          ? step.interceptRequest(ic, fw.request()) : CompletableFuture.completedFuture(outcome));
    }
    return stage;
  }

  CompletionStage<ResponseOutcome> response(Interception ic, RequestDraft sent, ResponseDraft draft) {
    CompletionStage<ResponseOutcome> stage = CompletableFuture.completedFuture(new ResponseOutcome.Deliver(draft));
    for (Interceptor step : steps()) {
      stage = stage.thenCompose(outcome -> outcome instanceof ResponseOutcome.Deliver d
          ? step.interceptResponse(ic, sent, d.response()) : CompletableFuture.completedFuture(outcome));
    }
    return stage;
  }

  private List<RuleInterceptor> ruleSteps() {
    List<InterceptList.Compiled<Rule>> now = service.rules().compiled();
    RuleSteps r = rules;
    if (r.source() != now) {
      List<RuleInterceptor> steps = new ArrayList<>(now.size());
      for (InterceptList.Compiled<Rule> c : now) {
        if (c.entry().enabled()) {
          steps.add(new RuleInterceptor(c.entry(), c.filter()));
        }
      }
      r = new RuleSteps(now, List.copyOf(steps));
      rules = r;
    }
    return r.steps();
  }
}
