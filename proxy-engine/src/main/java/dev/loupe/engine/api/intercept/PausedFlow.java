package dev.loupe.engine.api.intercept;

import dev.loupe.engine.flow.Flow;
import java.time.Instant;

/**
 * A flow waiting at a breakpoint. Exactly one of the release methods takes effect; the others then
 * return false (the flow was already released, by the user, a timeout, or the client leaving).
 * Release methods may be called from any thread.
 */
public interface PausedFlow {
  Flow flow();

  /** {@link Flow.Paused#REQUEST} (before the origin) or {@link Flow.Paused#RESPONSE} (before the client). */
  Flow.Paused phase();

  /** The request as it stands (after rules); in the response phase, the request that was sent. */
  RequestDraft request();

  /** The response as it stands (after rules), or null in the request phase. */
  ResponseDraft response();

  Instant since();

  /** Whether it was released already. */
  boolean released();

  /** Lets the flow go on unchanged. */
  boolean resume();

  /**
   * Request phase: sends {@code edited} upstream instead.
   *
   * @throws IllegalArgumentException when it is the response phase, or the URL or method is invalid
   */
  boolean resume(RequestDraft edited);

  /**
   * Response phase: sends {@code edited} to the client instead.
   *
   * @throws IllegalArgumentException when it is the request phase
   */
  boolean resume(ResponseDraft edited);

  /** Answers the client with {@code answer} without (further) contacting the origin. */
  boolean answer(ResponseDraft answer);

  /** Aborts: the client gets its stream reset (HTTP/2, HTTP/3) or its connection closed (HTTP/1.x). */
  boolean abort();
}
