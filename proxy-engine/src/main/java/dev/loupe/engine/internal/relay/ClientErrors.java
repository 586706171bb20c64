package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ExchangeCommand;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.record.RecordedFlow;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * What Loupe answers itself on a {@link ClientLeg}: a request it refuses before the origin sees it
 * (recorded as a failed flow), a request body that turns out malformed while it streams, an exchange
 * that cannot go on; each with an error page naming the cause ({@link ErrorPages}) or, once a
 * response has started, a closed connection (or stream). One per leg, on its event loop.
 */
final class ClientErrors {
  private final EngineContext engine;
  private final ClientSide side;
  private final ClientLeg leg;
  private final ClientCodec codec;

  ClientErrors(EngineContext engine, ClientSide side, ClientLeg leg, ClientCodec codec) {
    this.engine = engine;
    this.side = side;
    this.leg = leg;
    this.codec = codec;
  }

  /** Refuses a request the origin must never see: records it as failed, answers, closes. */
  void reject(ClientRequest req, int status, String reason) {
    RecordedFlow flow = codec.newFlow(engine.store().nextId(), engine.config().capture());
    flow.timings().requestStart(System.nanoTime());
    flow.request(RequestHeads.refused(side, req));
    engine.store().add(flow);
    flow.fail(new FlowError(FlowError.Kind.CLIENT_PROTOCOL, "bad request from client: " + reason));
    engine.store().completed(flow);
    page(status, HttpResponseStatus.valueOf(status).reasonPhrase(), reason, FlowError.Kind.CLIENT_PROTOCOL, true);
  }

  /**
   * The decoder failed in the middle of the body of {@code ex}'s request (null: an answered one;
   * {@code atOrigin}: its server leg is connected). Streaming: the head (and body before the error)
   * may be at the origin already; its request is aborted (connection closed, RST_STREAM or
   * RESET_STREAM), never completed: the origin never gets the rest of an ambiguous body.
   */
  void badBody(Throwable cause, Exchange ex, boolean atOrigin) {
    String reason = ErrorPages.reason(cause);
    if (ex != null) {
      ex.flow().fail(new FlowError(FlowError.Kind.CLIENT_PROTOCOL, "bad request body from client: " + reason
          + (atOrigin ? "; the request to the origin was aborted" : "")));
    }
    fail(400, "Bad Request", reason, FlowError.Kind.CLIENT_PROTOCOL);
    if (ex != null) {
      leg.execute(ex.on(new ExchangeEvent.ClientGone()));
    }
  }

  /** The exchange cannot go on: an error page if no response head went out yet, else the client is closed. */
  void fail(int status, String reason, String detail, FlowError.Kind kind) {
    if (!codec.headSent()) {
      page(status, reason, detail, kind, true);
    } else {
      leg.stopReading();
      codec.ctx.close();
    }
  }

  /** The exchange failed before its response (502, 504...): a page naming the cause of {@code flow}'s error. */
  void exchangeFailed(ExchangeCommand.SendErrorResponse e, RecordedFlow flow) {
    FlowError err = flow.error();
    page(e.status(), e.reason(), e.detail(), err == null ? null : err.kind(), codec.closesAfter());
  }

  /** Writes a short text error page naming the cause; closes the connection after it when {@code close}. */
  void page(int status, String reason, String detail, FlowError.Kind kind, boolean close) {
    if (close) {
      leg.stopReading();
      codec.error(status, reason, detail, kind, true).addListener(ChannelFutureListener.CLOSE);
    } else {
      codec.error(status, reason, detail, kind, false);
    }
  }
}
