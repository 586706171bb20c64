package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.exchange.FullTier;
import dev.loupe.engine.internal.intercept.Interception;
import dev.loupe.engine.internal.intercept.RequestOutcome;
import dev.loupe.engine.internal.intercept.ResponseOutcome;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The full tier of one exchange on a {@link ClientLeg}: the I/O around the sans-io {@link FullTier}.
 * It feeds the machine what the legs see (request and response bodies, heads, ends), asks {@link
 * Interception} when the machine says so (outcomes may arrive on any thread, a user releasing a
 * pause, and hop back to the loop), schedules the machine's wake-ups (throttle latency and pacing),
 * and carries out its commands through the leg and the exchange.
 *
 * <p>Made when a rule, breakpoint or plugin may want the request ({@code InterceptService#begin});
 * {@link #stop()}ped when the exchange ends. Confined to the leg's event loop; on HTTP/2 and HTTP/3
 * each stream has its own leg, so a paused stream holds nobody else up.
 */
final class FullTierDriver {
  private static final ResponseHead CONTINUE = new ResponseHead(100, "Continue", "HTTP/1.1", Headers.EMPTY);

  private final ClientLeg leg;
  private final ClientCodec codec;
  private final ClientErrors errors;
  private final Exchange ex;
  private final Interception interception;
  private final RecordingStore store;
  private final EventExecutor loop;
  private final FullTier tier;
  private ScheduledFuture<?> timer;
  private boolean stopped;

  /** Takes {@code ex} to the full tier: its flow is recorded (shown, and pausable) while held. */
  FullTierDriver(ClientLeg leg, ClientCodec codec, ClientErrors errors, Exchange ex, Interception interception,
      RecordingStore store, EventExecutor loop) {
    this.leg = leg;
    this.codec = codec;
    this.errors = errors;
    this.ex = ex;
    this.interception = interception;
    this.store = store;
    this.loop = loop;
    RecordedFlow flow = ex.flow();
    flow.tier(FlowTier.FULL);
    this.tier = new FullTier(flow, System::nanoTime, FullTier.BODY_LIMIT);
    ex.markRecorded();
    store.add(flow);
  }

  /**
   * Asks interception whether a rule, breakpoint or plugin may want {@code ex}'s request (its head
   * is recorded on the flow). If so the exchange goes to the full tier, whose driver is returned: its
   * request is collected whole first, and a client that waits for a 100 before sending its body
   * gets one. Else null: the relay tier.
   */
  static FullTierDriver begin(ClientLeg leg, ClientCodec codec, ClientErrors errors, Exchange ex,
      EngineContext engine, EventExecutor loop, boolean expectsContinue) {
    Interception ic = engine.intercept().begin(ex.flow());
    if (ic == null) {
      return null;
    }
    FullTierDriver driver = new FullTierDriver(leg, codec, errors, ex, ic, engine.store(), loop);
    if (expectsContinue) {
      leg.sendResponseHead(CONTINUE);
    }
    return driver;
  }

  /** True while the request is collected (request body comes here, not to the exchange). */
  boolean collectingRequest() {
    return tier.collectingRequest();
  }

  /** A request body part ({@code trailers} non-null when it is the last); released here. */
  void collectRequest(HttpContent c, Headers trailers) {
    ByteBuf data = c.content();
    if (data.isReadable()) {
      Capture.append(ex.flow().requestBody(), data);
      feed(data, true);
    }
    c.release();
    if (trailers != null && live() && tier.collectingRequest()) {
      run(new FullTier.RequestEnd(trailers));
    }
  }

  /**
   * A response head from the exchange: collected (true) when it is the origin's final head, which
   * interception may change; else (an interim head, or the response being delivered) it goes on.
   */
  boolean collect(ResponseHead head) {
    if (tier.delivering() || head.informational()) {
      return false;
    }
    run(new FullTier.ResponseHeadArrived(head));
    return true;
  }

  /** Response body from the exchange (an {@code HttpContent} or a buffer): collected and released (true), or not. */
  boolean collect(Object payload) {
    if (!tier.collectingResponse()) {
      return false;
    }
    feed(payload instanceof HttpContent hc ? hc.content() : (ByteBuf) payload, false);
    ReferenceCountUtil.release(payload);
    return true;
  }

  /** A server event: the end of a response being collected is taken here (true). */
  boolean collect(ExchangeEvent e) {
    if (!tier.collectingResponse() || !(e instanceof ExchangeEvent.ResponseEnded end)) {
      return false;
    }
    run(new FullTier.ResponseEnd(end.trailers()));
    return true;
  }

  /** The client left: a pause ends without an outcome. */
  void cancel() {
    interception.cancel();
  }

  /** The exchange is over: no more events, no pending wake-up. */
  void stop() {
    stopped = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** Whether the exchange is still on this driver (it is the leg's current one until {@link #stop()}). */
  private boolean live() {
    return !stopped;
  }

  private void run(FullTier.Event event) {
    if (live()) {
      carryOutAll(tier.on(event));
    }
  }

  /** Body bytes for the machine: it copies what it holds during the call, so views of them do. */
  private void feed(ByteBuf data, boolean request) {
    for (ByteBuffer b : data.nioBuffers()) {
      if (!live()) {
        return;
      }
      carryOutAll(tier.on(request ? new FullTier.RequestData(b) : new FullTier.ResponseData(b)));
    }
  }

  private void carryOutAll(List<FullTier.Command> commands) {
    for (FullTier.Command c : commands) {
      if (stopped || ex.finished()) {
        return; // the exchange ended on the way (the client left, an abort)
      }
      carryOut(c);
    }
  }

  private void carryOut(FullTier.Command c) {
    if (c instanceof FullTier.AskRequest a) {
      CompletionStage<RequestOutcome> stage;
      try {
        stage = interception.request(a.original());
      } catch (RuntimeException e) {
        stage = CompletableFuture.failedFuture(e);
      }
      whenDecided(stage, (outcome, error) -> run(new FullTier.RequestDecided(outcome, interception.throttle(),
          error == null ? null : describe(error))));
    } else if (c instanceof FullTier.AskResponse a) {
      CompletionStage<ResponseOutcome> stage;
      try {
        stage = interception.response(a.sent(), a.draft());
      } catch (RuntimeException e) {
        stage = CompletableFuture.failedFuture(e);
      }
      whenDecided(stage, (outcome, error) -> run(new FullTier.ResponseDecided(outcome,
          error == null ? null : describe(error))));
    } else if (c instanceof FullTier.SendRequestHead h) {
      leg.execute(ex.on(new ExchangeEvent.RequestHeadersReceived(h.head(), false)));
    } else if (c instanceof FullTier.SendRequestData d) {
      leg.execute(ex.on(new ExchangeEvent.RequestDataReceived(
          new DefaultHttpContent(Unpooled.wrappedBuffer(d.body(), d.offset(), d.length())), d.length())));
      leg.requestSliceSent(ex);
    } else if (c instanceof FullTier.SendRequestEnd e) {
      leg.execute(ex.on(new ExchangeEvent.RequestEnded(e.trailers())));
    } else if (c instanceof FullTier.ReleaseUpstream) {
      leg.releaseUpstream(ex.upstreamReusable()); // the origin is done: pool its connection while the user looks
    } else if (c instanceof FullTier.AnswerLocally a) {
      leg.execute(ex.on(new ExchangeEvent.AnsweredLocally(a.head()))); // records it and sends the head
      if (!stopped && a.body().length > 0) {
        ex.flow().responseBody().append(ByteBuffer.wrap(a.body()));
      }
    } else if (c instanceof FullTier.DeliverHead h) {
      leg.sendResponseHead(h.head());
    } else if (c instanceof FullTier.DeliverData d) {
      codec.deliver(d.body(), d.offset(), d.length());
    } else if (c instanceof FullTier.DeliverEnd e) {
      leg.execute(ex.on(new ExchangeEvent.ResponseEnded(e.trailers())));
    } else if (c instanceof FullTier.Abort a) {
      abort(a.reset(), a.why());
    } else if (c instanceof FullTier.Fail f) {
      fail(f.status(), f.reason(), f.detail());
    } else if (c instanceof FullTier.Wake w) {
      timer = loop.schedule(() -> {
        timer = null;
        if (!stopped && !ex.finished()) {
          run(new FullTier.Tick());
        }
      }, w.delayNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /** Stops the exchange on purpose: the client's stream is reset, or its connection closed (reset). */
  private void abort(boolean reset, String why) {
    leg.stopReading();
    codec.abort(reset);
    leg.execute(ex.on(new ExchangeEvent.Aborted(new FlowError(FlowError.Kind.ABORTED, why))));
    if (!codec.multiplexed()) {
      codec.ctx.close();
    }
  }

  /** The full tier cannot go on with this exchange: answer with an error page naming why. */
  private void fail(int status, String reason, String detail) {
    leg.endFullTier();
    interception.cancel();
    ex.flow().fail(new FlowError(FlowError.Kind.INTERNAL, detail));
    errors.fail(status, reason, detail, FlowError.Kind.INTERNAL);
    leg.execute(ex.on(new ExchangeEvent.ClientGone(detail)));
  }

  /**
   * Runs {@code then} on the loop once {@code stage} (an interception outcome) completes, unless the
   * exchange has ended meanwhile (the client left). An outcome decided at once (no pause) runs
   * inline, without a trip through the loop's task queue; a pause is published to the store's
   * listeners when it starts and when it ends (the table shows it).
   */
  private <T> void whenDecided(CompletionStage<T> stage, BiConsumer<T, Throwable> then) {
    CompletableFuture<T> f = stage.toCompletableFuture();
    boolean paused = !f.isDone();
    if (paused) {
      store.updated(ex.flow());
    }
    BiConsumer<T, Throwable> onLoop = (outcome, error) -> {
      if (stopped || ex.finished() || error instanceof CancellationException) {
        return; // the client left meanwhile
      }
      if (paused) {
        store.updated(ex.flow());
      }
      then.accept(outcome, error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
    };
    if (!paused && loop.inEventLoop()) {
      T outcome = null;
      Throwable error = null;
      try {
        outcome = f.join();
      } catch (CompletionException | CancellationException e) {
        error = e;
      }
      onLoop.accept(outcome, error);
      return;
    }
    f.whenComplete((outcome, error) -> loop.execute(() -> onLoop.accept(outcome, error)));
  }

  private static String describe(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
  }
}
