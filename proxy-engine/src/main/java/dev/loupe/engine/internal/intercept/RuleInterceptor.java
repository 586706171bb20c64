package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import java.util.concurrent.CompletionStage;

/**
 * One enabled {@link Rule} as an interceptor: its filter decides the flows it may change, its action
 * ({@link RuleEffects}) is applied through the request and response hooks, and each change is
 * recorded on the flow as {@code rule "NAME"} (once, even when it changes both sides).
 *
 * <p>Request side: Map Local and Block end the request (an answer, or an abort); Map Remote and
 * Rewrite change it; Throttle sets the flow's throttle (the first matching throttle counts). Response
 * side: Rewrite's response operations only. Immutable; made per rule list ({@link InterceptorChain}).
 */
final class RuleInterceptor extends BuiltInInterceptor {
  private final Rule rule;
  private final Filter filter;
  private final String mark;
  private final boolean responseSide;

  RuleInterceptor(Rule rule, Filter filter) {
    this.rule = rule;
    this.filter = filter;
    this.mark = "rule \"" + rule.name() + "\"";
    this.responseSide = rule.action() instanceof RuleAction.Rewrite rw && RuleEffects.hasResponseOps(rw);
  }

  @Override
  public String name() {
    return rule.name();
  }

  @Override
  public String interceptFilter() {
    return rule.filter();
  }

  @Override
  String mark() {
    return mark;
  }

  @Override
  public boolean couldChange(Flow flow) {
    return filter.couldMatch(flow);
  }

  @Override
  boolean wantsRequest(Flow flow) {
    return filter.test(flow);
  }

  @Override
  boolean wantsResponse(Flow flow) {
    return responseSide && filter.test(flow);
  }

  @Override
  public CompletionStage<?> request(RequestHook hook) {
    PluginHooks.Request h = engine(hook);
    RuleAction a = rule.action();
    if (a instanceof RuleAction.MapLocal ml) {
      h.end(new RequestOutcome.Respond(RuleEffects.mapLocal(ml, h.draft())));
    } else if (a instanceof RuleAction.Block b) {
      h.end(switch (b.mode()) {
        case RESPOND -> new RequestOutcome.Respond(
            ResponseDraft.text(b.status(), "Blocked by Loupe rule \"" + rule.name() + "\"\n"));
        case CLOSE -> new RequestOutcome.Abort(false, "blocked by rule \"" + rule.name() + "\"");
        case RESET -> new RequestOutcome.Abort(true, "blocked by rule \"" + rule.name() + "\"");
      });
    } else if (a instanceof RuleAction.MapRemote mr) {
      h.replace(RuleEffects.mapRemote(mr, h.draft()));
      h.applied(); // recorded even when it maps to where the request went anyway
    } else if (a instanceof RuleAction.Rewrite rw) {
      h.replace(RuleEffects.rewriteRequest(rw, h.draft())); // recorded only when it changed something
    } else if (a instanceof RuleAction.Throttle t && h.throttle(t)) {
      h.applied();
    }
    return null;
  }

  @Override
  public CompletionStage<?> response(ResponseHook hook) {
    if (rule.action() instanceof RuleAction.Rewrite rw) {
      PluginHooks.Response h = engine(hook);
      h.replace(RuleEffects.rewriteResponse(rw, h.draft()));
    }
    return null;
  }

  @Override
  public String toString() {
    return mark;
  }
}
