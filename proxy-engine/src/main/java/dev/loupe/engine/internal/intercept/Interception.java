package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.util.concurrent.CompletionStage;

/**
 * One flow on the full tier: the client leg hands it the whole request, then the whole response,
 * and carries out the outcomes. Made by {@link DefaultInterceptService#begin}.
 *
 * <p>Both go through the {@link InterceptorChain}: the rules in list order (each recorded on the
 * flow as {@code rule "NAME"}), then the plugins that intercept the flow, then the first matching
 * breakpoint, which pauses it. Every step is an interceptor on the plugin SPI's hooks. Request-side
 * actions: Map Local, Map Remote, Rewrite (request ops), Block, Throttle (the first matching one
 * counts). Response side: Rewrite (response ops). A Map Local or Block answer and a breakpoint's
 * "answer now" still go through the response side.
 */
public final class Interception {
  private final InterceptorChain chain;
  private final RecordedFlow flow;
  private volatile RuleAction.Throttle throttle;
  private volatile BreakpointPause pause;

  Interception(InterceptorChain chain, RecordedFlow flow) {
    this.chain = chain;
    this.flow = flow;
  }

  public RecordedFlow flow() {
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
    return chain.request(this, draft);
  }

  /**
   * Runs the response side for {@code draft} (from the origin, or the answer a request outcome
   * gave); {@code sent} is the request as it went out. Completes like {@link #request}.
   */
  public CompletionStage<ResponseOutcome> response(RequestDraft sent, ResponseDraft draft) {
    return chain.response(this, sent, draft);
  }

  /** The client left: a pending pause ends without an outcome (its stage never completes). */
  public void cancel() {
    BreakpointPause p = pause;
    if (p != null) {
      p.cancel();
    }
  }

  /** Sets the flow's throttle unless one is set; true when {@code t} took effect. */
  boolean throttleIfUnset(RuleAction.Throttle t) {
    if (throttle != null) {
      return false;
    }
    throttle = t;
    return true;
  }

  /** The flow is paused at {@code p} (a later {@link #cancel} ends it). */
  void paused(BreakpointPause p) {
    pause = p;
  }
}
