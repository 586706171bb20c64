package dev.loupe.engine.api.intercept;

import dev.loupe.engine.flow.Flow;
import java.util.concurrent.CompletionStage;

/**
 * Sends a request from Loupe itself (replay, composer): the result is recorded as a new flow, linked
 * to the flow it replays ({@link Flow#replayOf()}). The request goes out exactly as given: rules and
 * breakpoints do not apply to it.
 */
public interface Replayer {
  /** Which protocol the server leg speaks. */
  enum Protocol {
    /** What the origin offers (ALPN h2 or HTTP/1.1; HTTP/3 when it advertises it). */
    AUTO, H1, H2, H3
  }

  /**
   * Sends {@code request} and completes with the recorded flow when the exchange ends (normally or
   * with the failure recorded on the flow); never completes exceptionally for network failures.
   *
   * @param replayOf the id of the flow this replays, or -1 for a composed request
   * @throws IllegalArgumentException (synchronously) when the request cannot be sent (bad URL, method)
   */
  CompletionStage<Flow> send(RequestDraft request, Protocol protocol, long replayOf);
}
