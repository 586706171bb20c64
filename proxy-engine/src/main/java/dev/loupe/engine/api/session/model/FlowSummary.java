package dev.loupe.engine.api.session.model;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a flow table row shows, read from a session's columns (no heads, no bodies), or from a live
 * flow with {@link #of(Flow)}; both give the same values for the same flow.
 *
 * @param path            the request target ({@code /a?b}); {@code host:port} for a tunnel; empty without a request
 * @param status          the final response status, or 0 without one
 * @param contentType     the response's media type without parameters, or empty
 * @param size            response body bytes seen (a tunnel: bytes both ways)
 * @param durationMs      total time, or -1 while in flight
 * @param clientProtocol  e.g. {@code HTTP/2}, or null
 * @param serverProtocol  e.g. {@code HTTP/1.1}, or null
 * @param error           the failure ({@code KIND: message}), or null
 * @param modifiedBy      what changed the flow (rules, breakpoints), in order; empty when untouched
 * @param replayOf        the flow this one replays, or -1
 * @param imported        whether the flow came from a file (HAR) rather than through this proxy
 * @param client          which launched browser or terminal sent it ({@link Flow#client()}), or null
 */
public record FlowSummary(long id, Instant startedAt, String method, String host, String path, String url,
    int status, String contentType, long size, double durationMs, String clientProtocol, String serverProtocol,
    FlowTier tier, FlowState state, String error, List<String> modifiedBy, long replayOf, boolean webSocket,
    boolean imported, String client) {

  public FlowSummary {
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(tier, "tier");
    Objects.requireNonNull(state, "state");
    modifiedBy = List.copyOf(modifiedBy);
  }

  /** The summary of {@code f} as it is now. */
  public static FlowSummary of(Flow f) {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    String type = res == null ? null : res.headers().get("content-type");
    long size = f.isTunnel() ? f.tunnelBytesClientToServer() + f.tunnelBytesServerToClient() : f.responseBody().size();
    return new FlowSummary(f.id(), f.startedAt(),
        req == null ? "" : req.method(),
        req == null ? "" : req.host(),
        path(req, f.tier()),
        req == null ? "" : req.url(),
        res == null ? 0 : res.status(),
        mediaType(type),
        size,
        f.state() == FlowState.IN_FLIGHT ? -1 : f.timings().totalMs(),
        f.clientProtocol(), f.serverProtocol(), f.tier(), f.state(),
        f.error() == null ? null : f.error().toString(),
        List.copyOf(f.modifiedBy()), f.replayOf(), f.isWebSocket(), false, f.client());
  }

  /** What the Path column shows: the target, or {@code host:port} for a tunnel. */
  public static String path(RequestHead req, FlowTier tier) {
    return req == null ? "" : tier == FlowTier.TUNNEL ? req.authority() : req.target();
  }

  /** {@code application/json} of {@code application/json; charset=utf-8}; empty for null. */
  public static String mediaType(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    return semicolon >= 0 ? contentType.substring(0, semicolon).trim() : contentType;
  }
}
