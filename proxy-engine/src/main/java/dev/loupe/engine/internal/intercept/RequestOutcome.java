package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;

/** What happens to an intercepted request once the rules and any breakpoint are done with it. */
public sealed interface RequestOutcome {
  /** Send {@code request} upstream (possibly to another place than the client asked). */
  record Forward(RequestDraft request) implements RequestOutcome {}

  /** Answer the client with {@code response}; the origin is not contacted. */
  record Respond(ResponseDraft response) implements RequestOutcome {}

  /**
   * Give the client an error instead: {@code reset} resets (TCP RST, RST_STREAM, H3 stream reset),
   * otherwise the connection (HTTP/1.x) or stream (HTTP/2, HTTP/3) is closed.
   */
  record Abort(boolean reset, String why) implements RequestOutcome {}
}
