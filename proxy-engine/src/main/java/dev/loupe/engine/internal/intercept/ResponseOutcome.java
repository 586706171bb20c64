package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.ResponseDraft;

/** What happens to an intercepted response once the rules and any breakpoint are done with it. */
public sealed interface ResponseOutcome {
  /** Send {@code response} to the client. */
  record Deliver(ResponseDraft response) implements ResponseOutcome {}

  /** Do not deliver: reset ({@code reset}) or close the client's stream or connection. */
  record Abort(boolean reset, String why) implements ResponseOutcome {}
}
