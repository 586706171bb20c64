package dev.loupe.engine.internal.exchange;

import dev.loupe.engine.api.intercept.ContentCoding;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.api.util.ByteSizes;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.intercept.RequestOutcome;
import dev.loupe.engine.internal.intercept.ResponseOutcome;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The full tier of one exchange, without I/O: the whole request is collected (up to {@link
 * #BODY_LIMIT}), handed to interception, and its outcome carried out — forwarded (possibly edited,
 * after any throttle latency, paced at the throttle's rate), answered locally, or aborted; then the
 * origin's response is collected and handled the same way. {@link #on(Event)} takes what happened
 * and returns what to do, in order; time comes from an injected clock, and a pause in pacing is a
 * {@link Wake} command answered by a {@link Tick} event, so throttle accuracy and pauses are tested
 * in fake time (FullTierTest).
 *
 * <h3>Phases</h3>
 * {@code COLLECTING_REQUEST → DECIDING_REQUEST → SENDING_REQUEST → AWAITING_RESPONSE →
 * COLLECTING_RESPONSE → DECIDING_RESPONSE → DELIVERING → DONE}; a local answer skips from
 * {@code DECIDING_REQUEST} to {@code DECIDING_RESPONSE}; {@link Fail} and {@link Abort} end it.
 *
 * <h3>Bodies</h3>
 * Bodies arrive as copies ({@link ByteBuffer}s the caller keeps no claim on) and leave as slices of
 * byte arrays this machine no longer writes to: no buffer ownership crosses it. The caller writes
 * them wrapped, so nothing is copied on the way out.
 *
 * <h3>Threads</h3>
 * Confined to the client leg's event loop, like {@link Exchange}.
 */
public final class FullTier {
  /** The most body held in memory to intercept one request or response. */
  public static final int BODY_LIMIT = 64 << 20;
  /** Throttled bodies go out in slices this often. */
  static final long PACE_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  enum Phase {
    COLLECTING_REQUEST, DECIDING_REQUEST, SENDING_REQUEST, AWAITING_RESPONSE, COLLECTING_RESPONSE,
    DECIDING_RESPONSE, DELIVERING, DONE
  }

  // ---- events ----------------------------------------------------------------------------------

  /** What the client leg tells the machine. */
  public sealed interface Event {}

  /** A piece of the request body (a copy). */
  public record RequestData(ByteBuffer data) implements Event {}

  /** The request ended, with these trailers. */
  public record RequestEnd(Headers trailers) implements Event {}

  /**
   * Interception decided the request: {@code outcome} (null when {@code error} says why it failed),
   * and the throttle that applies to the flow (or null).
   */
  public record RequestDecided(RequestOutcome outcome, RuleAction.Throttle throttle, String error)
      implements Event {}

  /** The origin's final response head. */
  public record ResponseHeadArrived(ResponseHead head) implements Event {}

  /** A piece of the origin's response body (a copy). */
  public record ResponseData(ByteBuffer data) implements Event {}

  /** The origin's response ended. */
  public record ResponseEnd(Headers trailers) implements Event {}

  /** Interception decided the response ({@code outcome} null when {@code error} says why it failed). */
  public record ResponseDecided(ResponseOutcome outcome, String error) implements Event {}

  /** The time a {@link Wake} asked for has come. */
  public record Tick() implements Event {}

  // ---- commands --------------------------------------------------------------------------------

  /** What the client leg must do. */
  public sealed interface Command {}

  /** Ask interception about the collected request; answer with {@link RequestDecided}. */
  public record AskRequest(RequestDraft original) implements Command {}

  /** Ask interception about a response; answer with {@link ResponseDecided}. */
  public record AskResponse(RequestDraft sent, ResponseDraft draft) implements Command {}

  /** Send this request head to the origin (through the exchange). */
  public record SendRequestHead(RequestHead head) implements Command {}

  /** Send {@code length} request body bytes of {@code body} from {@code offset}. */
  public record SendRequestData(byte[] body, int offset, int length) implements Command {}

  public record SendRequestEnd(Headers trailers) implements Command {}

  /** The origin is done with this exchange: its connection may go back to the pool. */
  public record ReleaseUpstream() implements Command {}

  /** Answer the client with {@code head} (recorded as a local answer; no origin response). */
  public record AnswerLocally(ResponseHead head, byte[] body) implements Command {}

  /** Send the (possibly edited) origin response head to the client. */
  public record DeliverHead(ResponseHead head) implements Command {}

  public record DeliverData(byte[] body, int offset, int length) implements Command {}

  public record DeliverEnd(Headers trailers) implements Command {}

  /** Stop on purpose: reset the client's stream, or close its connection. */
  public record Abort(boolean reset, String why) implements Command {}

  /** The full tier cannot go on: answer (or close) with this error and drop the exchange. */
  public record Fail(int status, String reason, String detail) implements Command {}

  /** Send a {@link Tick} after {@code delayNanos}. */
  public record Wake(long delayNanos) implements Command {}

  // ---- state -----------------------------------------------------------------------------------

  private final RecordedFlow flow;
  private final String method;
  private final LongSupplier clock;
  private final int limit;
  private Phase phase = Phase.COLLECTING_REQUEST;
  /** The message being collected: {@code heldLength} bytes of {@code held}. */
  private byte[] held = new byte[0];
  private int heldLength;
  private RuleAction.Throttle throttle;
  private RequestDraft original;
  private byte[] originalWire;
  private Headers requestTrailers = Headers.EMPTY;
  private RequestDraft sent;
  private ResponseHead originHead;
  private long originHeadNanos;
  private ResponseDraft originResponse;
  private byte[] originResponseWire;
  private Headers responseTrailers = Headers.EMPTY;
  /** How long collecting the last held message took: a throttle counts it as time already spent. */
  private long collectNanos;

  /** What a {@link Tick} continues: a latency wait, or pacing. */
  private Runnable afterWake;
  // Pacing: body, bytes sent, when it started, the rate (bytes/s; 0 = all at once), slice size.
  private byte[] paceBody;
  private int paceSent;
  private long paceStart;
  private long paceRate;
  private int paceSlice;
  private boolean pacingRequest;

  /**
   * @param flow   the flow (its request head is recorded; the edited versions are recorded on it)
   * @param clock  nanoseconds, monotonic
   * @param limit  the most body held ({@link #BODY_LIMIT} outside tests)
   */
  public FullTier(RecordedFlow flow, LongSupplier clock, int limit) {
    this.flow = Objects.requireNonNull(flow, "flow");
    this.method = flow.request().method();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.limit = limit;
  }

  /** True while the request is collected (request data goes to this machine, not the exchange). */
  public boolean collectingRequest() {
    return phase == Phase.COLLECTING_REQUEST;
  }

  /** True while the origin's response is collected. */
  public boolean collectingResponse() {
    return phase == Phase.COLLECTING_RESPONSE;
  }

  /** True once the final response is going out (its head and body pass through to the client). */
  public boolean delivering() {
    return phase == Phase.DELIVERING || phase == Phase.DONE;
  }

  public boolean done() {
    return phase == Phase.DONE;
  }

  public List<Command> on(Event event) {
    List<Command> out = new ArrayList<>(4);
    if (phase == Phase.DONE) {
      return out;
    }
    if (event instanceof RequestData d) {
      collect(d.data(), out, 413, "Content Too Large", "request");
    } else if (event instanceof RequestEnd e) {
      requestCollected(e.trailers(), out);
    } else if (event instanceof RequestDecided d) {
      requestDecided(d, out);
    } else if (event instanceof ResponseHeadArrived h) {
      phase = Phase.COLLECTING_RESPONSE;
      originHead = h.head();
      originHeadNanos = clock.getAsLong();
      held = new byte[0];
      heldLength = 0;
    } else if (event instanceof ResponseData d) {
      collect(d.data(), out, 502, "Bad Gateway", "response");
    } else if (event instanceof ResponseEnd e) {
      responseCollected(e.trailers(), out);
    } else if (event instanceof ResponseDecided d) {
      responseDecided(d, out);
    } else if (event instanceof Tick) {
      Runnable next = afterWake;
      afterWake = null;
      if (next != null) {
        next.run();
        pendingOut.forEach(out::add);
        pendingOut.clear();
      }
    }
    return out;
  }

  /** Commands produced by a continuation run from {@link Tick} (collected into that event's list). */
  private final List<Command> pendingOut = new ArrayList<>();

  private void collect(ByteBuffer data, List<Command> out, int status, String reason, String what) {
    int n = data.remaining();
    if ((long) heldLength + n > limit) {
      fail(out, status, reason, "the " + what + " body is larger than the " + ByteSizes.format(limit)
          + " Loupe holds to intercept a flow; narrow the rule or breakpoint filter");
      return;
    }
    if (heldLength + n > held.length) {
      held = java.util.Arrays.copyOf(held, (int) Math.min(limit, Math.max(heldLength + n, 2L * held.length + 4096)));
    }
    data.duplicate().get(held, heldLength, n);
    heldLength += n;
  }

  private byte[] takeHeld() {
    byte[] b = heldLength == held.length ? held : java.util.Arrays.copyOf(held, heldLength);
    held = null;
    heldLength = 0;
    return b;
  }

  private void requestCollected(Headers trailers, List<Command> out) {
    originalWire = takeHeld();
    requestTrailers = trailers;
    collectNanos = Math.max(0, clock.getAsLong() - flow.timings().requestStartNanos());
    original = RequestDraft.of(flow.request(), originalWire);
    phase = Phase.DECIDING_REQUEST;
    out.add(new AskRequest(original));
  }

  private void requestDecided(RequestDecided d, List<Command> out) {
    if (phase != Phase.DECIDING_REQUEST) {
      return;
    }
    throttle = d.throttle();
    if (d.error() != null) {
      fail(out, 500, "Internal Server Error", "a rule failed: " + d.error());
    } else if (d.outcome() instanceof RequestOutcome.Forward f) {
      forward(f.request(), out);
    } else if (d.outcome() instanceof RequestOutcome.Respond r) {
      sent = original;
      askResponse(r.response(), null, null, Headers.EMPTY, out);
    } else if (d.outcome() instanceof RequestOutcome.Abort a) {
      phase = Phase.DONE;
      out.add(new Abort(a.reset(), a.why()));
    }
  }

  private void forward(RequestDraft draft, List<Command> out) {
    RequestHead head;
    try {
      head = draft.toHead();
    } catch (IllegalArgumentException e) {
      fail(out, 502, "Bad Gateway", "the edited request cannot be sent: " + e.getMessage());
      return;
    }
    byte[] body = ContentCoding.wireBody(draft.headers(), draft.body(), original.headers(), original.body(),
        originalWire);
    // The body is complete: no 100-continue dance with the origin, and an exact length.
    RequestHead sending = head.withHeaders(withLength(head.headers().without("expect"), body.length,
        body.length > 0 || original.headers().contains("content-length")));
    if (!draft.sameAs(original)) {
      flow.requestModified(sending, RecordedBody.of(body));
    }
    sent = draft;
    phase = Phase.SENDING_REQUEST;
    afterLatency(out, () -> {
      emit(new SendRequestHead(sending));
      startPacing(body, true, clock.getAsLong() - collectNanos);
    });
  }

  private void responseCollected(Headers trailers, List<Command> out) {
    originResponseWire = takeHeld();
    collectNanos = Math.max(0, clock.getAsLong() - originHeadNanos);
    out.add(new ReleaseUpstream()); // the origin is done: pool its connection while the user looks
    originResponse = ResponseDraft.of(originHead, originResponseWire);
    askResponse(originResponse, originResponse, originResponseWire, trailers, out);
  }

  private void askResponse(ResponseDraft draft, ResponseDraft origin, byte[] originWire, Headers trailers,
      List<Command> out) {
    originResponse = origin;
    originResponseWire = originWire;
    responseTrailers = trailers;
    phase = Phase.DECIDING_RESPONSE;
    out.add(new AskResponse(sent, draft));
  }

  private void responseDecided(ResponseDecided d, List<Command> out) {
    if (phase != Phase.DECIDING_RESPONSE) {
      return;
    }
    if (d.error() != null) {
      fail(out, 500, "Internal Server Error", "a rule failed: " + d.error());
    } else if (d.outcome() instanceof ResponseOutcome.Deliver dl) {
      phase = Phase.DELIVERING;
      afterLatency(out, () -> deliver(dl.response()));
    } else if (d.outcome() instanceof ResponseOutcome.Abort a) {
      phase = Phase.DONE;
      out.add(new Abort(a.reset(), a.why()));
    }
  }

  private void deliver(ResponseDraft draft) {
    boolean local = originResponse == null;
    byte[] body = local ? draft.wireBody() : ContentCoding.wireBody(draft.headers(), draft.body(),
        originResponse.headers(), originResponse.body(), originResponseWire);
    ResponseHead head = draft.toHead();
    if (Http1Messages.bodyAllowed(method, head.status())) {
      head = new ResponseHead(head.status(), head.reason(), head.httpVersion(),
          withLength(head.headers(), body.length, true));
    }
    if (local) {
      emit(new AnswerLocally(head, body));
    } else {
      if (!draft.sameAs(originResponse)) {
        flow.responseModified(head, RecordedBody.of(body));
      }
      emit(new DeliverHead(head));
    }
    startPacing(body, false, clock.getAsLong() - (local ? 0 : collectNanos));
  }

  // ---- latency and pacing ----------------------------------------------------------------------

  /** Runs {@code then} after the throttle's latency (at once without one). */
  private void afterLatency(List<Command> out, Runnable then) {
    long millis = throttle == null ? 0 : throttle.latencyMillis();
    if (millis <= 0) {
      then.run();
      out.addAll(pendingOut);
      pendingOut.clear();
      return;
    }
    afterWake = then;
    out.add(new Wake(TimeUnit.MILLISECONDS.toNanos(millis)));
  }

  private void emit(Command c) {
    pendingOut.add(c);
  }

  /**
   * Emits {@code body} in slices at the throttle's rate (a slice every {@link #PACE_TICK_NANOS};
   * the end comes when {@code length / rate} has passed since {@code start}, which may lie in the
   * past: what is already due goes at once), then the end of the message.
   */
  private void startPacing(byte[] body, boolean request, long start) {
    paceBody = body;
    paceSent = 0;
    paceStart = start;
    pacingRequest = request;
    paceRate = throttle == null ? 0 : throttle.bytesPerSecond();
    if (paceRate <= 0) {
      if (body.length > 0) {
        emit(request ? new SendRequestData(body, 0, body.length) : new DeliverData(body, 0, body.length));
      }
      endMessage();
      return;
    }
    paceSlice = (int) Math.max(1, Math.min(body.length, paceRate * PACE_TICK_NANOS / TimeUnit.SECONDS.toNanos(1)));
    paceTick();
  }

  private void paceTick() {
    if (paceSent < paceBody.length) {
      int n = Math.min(paceSlice, paceBody.length - paceSent);
      emit(pacingRequest ? new SendRequestData(paceBody, paceSent, n) : new DeliverData(paceBody, paceSent, n));
      paceSent += n;
    }
    // The time by which `paceSent` bytes are due at the rate: the next slice (or the end) waits for it.
    long due = paceStart + paceSent * TimeUnit.SECONDS.toNanos(1) / paceRate;
    long wait = due - clock.getAsLong();
    if (paceSent >= paceBody.length && wait <= 0) {
      endMessage();
      return;
    }
    afterWake = this::paceTick;
    emit(new Wake(Math.max(0, wait)));
  }

  private void endMessage() {
    paceBody = null;
    if (pacingRequest) {
      phase = Phase.AWAITING_RESPONSE;
      emit(new SendRequestEnd(requestTrailers));
    } else {
      phase = Phase.DONE;
      emit(new DeliverEnd(responseTrailers));
    }
  }

  private void fail(List<Command> out, int status, String reason, String detail) {
    phase = Phase.DONE;
    held = null;
    paceBody = null;
    afterWake = null;
    out.add(new Fail(status, reason, detail));
  }

  /** Headers for a body of {@code length} bytes: no Transfer-Encoding, an exact Content-Length. */
  static Headers withLength(Headers headers, int length, boolean declare) {
    Headers h = headers.without("transfer-encoding");
    return declare ? h.with(contentLengthName(h), Integer.toString(length)) : h.without("content-length");
  }

  private static String contentLengthName(Headers h) {
    for (Headers.Field f : h.fields()) {
      if (f.name().equalsIgnoreCase("content-length")) {
        return f.name();
      }
    }
    return "content-length";
  }
}
