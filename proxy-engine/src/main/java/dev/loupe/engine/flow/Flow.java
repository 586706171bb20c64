package dev.loupe.engine.flow;

import java.time.Instant;
import java.util.List;

/**
 * What Loupe records about one exchange (or one tunnel): heads, bodies, timings, connection and
 * TLS details, WebSocket messages, the tier, and an error when it failed.
 *
 * <p>This is the read-only view the UI, the control API and plugins get: it has no method that
 * changes the flow. The engine records through its own implementation (an internal recorder); a
 * flow read back from a session or a HAR is built the same way.
 *
 * <h3>Threads</h3>
 * The engine writes a flow from the event loop that owns the exchange. Any thread may read: every
 * write is followed by a {@link FlowStore} event, so a listener reading a flow after an event sees
 * at least that event's state.
 */
public interface Flow {
  /** Where a flow waits at a breakpoint (see {@link #paused()}). */
  enum Paused { REQUEST, RESPONSE }

  /** Unique within this Loupe process, increasing in order of arrival. */
  long id();

  /** Wall-clock time the request (or CONNECT) arrived. */
  Instant startedAt();

  Timings timings();

  Body requestBody();

  Body responseBody();

  /** 1xx responses relayed before the final response, in order. */
  List<ResponseHead> informationalResponses();

  List<WebSocketMessage> webSocketMessages();

  FlowState state();

  FlowTier tier();

  /** e.g. {@code HTTP/1.1}; for a tunnel, what the client spoke if known. */
  String clientProtocol();

  /** e.g. {@code HTTP/1.1}, or null when no upstream exchange happened. */
  String serverProtocol();

  ConnectionInfo clientConnection();

  ConnectionInfo serverConnection();

  RequestHead request();

  /** The final response head, or null. */
  ResponseHead response();

  Headers requestTrailers();

  Headers responseTrailers();

  FlowError error();

  boolean isWebSocket();

  /** Close code from the first close frame seen, or -1. */
  int webSocketCloseCode();

  String webSocketCloseReason();

  long tunnelBytesClientToServer();

  long tunnelBytesServerToClient();

  default boolean isTunnel() {
    return tier() == FlowTier.TUNNEL;
  }

  /** HTTP/2 (or HTTP/3) stream id on the client leg, or -1 for HTTP/1.x. */
  int clientStreamId();

  /** HTTP/2 (or HTTP/3) stream id on the server leg, or -1 for HTTP/1.x. */
  int serverStreamId();

  /** HTTP/3 client leg: Loupe's QUIC connection id for that connection (hex), or null. */
  String clientQuicConnectionId();

  /** Loupe's QUIC connection id towards the origin (hex) when the server leg spoke HTTP/3, else null. */
  String serverQuicConnectionId();

  /**
   * Why the server leg did or did not use HTTP/3 (https origins), e.g. {@code Alt-Svc h3=":443"},
   * {@code no Alt-Svc}, {@code QUIC failed: ...; fell back to TCP}, {@code h3 marked broken until ...},
   * {@code forced off (--upstream-protocol h2)}, {@code forced (--upstream-protocol h3)}; null when
   * not considered (cleartext origins, tunnels).
   */
  String http3Status();

  /**
   * What changed this flow, in order: {@code rule "name"} for each rule that applied,
   * {@code breakpoint (request): edited} and the like for user edits. Empty for untouched flows.
   * Read-only.
   */
  List<String> modifiedBy();

  /** Problems met along the way that did not fail the flow (a plugin hook that threw or hung). Read-only. */
  List<String> notes();

  /** The request as the client sent it, when a rule or breakpoint changed it; else null ({@link #request()} is both). */
  RequestHead originalRequest();

  /** The request body as the client sent it, when it was changed; else null. */
  Body originalRequestBody();

  /** The response as the origin sent it, when a rule or breakpoint changed it; else null. */
  ResponseHead originalResponse();

  /** The response body as the origin sent it, when it was changed; else null. */
  Body originalResponseBody();

  /** Where the flow waits at a breakpoint right now, or null when it is not paused. */
  Paused paused();

  /** The id of the flow this one replays, or -1. */
  long replayOf();

  /**
   * Which client Loupe launched sent this flow (a browser or terminal started from Loupe, e.g.
   * {@code Chromium}), or null for any other client. Set once, before the flow is published.
   */
  String client();

  /** Heap bytes held by this flow's captured bodies and messages (approximate). */
  long memoryFootprint();
}
