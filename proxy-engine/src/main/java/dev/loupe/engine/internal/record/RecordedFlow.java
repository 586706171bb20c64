package dev.loupe.engine.internal.record;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ClientLabels;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.WebSocketMessage;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The engine's side of a {@link Flow}: the one implementation, with the methods that record it.
 * The client and server legs, the interceptor chain, replay and the session store (reading flows
 * back from a file or a HAR) write through these; everything outside the engine sees the read-only
 * {@link Flow}, whose lists are unmodifiable views.
 *
 * <h3>Threads</h3>
 * The engine writes a flow from the event loop that owns the exchange; the setters are for the
 * engine. Any thread may read: fields are volatile or thread-safe collections, and every write is
 * followed by a {@link FlowStore} event, so a listener reading a flow after an event sees at least
 * that event's state.
 */
public final class RecordedFlow implements Flow {
  private final long id;
  /** {@link #id} boxed once: the store's map keys on it several times per flow. */
  private final Long key;
  private final Instant startedAt;
  private final RecordedTimings timings = new RecordedTimings();
  private volatile RecordedBody requestBody;
  private volatile RecordedBody responseBody;
  // The four lists below are made on their first element: most flows never have one, and four
  // empty CopyOnWriteArrayLists cost every relayed request ~200 bytes.
  private volatile List<ResponseHead> informational;
  private volatile List<WebSocketMessage> webSocketMessages;

  private volatile FlowState state = FlowState.IN_FLIGHT;
  private volatile FlowTier tier = FlowTier.RELAY;
  private volatile String clientProtocol;
  private volatile String serverProtocol;
  private volatile ConnectionInfo clientConnection;
  private volatile ConnectionInfo serverConnection;
  private volatile RequestHead request;
  private volatile ResponseHead response;
  private volatile Headers requestTrailers = Headers.EMPTY;
  private volatile Headers responseTrailers = Headers.EMPTY;
  private volatile FlowError error;
  private volatile boolean webSocket;
  private volatile int webSocketCloseCode = -1;
  private volatile String webSocketCloseReason;
  private volatile long tunnelBytesClientToServer;
  private volatile long tunnelBytesServerToClient;
  private volatile int clientStreamId = -1;
  private volatile int serverStreamId = -1;
  private volatile String clientQuicConnectionId;
  private volatile String serverQuicConnectionId;
  private volatile String http3Status;
  private volatile List<String> modifiedBy;
  private volatile List<String> notes;
  private volatile RequestHead originalRequest;
  private volatile RecordedBody originalRequestBody;
  private volatile ResponseHead originalResponse;
  private volatile RecordedBody originalResponseBody;
  private volatile Paused paused;
  private volatile long replayOf = -1;
  private volatile String client;

  /**
   * {@code flow} as the engine records it: every flow in a {@link FlowStore} the engine fills is
   * one of these.
   *
   * @throws IllegalArgumentException for a flow made elsewhere
   */
  public static RecordedFlow of(Flow flow) {
    if (flow instanceof RecordedFlow r) {
      return r;
    }
    throw new IllegalArgumentException("not a flow the engine recorded: " + flow);
  }

  public RecordedFlow(long id, Instant startedAt, CapturePolicy capture) {
    this(id, startedAt, capture, capture);
  }

  /**
   * A flow whose request and response bodies are captured under policies of their own (a flow read
   * back from a session: each body comes back with exactly the bytes that were kept of it).
   */
  public RecordedFlow(long id, Instant startedAt, CapturePolicy requestCapture, CapturePolicy responseCapture) {
    this.id = id;
    this.key = id;
    this.startedAt = Objects.requireNonNull(startedAt, "startedAt");
    this.requestBody = new RecordedBody(requestCapture);
    this.responseBody = new RecordedBody(responseCapture);
  }

  /** Unique within this Loupe process, increasing in order of arrival. */
  @Override
  public long id() { return id; }

  /** {@link #id()} as the store's map key (the same object every time). */
  public Long key() { return key; }

  /** Wall-clock time the request (or CONNECT) arrived. */
  @Override
  public Instant startedAt() { return startedAt; }

  @Override
  public RecordedTimings timings() { return timings; }

  @Override
  public RecordedBody requestBody() { return requestBody; }

  @Override
  public RecordedBody responseBody() { return responseBody; }

  /** 1xx responses relayed before the final response, in order. */
  @Override
  public List<ResponseHead> informationalResponses() { return view(informational); }

  @Override
  public List<WebSocketMessage> webSocketMessages() { return view(webSocketMessages); }

  @Override
  public FlowState state() { return state; }

  @Override
  public FlowTier tier() { return tier; }

  /** e.g. {@code HTTP/1.1}; for a tunnel, what the client spoke if known. */
  @Override
  public String clientProtocol() { return clientProtocol; }

  /** e.g. {@code HTTP/1.1}, or null when no upstream exchange happened. */
  @Override
  public String serverProtocol() { return serverProtocol; }

  @Override
  public ConnectionInfo clientConnection() { return clientConnection; }

  @Override
  public ConnectionInfo serverConnection() { return serverConnection; }

  @Override
  public RequestHead request() { return request; }

  /** The final response head, or null. */
  @Override
  public ResponseHead response() { return response; }

  @Override
  public Headers requestTrailers() { return requestTrailers; }

  @Override
  public Headers responseTrailers() { return responseTrailers; }

  @Override
  public FlowError error() { return error; }

  @Override
  public boolean isWebSocket() { return webSocket; }

  /** Close code from the first close frame seen, or -1. */
  @Override
  public int webSocketCloseCode() { return webSocketCloseCode; }

  @Override
  public String webSocketCloseReason() { return webSocketCloseReason; }

  @Override
  public long tunnelBytesClientToServer() { return tunnelBytesClientToServer; }

  @Override
  public long tunnelBytesServerToClient() { return tunnelBytesServerToClient; }

  /** HTTP/2 (or HTTP/3) stream id on the client leg, or -1 for HTTP/1.x. */
  @Override
  public int clientStreamId() { return clientStreamId; }

  /** HTTP/2 (or HTTP/3) stream id on the server leg, or -1 for HTTP/1.x. */
  @Override
  public int serverStreamId() { return serverStreamId; }

  /** HTTP/3 client leg: Loupe's QUIC connection id for that connection (hex), or null. */
  @Override
  public String clientQuicConnectionId() { return clientQuicConnectionId; }

  /** Loupe's QUIC connection id towards the origin (hex) when the server leg spoke HTTP/3, else null. */
  @Override
  public String serverQuicConnectionId() { return serverQuicConnectionId; }

  /**
   * Why the server leg did or did not use HTTP/3 (https origins), e.g. {@code Alt-Svc h3=":443"},
   * {@code no Alt-Svc}, {@code QUIC failed: ...; fell back to TCP}, {@code h3 marked broken until ...},
   * {@code forced off (--upstream-protocol h2)}, {@code forced (--upstream-protocol h3)}; null when
   * not considered (cleartext origins, tunnels).
   */
  @Override
  public String http3Status() { return http3Status; }

  /**
   * What changed this flow, in order: {@code rule "name"} for each rule that applied,
   * {@code breakpoint (request): edited} and the like for user edits. Empty for untouched flows.
   */
  @Override
  public List<String> modifiedBy() { return view(modifiedBy); }
  /** Problems met along the way that did not fail the flow (a plugin hook that threw or hung). */
  @Override
  public List<String> notes() { return view(notes); }

  /** The request as the client sent it, when a rule or breakpoint changed it; else null ({@link #request()} is both). */
  @Override
  public RequestHead originalRequest() { return originalRequest; }

  /** The request body as the client sent it, when it was changed; else null. */
  @Override
  public RecordedBody originalRequestBody() { return originalRequestBody; }

  /** The response as the origin sent it, when a rule or breakpoint changed it; else null. */
  @Override
  public ResponseHead originalResponse() { return originalResponse; }

  /** The response body as the origin sent it, when it was changed; else null. */
  @Override
  public RecordedBody originalResponseBody() { return originalResponseBody; }

  /** Where the flow waits at a breakpoint right now, or null when it is not paused. */
  @Override
  public Paused paused() { return paused; }

  /** The id of the flow this one replays, or -1. */
  @Override
  public long replayOf() { return replayOf; }

  /**
   * Which client Loupe launched sent this flow (a browser or terminal started from Loupe, e.g.
   * {@code Chromium}), or null for any other client. Set once, before the flow is published.
   */
  @Override
  public String client() { return client; }

  // ---- engine side -------------------------------------------------------------------------

  public void tier(FlowTier t) { tier = Objects.requireNonNull(t, "tier"); }

  public void clientProtocol(String p) { clientProtocol = p; }

  public void serverProtocol(String p) { serverProtocol = p; }

  public void clientStreamId(int id) { clientStreamId = id; }

  public void serverStreamId(int id) { serverStreamId = id; }

  public void clientQuicConnectionId(String id) { clientQuicConnectionId = id; }

  public void serverQuicConnectionId(String id) { serverQuicConnectionId = id; }

  public void http3Status(String s) { http3Status = s; }

  /** Records the client connection; a flow arriving at a launched client's listener takes its label. */
  public void clientConnection(ConnectionInfo c) {
    clientConnection = c;
    if (client == null && c != null) {
      client = ClientLabels.of(c.localAddress());
    }
  }

  public void serverConnection(ConnectionInfo c) { serverConnection = c; }

  public void request(RequestHead r) { request = r; }

  public void modifiedBy(String what) {
    Objects.requireNonNull(what, "what");
    synchronized (this) {
      modifiedBy = created(modifiedBy);
    }
    modifiedBy.add(what);
  }

  public void note(String what) {
    Objects.requireNonNull(what, "what");
    synchronized (this) {
      notes = created(notes);
    }
    notes.add(what);
  }

  /** {@code list}, or a new one when it was not made yet. */
  private static <T> List<T> created(List<T> list) {
    return list != null ? list : new CopyOnWriteArrayList<>();
  }

  /** A read-only view of a list made on its first element (an empty list before). */
  private static <T> List<T> view(List<T> list) {
    return list == null ? List.of() : Collections.unmodifiableList(list);
  }

  public void paused(Paused p) { paused = p; }

  public void replayOf(long id) { replayOf = id; }

  public void client(String label) { client = label; }

  /**
   * Records that the request sent upstream differs from what the client sent: the first call keeps
   * the client's head and body as the original; {@link #request()} and {@link #requestBody()} then
   * hold what was sent.
   */
  public void requestModified(RequestHead sent, RecordedBody sentBody) {
    if (originalRequest == null) {
      originalRequest = request;
      originalRequestBody = requestBody;
    }
    request = Objects.requireNonNull(sent, "sent");
    requestBody = Objects.requireNonNull(sentBody, "sentBody");
  }

  /** Like {@link #requestModified} for the response: {@link #response()} becomes what the client got. */
  public void responseModified(ResponseHead delivered, RecordedBody deliveredBody) {
    if (originalResponse == null && response != null) {
      originalResponse = response;
      originalResponseBody = responseBody;
    }
    response = Objects.requireNonNull(delivered, "delivered");
    responseBody = Objects.requireNonNull(deliveredBody, "deliveredBody");
  }

  /** Records a response head: 1xx (except 101, which ends the HTTP exchange) are informational. */
  public void response(ResponseHead r) {
    if (r.informational() && r.status() != 101) {
      synchronized (this) {
        informational = created(informational);
      }
      informational.add(r);
    } else {
      response = r;
    }
  }

  public void requestTrailers(Headers h) { requestTrailers = Objects.requireNonNull(h, "trailers"); }

  public void responseTrailers(Headers h) { responseTrailers = Objects.requireNonNull(h, "trailers"); }

  public void webSocket(boolean ws) { webSocket = ws; }

  public void addWebSocketMessage(WebSocketMessage m) {
    synchronized (this) {
      webSocketMessages = created(webSocketMessages);
    }
    webSocketMessages.add(m);
  }

  public void webSocketClosed(int code, String reason) {
    if (webSocketCloseCode < 0) {
      webSocketCloseCode = code;
      webSocketCloseReason = reason;
    }
  }

  public void addTunnelBytes(long clientToServer, long serverToClient) {
    tunnelBytesClientToServer += clientToServer;
    tunnelBytesServerToClient += serverToClient;
  }

  /** Ends the flow normally. No-op if it already ended. */
  public void complete() {
    if (state == FlowState.IN_FLIGHT) {
      requestBody.complete();
      responseBody.complete();
      state = FlowState.COMPLETE;
    }
  }

  /** Ends the flow with an error. The first error wins. */
  public void fail(FlowError e) {
    if (state == FlowState.IN_FLIGHT) {
      error = Objects.requireNonNull(e, "error");
      timings.failedAt(System.nanoTime()); // its duration is up to the failure, not up to whenever it is read
      requestBody.complete();
      responseBody.complete();
      state = FlowState.FAILED;
    }
  }

  /** Heap bytes held by this flow's captured bodies and messages (approximate). */
  @Override
  public long memoryFootprint() {
    long n = requestBody.memoryFootprint() + responseBody.memoryFootprint();
    RecordedBody oq = originalRequestBody;
    RecordedBody os = originalResponseBody;
    n += (oq == null ? 0 : oq.memoryFootprint()) + (os == null ? 0 : os.memoryFootprint());
    for (WebSocketMessage m : webSocketMessages()) {
      n += m.payload().length + 64;
    }
    return n + 512;
  }

  @Override
  public String toString() {
    RequestHead r = request;
    ResponseHead s = response;
    return "Flow#" + id + " " + (r == null ? "?" : r.method() + " " + r.url())
        + " -> " + (s == null ? (error == null ? "..." : error.toString()) : String.valueOf(s.status()));
  }
}
