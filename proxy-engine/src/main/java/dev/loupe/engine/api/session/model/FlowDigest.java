package dev.loupe.engine.api.session.model;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.io.IOException;
import java.util.Objects;

/**
 * What {@link dev.loupe.engine.api.session.SessionDiff} knows of one flow: enough to match it (method, URL) and to compare it
 * (status, heads, body digests, time, failure, WebSocket messages), without its bodies. A session hands these out one
 * at a time ({@link dev.loupe.engine.api.session.Session#digests}), so two big sessions are compared without either being in
 * memory.
 *
 * <p>Heads and bodies are the ones that went over the wire last: for a flow a rule or breakpoint
 * changed, what was sent to the server and what the client got.
 *
 * @param method          the request method, or empty without a request
 * @param url             the request URL ({@code host:port} for a tunnel), or empty
 * @param status          the final response status, or 0 without a response
 * @param responseHeaders the response's headers, or empty without a response
 * @param durationMs      total time, or -1 when unknown (the flow never ended)
 * @param error           the failure ({@code KIND: message}), or null
 * @param errorKind       the failure's kind ({@code CONNECT_REFUSED}), or null
 * @param webSocket       the WebSocket messages ({@link WebSocketDigest#NONE} for other flows)
 */
public record FlowDigest(long id, String method, String url, int status, Headers requestHeaders,
    Headers responseHeaders, BodyDigest requestBody, BodyDigest responseBody, double durationMs, String errorKind,
    String error, WebSocketDigest webSocket) {

  /** A flow without WebSocket messages. */
  public FlowDigest(long id, String method, String url, int status, Headers requestHeaders, Headers responseHeaders,
      BodyDigest requestBody, BodyDigest responseBody, double durationMs, String errorKind, String error) {
    this(id, method, url, status, requestHeaders, responseHeaders, requestBody, responseBody, durationMs, errorKind,
        error, WebSocketDigest.NONE);
  }

  public FlowDigest {
    Objects.requireNonNull(webSocket, "webSocket");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(requestHeaders, "requestHeaders");
    Objects.requireNonNull(responseHeaders, "responseHeaders");
    Objects.requireNonNull(requestBody, "requestBody");
    Objects.requireNonNull(responseBody, "responseBody");
  }

  /** The digest of {@code f} as it is now (its bodies are read and hashed). */
  public static FlowDigest of(Flow f) throws IOException {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    return new FlowDigest(f.id(), req == null ? "" : req.method(), req == null ? "" : req.url(),
        res == null ? 0 : res.status(), req == null ? Headers.EMPTY : req.headers(),
        res == null ? Headers.EMPTY : res.headers(),
        body(req == null ? null : req.headers(), f.requestBody()),
        body(res == null ? null : res.headers(), f.responseBody()),
        f.state() == FlowState.IN_FLIGHT ? -1 : f.timings().totalMs(),
        f.error() == null ? null : f.error().kind().name(), f.error() == null ? null : f.error().toString(),
        f.webSocketMessages().isEmpty() ? WebSocketDigest.NONE : WebSocketDigest.of(f.webSocketMessages()));
  }

  private static BodyDigest body(Headers headers, Body b) throws IOException {
    if (b == null || b.size() == 0) {
      return BodyDigest.EMPTY;
    }
    return BodyDigest.of(headers == null ? null : headers.get("content-encoding"), b.size(), !b.truncated(),
        b::openStream);
  }
}
