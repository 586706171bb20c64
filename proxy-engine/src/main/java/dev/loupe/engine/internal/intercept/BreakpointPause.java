package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The engine's {@link PausedFlow}: a flow waiting at a breakpoint, released with an outcome for
 * the interceptor chain.
 *
 * <p>A flow waiting at a breakpoint. Exactly one of the release methods takes effect; the others then
 * return false (the flow was already released, by the user, a timeout, or the client leaving).
 * Release methods may be called from any thread.
 */
final class BreakpointPause implements PausedFlow {
  private final RecordedFlow flow;
  private final Flow.Paused phase;
  private final RequestDraft request;
  private final ResponseDraft response;
  private final Instant since = Instant.now();
  private final CompletableFuture<Object> decision = new CompletableFuture<>();
  private final Consumer<BreakpointPause> onRelease;

  BreakpointPause(RecordedFlow flow, Flow.Paused phase, RequestDraft request, ResponseDraft response,
      Consumer<BreakpointPause> onRelease) {
    this.flow = flow;
    this.phase = phase;
    this.request = request;
    this.response = response;
    this.onRelease = onRelease;
  }

  @Override
  public RecordedFlow flow() {
    return flow;
  }

  /** {@link Flow.Paused#REQUEST} (before the origin) or {@link Flow.Paused#RESPONSE} (before the client). */
  @Override
  public Flow.Paused phase() {
    return phase;
  }

  /** The request as it stands (after rules); in the response phase, the request that was sent. */
  @Override
  public RequestDraft request() {
    return request;
  }

  /** The response as it stands (after rules), or null in the request phase. */
  @Override
  public ResponseDraft response() {
    return response;
  }

  @Override
  public Instant since() {
    return since;
  }

  /** Whether it was released already. */
  @Override
  public boolean released() {
    return decision.isDone();
  }

  /** Lets the flow go on unchanged. */
  @Override
  public boolean resume() {
    return release(phase == Flow.Paused.REQUEST ? new RequestOutcome.Forward(request)
        : new ResponseOutcome.Deliver(response), null);
  }

  /**
   * Request phase: sends {@code edited} upstream instead.
   *
   * @throws IllegalArgumentException when it is the response phase, or the URL or method is invalid
   */
  @Override
  public boolean resume(RequestDraft edited) {
    if (phase != Flow.Paused.REQUEST) {
      throw new IllegalArgumentException("this flow is paused at its response");
    }
    edited.toHead(); // validate before taking effect
    return release(new RequestOutcome.Forward(edited), edited.sameAs(request) ? null : "breakpoint: request edited");
  }

  /**
   * Response phase: sends {@code edited} to the client instead.
   *
   * @throws IllegalArgumentException when it is the request phase
   */
  @Override
  public boolean resume(ResponseDraft edited) {
    if (phase != Flow.Paused.RESPONSE) {
      throw new IllegalArgumentException("this flow is paused at its request");
    }
    return release(new ResponseOutcome.Deliver(edited), edited.sameAs(response) ? null : "breakpoint: response edited");
  }

  /** Answers the client with {@code answer} without (further) contacting the origin. */
  @Override
  public boolean answer(ResponseDraft answer) {
    if (phase == Flow.Paused.RESPONSE) {
      return release(new ResponseOutcome.Deliver(answer), "breakpoint: answered");
    }
    return release(new RequestOutcome.Respond(answer), "breakpoint: answered");
  }

  /** Aborts: the client gets its stream reset (HTTP/2, HTTP/3) or its connection closed (HTTP/1.x). */
  @Override
  public boolean abort() {
    String why = "aborted at a " + (phase == Flow.Paused.REQUEST ? "request" : "response") + " breakpoint";
    return release(phase == Flow.Paused.REQUEST ? new RequestOutcome.Abort(true, why)
        : new ResponseOutcome.Abort(true, why), "breakpoint: aborted");
  }

  /** Ends the pause without an outcome (the client left). */
  void cancel() {
    synchronized (this) {
      if (!decision.cancel(false)) {
        return;
      }
      flow.paused(null);
    }
    onRelease.accept(this);
  }

  boolean release(Object outcome, String note) {
    synchronized (this) {
      if (decision.isDone()) {
        return false;
      }
      if (note != null) {
        flow.modifiedBy(note);
      }
      flow.paused(null);
      decision.complete(outcome);
    }
    onRelease.accept(this);
    return true;
  }

  CompletableFuture<Object> decision() {
    return decision;
  }

  @Override
  public String toString() {
    return "paused " + phase.name().toLowerCase() + " of flow #" + flow.id();
  }
}
