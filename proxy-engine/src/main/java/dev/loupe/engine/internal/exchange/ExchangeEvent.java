package dev.loupe.engine.internal.exchange;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;

/**
 * What happened on a leg, in protocol-neutral words. Protocol adapters (HTTP/1.1 now, HTTP/2 and
 * HTTP/3 later) translate wire frames into these; the {@link Exchange} turns them into commands.
 * Body payloads are opaque to the exchange: it never reads, copies or releases them, it only hands
 * them back in a command (forward or discard), so buffer ownership stays with the legs.
 */
public sealed interface ExchangeEvent {
  /** The client's request head; {@code webSocketUpgrade} when it asks to switch to WebSocket. */
  record RequestHeadersReceived(RequestHead head, boolean webSocketUpgrade) implements ExchangeEvent {}

  /** A piece of the request body. */
  record RequestDataReceived(Object payload, int length) implements ExchangeEvent {}

  /** The request ended, with trailers (possibly empty). */
  record RequestEnded(Headers trailers) implements ExchangeEvent {}

  /** The server leg is connected and ready for the request. */
  record UpstreamReady(ConnectionInfo connection, String protocol) implements ExchangeEvent {}

  /** The server leg could not be set up (DNS, connect, TLS...). */
  record UpstreamFailed(FlowError error) implements ExchangeEvent {}

  /** A response head (informational or final). */
  record ResponseHeadersReceived(ResponseHead head) implements ExchangeEvent {}

  /** A piece of the response body. */
  record ResponseDataReceived(Object payload, int length) implements ExchangeEvent {}

  /** The response ended, with trailers (possibly empty). */
  record ResponseEnded(Headers trailers) implements ExchangeEvent {}

  /**
   * The server leg failed or closed before the response ended. {@code retryable}: the leg knows the
   * request may safely go again on a fresh connection (a reused keep-alive connection died before
   * any response byte, and the request had no body).
   */
  record UpstreamBroken(FlowError error, boolean retryable) implements ExchangeEvent {
    public UpstreamBroken(FlowError error) {
      this(error, false);
    }
  }

  /**
   * The client went away.
   *
   * @param reason what the client did (e.g. an HTTP/3 stream cancelled), or null for a plain close
   */
  record ClientGone(String reason) implements ExchangeEvent {
    public ClientGone() {
      this(null);
    }
  }

  /**
   * The origin did not send a response head in time.
   *
   * @param detail what the flow's error says, or null for the default ("no response from HOST within
   *               the response timeout")
   */
  record ResponseTimedOut(String detail) implements ExchangeEvent {
    public ResponseTimedOut() {
      this(null);
    }
  }

  /**
   * Full tier: the request is answered without the origin (a rule, or a breakpoint's "answer now").
   * The exchange records {@code head} and asks for it to be sent; the body follows as the leg writes
   * it, then {@link ResponseEnded}.
   */
  record AnsweredLocally(ResponseHead head) implements ExchangeEvent {}

  /** Full tier: a breakpoint or rule stopped the exchange; the leg closes or resets the client. */
  record Aborted(FlowError error) implements ExchangeEvent {}

  /** The WebSocket session that followed a 101 ended (both sides closed). */
  record TunnelClosed() implements ExchangeEvent {}
}
