package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Flow;
import java.util.concurrent.CompletionStage;

/**
 * One step of the full tier's interception pipeline ({@link InterceptorChain}). The built-in rules
 * ({@link RuleInterceptor}) and breakpoints ({@link BreakpointInterceptor}) and the session's plugins
 * ({@link PluginInterceptors}) each take this shape; all of them change flows through the SPI's
 * {@code request}/{@code response} hooks ({@link PluginHooks}).
 */
interface Interceptor {
  /**
   * The tier decision: whether this may change {@code flow}, whose request head is known (atoms
   * about the response or the bodies count as "maybe"). Called on event loops for every flow: no
   * blocking, no allocation.
   */
  boolean couldChange(Flow flow);

  /**
   * Its request side, for {@code draft} (the request as the steps before left it). Completes with the
   * outcome ({@code Forward(draft)} when it leaves the request alone), at once on the calling thread
   * unless something holds the flow, else on the thread that lets it go. A built-in step's failure
   * fails the stage (the full tier answers 500); a plugin's is recorded and the flow goes on unchanged.
   */
  CompletionStage<RequestOutcome> interceptRequest(Interception ic, RequestDraft draft);

  /** Like {@link #interceptRequest}, for the response; {@code sent} is the request as it went out. */
  CompletionStage<ResponseOutcome> interceptResponse(Interception ic, RequestDraft sent, ResponseDraft draft);
}
