package dev.loupe.engine.internal.exchange;

import static dev.loupe.engine.internal.exchange.ExchangeCommand.*;
import static dev.loupe.engine.internal.exchange.ExchangeEvent.*;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * One live request/response, protocol neutral and free of I/O: {@link #on(ExchangeEvent)} takes an
 * event from a leg and returns the commands the legs must execute, in order. It records what it
 * sees on the {@link Flow} and publishes flow events.
 *
 * <h3>Lifecycle</h3>
 * Request side: {@code AWAITING_HEADERS → AWAITING_UPSTREAM → STREAMING → ENDED}. Response side:
 * {@code AWAITING_UPSTREAM → AWAITING_HEADERS → STREAMING → ENDED}, or {@code WEBSOCKET} after a
 * 101. Request data that arrives while the server leg is being set up is held (as opaque payloads)
 * and replayed once it is ready. Once {@link ExchangeCommand.Finished} has been emitted, later
 * events only release payloads.
 *
 * <h3>Rules both legs share</h3>
 * Live traffic (the client leg) and requests Loupe sends itself (replay, composer) run on this one
 * machine, so these rules are written once: a request that gets no response on a reused connection
 * goes once more on a fresh one when that is safe (idempotent, no body or a body the leg can send
 * again: {@link #keepRequestPayloads}); the server-leg connection is pooled only after a complete
 * exchange the origin keeps alive ({@code Connection}, HTTP/1.0); {@code Alt-Svc} fields of a final
 * response are handed on for HTTP/3 discovery ({@link AdvertiseAltSvc}); a timeout before the
 * response head fails the flow.
 *
 * <h3>Threads</h3>
 * Confined to the event loop of the client leg that created it.
 */
public final class Exchange {
  enum RequestState { AWAITING_HEADERS, AWAITING_UPSTREAM, STREAMING, ENDED }

  enum ResponseState { AWAITING_UPSTREAM, AWAITING_HEADERS, STREAMING, WEBSOCKET, ENDED }

  private static final java.util.Set<String> IDEMPOTENT =
      java.util.Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

  private final RecordedFlow flow;
  private final RecordingStore store;
  private final LongSupplier clock;
  private final ArrayDeque<ExchangeEvent> heldWhileConnecting = new ArrayDeque<>(2); // usually empty: small
  private RequestState requestState = RequestState.AWAITING_HEADERS;
  private ResponseState responseState = ResponseState.AWAITING_UPSTREAM;
  private boolean webSocketRequested;
  private boolean upstreamHeld;
  private boolean retried;
  private boolean finished;
  private boolean recorded;
  /** Whether the origin keeps the connection alive after its final response (known once its head came). */
  private boolean upstreamKeepAlive;
  /**
   * The request data forwarded so far, when the leg's payloads may be written again (immutable
   * bytes, not buffers): a retry sends them once more. Null when payloads are written once.
   */
  private List<RequestDataReceived> resendable;

  public Exchange(RecordedFlow flow, RecordingStore store, LongSupplier clock) {
    this.flow = Objects.requireNonNull(flow, "flow");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  public RecordedFlow flow() {
    return flow;
  }

  public boolean finished() {
    return finished;
  }

  /** True while the exchange wants more request body from the client. */
  public boolean wantsRequestData() {
    return !finished && requestState == RequestState.STREAMING;
  }

  public boolean requestEnded() {
    return requestState == RequestState.ENDED;
  }

  /** The leg has already added the flow to the store (full tier: a request shown while it is held). */
  public void markRecorded() {
    recorded = true;
  }

  /**
   * The leg's request payloads are immutable (byte arrays it wraps anew on each write) and may be
   * written again: a retry on a fresh connection then resends a request that has a body. A leg that
   * streams buffers it does not keep must not call this.
   */
  public void keepRequestPayloads() {
    if (resendable == null) {
      resendable = new ArrayList<>();
    }
  }

  /**
   * Whether the server-leg connection can go back to the pool now: the request ended and the origin's
   * final response keeps it alive.
   */
  public boolean upstreamReusable() {
    return requestState == RequestState.ENDED && upstreamKeepAlive;
  }

  public boolean isWebSocket() {
    return responseState == ResponseState.WEBSOCKET;
  }

  /**
   * Lists {@link #on} returned and its caller gave back once it had carried the commands out
   * ({@link #recycle}): the next events' commands go into them instead of new lists. Two, since an
   * event often arrives while the commands of another are carried out (a pooled origin connection
   * is ready at once).
   */
  private ArrayList<ExchangeCommand> spare;
  private ArrayList<ExchangeCommand> spare2;

  /**
   * Gives back a list {@link #on} returned, once every command in it has been carried out: the
   * exchange reuses it for a later event. Optional; the caller must not touch the list afterwards.
   */
  public void recycle(List<ExchangeCommand> commands) {
    if (commands instanceof ArrayList<ExchangeCommand> list && list != spare && list != spare2) {
      if (spare == null) {
        list.clear();
        spare = list;
      } else if (spare2 == null) {
        list.clear();
        spare2 = list;
      }
    }
  }

  /**
   * Takes back a spare list (empty), or null: a leg hands it to its next exchange ({@link
   * #recycle}) when this one is over, so that a keep-alive connection's exchanges reuse two lists.
   */
  public List<ExchangeCommand> takeSpare() {
    ArrayList<ExchangeCommand> out = spare;
    if (out != null) {
      spare = null;
    } else {
      out = spare2;
      spare2 = null;
    }
    return out;
  }

  public List<ExchangeCommand> on(ExchangeEvent event) {
    ArrayList<ExchangeCommand> out = spare;
    if (out != null) {
      spare = null; // an event that arrives while these commands are carried out gets the other
    } else if (spare2 != null) {
      out = spare2;
      spare2 = null;
    } else {
      out = new ArrayList<>(4);
    }
    if (finished) {
      afterFinish(event, out);
      return out;
    }
    if (event instanceof RequestHeadersReceived e) {
      onRequestHeaders(e, out);
    } else if (event instanceof RequestDataReceived e) {
      onRequestData(e, out);
    } else if (event instanceof RequestEnded e) {
      onRequestEnded(e, out);
    } else if (event instanceof UpstreamReady e) {
      onUpstreamReady(e, out);
    } else if (event instanceof UpstreamFailed e) {
      failBeforeResponse(e.error(), 502, "Bad Gateway", out);
    } else if (event instanceof ResponseHeadersReceived e) {
      onResponseHeaders(e, out);
    } else if (event instanceof ResponseDataReceived e) {
      out.add(new SendResponseData(e.payload()));
    } else if (event instanceof ResponseEnded e) {
      onResponseEnded(e, out);
    } else if (event instanceof UpstreamBroken e) {
      onUpstreamBroken(e, out);
    } else if (event instanceof ClientGone) {
      onClientGone(((ClientGone) event).reason(), out);
    } else if (event instanceof ResponseTimedOut t) {
      if (responseState == ResponseState.AWAITING_HEADERS) {
        failBeforeResponse(new FlowError(FlowError.Kind.TIMEOUT, t.detail() != null ? t.detail()
            : "no response from " + flow.request().authority() + " within the response timeout"),
            504, "Gateway Timeout", out);
      }
    } else if (event instanceof AnsweredLocally e) {
      onAnsweredLocally(e, out);
    } else if (event instanceof Aborted e) {
      flow.fail(e.error());
      releaseUpstream(out);
      discardHeld(out);
      finish(out);
    } else if (event instanceof TunnelClosed) {
      responseState = ResponseState.ENDED;
      flow.timings().responseEnd(clock.getAsLong());
      complete(out);
    }
    return out;
  }

  private void onRequestHeaders(RequestHeadersReceived e, List<ExchangeCommand> out) {
    checkState(requestState == RequestState.AWAITING_HEADERS, "request headers twice");
    RequestHead head = e.head();
    webSocketRequested = e.webSocketUpgrade();
    flow.request(head);
    if (flow.timings().requestStartNanos() == 0) {
      flow.timings().requestStart(clock.getAsLong());
    }
    if (!recorded) {
      store.add(flow);
      recorded = true;
    }
    requestState = RequestState.AWAITING_UPSTREAM;
    upstreamHeld = true;
    out.add(new OpenUpstream(head.scheme(), head.host(), head.port()));
  }

  private void onAnsweredLocally(AnsweredLocally e, List<ExchangeCommand> out) {
    if (!recorded) {
      store.add(flow);
      recorded = true;
    }
    requestState = RequestState.ENDED;
    releaseUpstream(out);
    discardHeld(out);
    flow.response(e.head());
    flow.timings().responseStart(clock.getAsLong());
    responseState = ResponseState.STREAMING;
    out.add(new SendResponseHead(e.head()));
    store.updated(flow);
  }

  private void onRequestData(RequestDataReceived e, List<ExchangeCommand> out) {
    switch (requestState) {
      case AWAITING_UPSTREAM -> heldWhileConnecting.add(e);
      case STREAMING -> {
        out.add(new SendRequestData(e.payload()));
        if (resendable != null) {
          resendable.add(e);
        }
      }
      default -> out.add(new Discard(e.payload()));
    }
  }

  private void onRequestEnded(RequestEnded e, List<ExchangeCommand> out) {
    switch (requestState) {
      case AWAITING_UPSTREAM -> heldWhileConnecting.add(e);
      case STREAMING -> {
        flow.requestTrailers(e.trailers());
        flow.requestBody().complete();
        requestState = RequestState.ENDED;
        out.add(new SendRequestEnd(e.trailers()));
        flow.timings().sendEnd(clock.getAsLong());
      }
      default -> requestState = RequestState.ENDED;
    }
  }

  private void onUpstreamReady(UpstreamReady e, List<ExchangeCommand> out) {
    checkState(requestState == RequestState.AWAITING_UPSTREAM, "upstream ready twice");
    flow.serverConnection(e.connection());
    flow.serverProtocol(e.protocol());
    flow.timings().sendStart(clock.getAsLong());
    requestState = RequestState.STREAMING;
    responseState = ResponseState.AWAITING_HEADERS;
    out.add(new SendRequestHead(flow.request()));
    while (!heldWhileConnecting.isEmpty()) {
      ExchangeEvent held = heldWhileConnecting.poll();
      if (held instanceof RequestDataReceived d) {
        onRequestData(d, out);
      } else if (held instanceof RequestEnded end) {
        onRequestEnded(end, out);
      }
    }
    store.updated(flow);
  }

  private void onResponseHeaders(ResponseHeadersReceived e, List<ExchangeCommand> out) {
    if (responseState != ResponseState.AWAITING_HEADERS) {
      throw new IllegalStateException("response head in state " + responseState);
    }
    if (e.head().informational()) {
      if (e.head().status() == 101) {
        if (!webSocketRequested) {
          onUpstreamBroken(new UpstreamBroken(new FlowError(FlowError.Kind.SERVER_PROTOCOL,
              flow.request().authority() + " switched protocols without being asked")), out);
          return;
        }
        flow.response(e.head()); // 101 ends the HTTP exchange: it is the flow's response
        flow.webSocket(true);
        flow.timings().responseStart(clock.getAsLong());
        responseState = ResponseState.WEBSOCKET;
        requestState = RequestState.ENDED;
        out.add(new SendResponseHead(e.head()));
        out.add(new SwitchToWebSocket());
      } else {
        flow.response(e.head());
        out.add(new SendResponseHead(e.head()));
      }
      store.updated(flow);
      return;
    }
    flow.response(e.head());
    flow.timings().responseStart(clock.getAsLong());
    responseState = ResponseState.STREAMING;
    upstreamKeepAlive = keepsAlive(e.head());
    if (e.head().headers().contains("alt-svc")) { // getAll makes a list even when there is none
      out.add(new AdvertiseAltSvc(e.head().headers().getAll("alt-svc"), e.head().headers().get("age")));
    }
    out.add(new SendResponseHead(e.head()));
    store.updated(flow);
  }

  /** Whether the origin keeps its connection open after {@code head}'s response (RFC 9112 §9.3). */
  static boolean keepsAlive(dev.loupe.engine.flow.ResponseHead head) {
    String connection = head.headers().get("connection");
    boolean http10 = head.httpVersion().equals("HTTP/1.0");
    return connection == null ? !http10
        : http10 ? connection.toLowerCase(java.util.Locale.ROOT).contains("keep-alive")
        : !connection.toLowerCase(java.util.Locale.ROOT).contains("close");
  }

  private void onResponseEnded(ResponseEnded e, List<ExchangeCommand> out) {
    flow.responseTrailers(e.trailers());
    flow.timings().responseEnd(clock.getAsLong());
    responseState = ResponseState.ENDED;
    out.add(new SendResponseEnd(e.trailers()));
    boolean requestDone = requestState == RequestState.ENDED;
    out.add(new ReleaseUpstream(requestDone && upstreamKeepAlive));
    upstreamHeld = false;
    if (!requestDone) {
      // The origin answered before the request ended (e.g. 413): the rest of the request body has
      // nowhere to go, and its framing cannot be trusted to find the next request.
      out.add(new CloseClient(false));
    }
    complete(out);
  }

  private void onUpstreamBroken(UpstreamBroken e, List<ExchangeCommand> out) {
    if (e.retryable() && !retried && responseState == ResponseState.AWAITING_HEADERS
        && requestState == RequestState.ENDED && (flow.requestBody().size() == 0 || resendable != null)
        && IDEMPOTENT.contains(flow.request().method())) {
      // A pooled connection the origin had already given up on: send the request once more on a
      // fresh connection (RFC 9112 §9.3.1 allows it for a request that got no response).
      retried = true;
      requestState = RequestState.AWAITING_UPSTREAM;
      responseState = ResponseState.AWAITING_UPSTREAM;
      if (resendable != null) {
        heldWhileConnecting.addAll(resendable);
        resendable.clear();
      }
      heldWhileConnecting.add(new RequestEnded(flow.requestTrailers()));
      RequestHead head = flow.request();
      out.add(new ReleaseUpstream(false));
      out.add(new OpenUpstream(head.scheme(), head.host(), head.port()));
      return;
    }
    switch (responseState) {
      case AWAITING_UPSTREAM, AWAITING_HEADERS -> failBeforeResponse(e.error(), 502, "Bad Gateway", out);
      case STREAMING -> {
        flow.fail(e.error());
        releaseUpstream(out);
        // Never fake a complete response: drop the client connection so it sees the truncation.
        out.add(new CloseClient(true));
        finish(out);
      }
      case WEBSOCKET -> {
        responseState = ResponseState.ENDED;
        complete(out);
      }
      case ENDED -> { }
    }
  }

  private void onClientGone(String reason, List<ExchangeCommand> out) {
    if (responseState == ResponseState.WEBSOCKET) {
      responseState = ResponseState.ENDED;
      complete(out);
      return;
    }
    flow.fail(new FlowError(FlowError.Kind.CLIENT_ABORT, reason != null ? reason
        : "the client closed the connection before the response ended"));
    releaseUpstream(out);
    discardHeld(out);
    finish(out);
  }

  private void failBeforeResponse(FlowError error, int status, String reason, List<ExchangeCommand> out) {
    flow.fail(error);
    releaseUpstream(out);
    discardHeld(out);
    out.add(new SendErrorResponse(status, reason, error.message()));
    if (requestState != RequestState.ENDED) {
      out.add(new CloseClient(false));
    }
    finish(out);
  }

  private void releaseUpstream(List<ExchangeCommand> out) {
    if (upstreamHeld) {
      upstreamHeld = false;
      out.add(new ReleaseUpstream(false));
    }
  }

  private void discardHeld(List<ExchangeCommand> out) {
    while (!heldWhileConnecting.isEmpty()) {
      if (heldWhileConnecting.poll() instanceof RequestDataReceived d) {
        out.add(new Discard(d.payload()));
      }
    }
  }

  private void complete(List<ExchangeCommand> out) {
    flow.complete();
    finish(out);
  }

  private void finish(List<ExchangeCommand> out) {
    finished = true;
    if (flow.state() == FlowState.IN_FLIGHT) {
      flow.complete();
    }
    store.completed(flow);
    out.add(new Finished());
  }

  private void afterFinish(ExchangeEvent event, List<ExchangeCommand> out) {
    if (event instanceof RequestDataReceived d) {
      out.add(new Discard(d.payload()));
    } else if (event instanceof ResponseDataReceived d) {
      out.add(new Discard(d.payload()));
    } else if (event instanceof RequestEnded) {
      requestState = RequestState.ENDED;
    }
  }

  private static void checkState(boolean ok, String message) {
    if (!ok) {
      throw new IllegalStateException(message);
    }
  }
}
