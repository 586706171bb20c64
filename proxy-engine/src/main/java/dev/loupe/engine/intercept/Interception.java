package dev.loupe.engine.intercept;

import dev.loupe.engine.flow.Flow;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One flow on the full tier: the client leg hands it the whole request, then the whole response,
 * and carries out the outcomes. Made by {@link InterceptService#begin}.
 *
 * <p>Rules apply in list order, each recorded on the flow as {@code rule "NAME"}; then the first
 * matching breakpoint pauses the flow; plugins that intercept the flow run between the two
 * ({@link PluginHost}). Request-side actions: Map Local, Map Remote, Rewrite (request
 * ops), Block, Throttle (the first matching one counts). Response side: Rewrite (response ops).
 * A Map Local or Block answer and a breakpoint's "answer now" still go through the response side.
 */
public final class Interception {
  private final InterceptService service;
  private final Flow flow;
  private RuleAction.Throttle throttle;
  private volatile PausedFlow pause;

  Interception(InterceptService service, Flow flow) {
    this.service = service;
    this.flow = flow;
  }

  public Flow flow() {
    return flow;
  }

  /** The throttle that applies to this flow (set by {@link #request}), or null. */
  public RuleAction.Throttle throttle() {
    return throttle;
  }

  /**
   * Runs the request side. The stage completes on the calling thread when nothing pauses, else on
   * the thread that releases the pause (any thread): callers hop back to their own.
   */
  public CompletionStage<RequestOutcome> request(RequestDraft draft) {
    RequestDraft d = draft;
    if (service.rules().active()) {
      for (InterceptList.Compiled<Rule> c : service.rules().compiled()) {
        Rule r = c.entry();
        if (!r.enabled() || !c.filter().test(flow)) {
          continue;
        }
        RuleAction a = r.action();
        if (a instanceof RuleAction.MapLocal ml) {
          applied(r);
          return CompletableFuture.completedFuture(new RequestOutcome.Respond(RuleEffects.mapLocal(ml, d)));
        } else if (a instanceof RuleAction.Block b) {
          applied(r);
          return CompletableFuture.completedFuture(switch (b.mode()) {
            case RESPOND -> new RequestOutcome.Respond(
                ResponseDraft.text(b.status(), "Blocked by Loupe rule \"" + r.name() + "\"\n"));
            case CLOSE -> new RequestOutcome.Abort(false, "blocked by rule \"" + r.name() + "\"");
            case RESET -> new RequestOutcome.Abort(true, "blocked by rule \"" + r.name() + "\"");
          });
        } else if (a instanceof RuleAction.MapRemote mr) {
          d = RuleEffects.mapRemote(mr, d);
          applied(r);
        } else if (a instanceof RuleAction.Rewrite rw) {
          RequestDraft next = RuleEffects.rewriteRequest(rw, d);
          if (next != d) {
            d = next;
            applied(r);
          }
        } else if (a instanceof RuleAction.Throttle t && throttle == null) {
          throttle = t;
          applied(r);
        }
      }
    }
    return service.plugins().request(flow, d).thenCompose(outcome -> {
      if (!(outcome instanceof RequestOutcome.Forward fw)
          || service.breakpointFor(flow, Flow.Paused.REQUEST) == null) {
        return CompletableFuture.completedFuture(outcome);
      }
      PausedFlow p = service.pause(flow, Flow.Paused.REQUEST, fw.request(), null);
      pause = p;
      return p.decision().thenApply(o -> (RequestOutcome) o);
    });
  }

  /**
   * Runs the response side for {@code draft} (from the origin, or the answer a request outcome
   * gave); {@code sent} is the request as it went out. Completes like {@link #request}.
   */
  public CompletionStage<ResponseOutcome> response(RequestDraft sent, ResponseDraft draft) {
    ResponseDraft d = draft;
    if (service.rules().active()) {
      for (InterceptList.Compiled<Rule> c : service.rules().compiled()) {
        Rule r = c.entry();
        if (r.enabled() && r.action() instanceof RuleAction.Rewrite rw && RuleEffects.hasResponseOps(rw)
            && c.filter().test(flow)) {
          ResponseDraft next = RuleEffects.rewriteResponse(rw, d);
          if (next != d) {
            d = next;
            applied(r);
          }
        }
      }
    }
    return service.plugins().response(flow, sent, d).thenCompose(outcome -> {
      if (!(outcome instanceof ResponseOutcome.Deliver dl)
          || service.breakpointFor(flow, Flow.Paused.RESPONSE) == null) {
        return CompletableFuture.completedFuture(outcome);
      }
      PausedFlow p = service.pause(flow, Flow.Paused.RESPONSE, sent, dl.response());
      pause = p;
      return p.decision().thenApply(o -> (ResponseOutcome) o);
    });
  }

  /** The client left: a pending pause ends without an outcome (its stage never completes). */
  public void cancel() {
    PausedFlow p = pause;
    if (p != null) {
      p.cancel();
    }
  }

  /** Records that {@code r} changed the flow (once, even when it changes both request and response). */
  private void applied(Rule r) {
    String note = "rule \"" + r.name() + "\"";
    if (!flow.modifiedBy().contains(note)) {
      flow.modifiedBy(note);
    }
  }
}
