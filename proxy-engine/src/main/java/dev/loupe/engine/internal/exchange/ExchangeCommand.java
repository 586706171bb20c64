package dev.loupe.engine.internal.exchange;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;

/** What the {@link Exchange} asks its legs to do. Legs execute commands in order. */
public sealed interface ExchangeCommand {
  /** Acquire a server-leg connection (from the pool or new) to this origin. */
  record OpenUpstream(String scheme, String host, int port) implements ExchangeCommand {}

  /** proxyToServer: write the request head. */
  record SendRequestHead(RequestHead head) implements ExchangeCommand {}

  /** proxyToServer: forward a body payload as-is. */
  record SendRequestData(Object payload) implements ExchangeCommand {}

  /** proxyToServer: end the request. */
  record SendRequestEnd(Headers trailers) implements ExchangeCommand {}

  /** proxyToClient: write a response head (1xx or final). */
  record SendResponseHead(ResponseHead head) implements ExchangeCommand {}

  /** proxyToClient: forward a body payload as-is. */
  record SendResponseData(Object payload) implements ExchangeCommand {}

  /** proxyToClient: end the response. */
  record SendResponseEnd(Headers trailers) implements ExchangeCommand {}

  /** proxyToClient: answer with an error page naming the cause (502, 504...). */
  record SendErrorResponse(int status, String reason, String detail) implements ExchangeCommand {}

  /** Release a payload that will not be forwarded. */
  record Discard(Object payload) implements ExchangeCommand {}

  /** Both legs switch to WebSocket framing (after a 101 was forwarded). */
  record SwitchToWebSocket() implements ExchangeCommand {}

  /**
   * The origin advertised alternative services ({@code Alt-Svc} fields of a final response head, and
   * its {@code Age}, or null): note them for the server leg's origin (HTTP/3 discovery).
   */
  record AdvertiseAltSvc(java.util.List<String> values, String age) implements ExchangeCommand {
    public AdvertiseAltSvc {
      values = java.util.List.copyOf(values);
    }
  }

  /**
   * Give the server-leg connection back: to the pool when {@code reusable} (the request ended and
   * the origin keeps the connection alive after its response), else close it.
   */
  record ReleaseUpstream(boolean reusable) implements ExchangeCommand {}

  /** Close the client connection: {@code abort} drops it at once (no graceful end of response). */
  record CloseClient(boolean abort) implements ExchangeCommand {}

  /** The exchange is over; the client leg may take its next request. */
  record Finished() implements ExchangeCommand {}
}
