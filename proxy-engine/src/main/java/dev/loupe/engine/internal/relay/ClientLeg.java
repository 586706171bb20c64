package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ExchangeCommand;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.record.RecordedFlow;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The client leg: one per HTTP/1.1 client connection, and one per HTTP/2 or HTTP/3 stream. It keeps
 * the client's requests in order (pipelined ones wait in {@code inbound} until the response before
 * them ends), runs each one's {@link Exchange} by carrying out its commands, keeps both legs' reads
 * in step with the other side's writability, and ends with its connection or stream. Elsewhere:
 * what differs between HTTP versions ({@link ClientCodec}), where a request goes ({@link
 * RequestHeads}), the origin's side ({@link ServerLeg}), the full tier ({@link FullTierDriver}),
 * CONNECT ({@link ConnectHandler}), WebSocket ({@link WebSocketUpgrade}), errors ({@link ClientErrors}).
 *
 * <p>Flow control: auto-read is off on both legs. The client is read only when the exchange wants
 * request body and the server leg is writable, or when no exchange is running; the origin is read
 * only while the client is writable. Body buffers pass from leg to leg untouched (the capture tap
 * copies at most the capture cap). All on the client channel's event loop, which server legs share.
 */
final class ClientLeg extends ChannelInboundHandlerAdapter implements ServerLeg.Owner {
  private final EngineContext engine;
  private final ClientSide side;
  /** Messages read and not yet taken, in the codec's currency. */
  private final ArrayDeque<Object> inbound = new ArrayDeque<>(4); // a request or two (grows for pipelining)
  private ChannelHandlerContext ctx;
  private ClientCodec codec;
  private ClientErrors errors;
  private ResponseTimeout timeout;
  private boolean closing;
  private boolean waitingForUpstreamWritable;
  /** From a read of the client until its end ({@link #channelReadComplete}, which flushes the server leg). */
  private boolean reading;
  private boolean waitingForClientWritable;
  // The current exchange, its server leg (once connected) and full tier (if intercepted), or null.
  private Exchange exchange;
  private ServerLeg serverLeg;
  private FullTierDriver fullTier;
  /** Command lists of the last exchange, for the next one (no new lists per keep-alive exchange). */
  private List<ExchangeCommand> carried1;
  private List<ExchangeCommand> carried2;

  ClientLeg(EngineContext engine, ClientSide side) {
    this.engine = engine;
    this.side = side;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.codec = ClientCodec.of(side, ctx);
    this.errors = new ClientErrors(engine, side, this, codec);
    this.timeout = new ResponseTimeout(ctx.executor(), engine.config().responseTimeout().toNanos(), () -> exchange,
        ex -> execute(ex.on(new ExchangeEvent.ResponseTimedOut())));
    if (ctx.channel().isActive()) {
      ctx.read();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.read();
    ctx.fireChannelActive();
  }

  // ---- the request queue -------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    reading = true;
    if (codec.hold(msg)) {
      return;
    }
    if (closing || !codec.readable(msg)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    codec.queued(msg);
    inbound.add(msg);
    drain();
  }

  /** Feeds queued messages to the current exchange, starting a new one when the last has ended. */
  private void drain() {
    while (!inbound.isEmpty() && !closing) {
      Object msg = inbound.peek();
      boolean opens = codec.opensRequest(msg);
      if (opens && exchange != null) {
        return; // pipelined: wait for the current response to end
      }
      inbound.poll();
      if (opens) {
        startExchange(codec.request(msg));
      }
      if (codec.carriesBody(msg) && !closing && exchange != null) {
        feedRequestContent(codec.requestBody(msg));
      } else {
        ReferenceCountUtil.release(msg); // or the tail of a request we already answered
      }
    }
  }

  private void feedRequestContent(HttpContent c) {
    if (c.decoderResult().isFailure()) {
      c.release();
      errors.badBody(c.decoderResult().cause(), exchange, serverLeg != null);
      return;
    }
    Headers trailers = c instanceof LastHttpContent last ? codec.trailers(last) : null; // non-null: the end
    if (fullTier != null && fullTier.collectingRequest()) {
      fullTier.collectRequest(c, trailers);
      return;
    }
    ByteBuf data = c.content();
    if (!data.isReadable()) {
      c.release();
    } else {
      // The payload owns the buffer from here; the end goes to the exchange as an event of its own.
      Capture.append(exchange.flow().requestBody(), data);
      HttpContent payload = trailers != null ? new DefaultHttpContent(data) : c;
      run(exchange, new ExchangeEvent.RequestDataReceived(payload, data.readableBytes()));
    }
    if (trailers != null && exchange != null) {
      run(exchange, new ExchangeEvent.RequestEnded(trailers));
    }
  }

  private void startExchange(ClientRequest req) {
    long now = System.nanoTime();
    RequestHeads.Decision decision = RequestHeads.decide(side, req, ctx.channel().localAddress());
    if (decision instanceof RequestHeads.Refuse r) {
      errors.reject(req, r.status(), r.reason());
      return;
    }
    if (decision instanceof RequestHeads.Connect c) {
      closing = true; // a ConnectHandler takes the connection; this leg leaves
      ConnectHandler.takeOver(ctx, engine, codec.connection(), c.target(), req.http10(), req.ended(), inbound);
      return;
    }
    RequestHead head = ((RequestHeads.Forward) decision).head();
    codec.begin(req);
    RecordedFlow flow = codec.newFlow(engine.store().nextId(), engine.config().capture());
    flow.timings().requestStart(now);
    exchange = new Exchange(flow, engine.store(), System::nanoTime);
    if (carried1 != null) { // the lists of the previous exchange on this connection
      exchange.recycle(carried1);
      carried1 = null;
    }
    if (carried2 != null) {
      exchange.recycle(carried2);
      carried2 = null;
    }
    if (!req.webSocket()) {
      flow.request(head);
      fullTier = FullTierDriver.begin(this, codec, errors, exchange, engine, ctx.executor(), req.expectsContinue());
    }
    if (fullTier == null) {
      run(exchange, new ExchangeEvent.RequestHeadersReceived(head, req.webSocket()));
    }
  }

  // ---- commands ----------------------------------------------------------------------------

  /** Feeds {@code e} to {@code ex} and carries out its commands; their list goes back to {@code ex}. */
  private void run(Exchange ex, ExchangeEvent e) {
    List<ExchangeCommand> commands = ex.on(e);
    execute(commands);
    if (ex == exchange) {
      ex.recycle(commands);
    } else {
      carry(commands); // the exchange ended while they were carried out: the next one takes them
    }
  }

  /** Keeps an exchange's command list (carried out) for the leg's next exchange, two at most. */
  private void carry(List<ExchangeCommand> commands) {
    if (!(commands instanceof java.util.ArrayList)) {
      return; // null, or not a list an exchange made
    }
    if (carried1 == null) {
      commands.clear();
      carried1 = commands;
    } else if (carried2 == null && commands != carried1) {
      commands.clear();
      carried2 = commands;
    }
  }

  void execute(List<ExchangeCommand> commands) {
    for (int i = 0; i < commands.size(); i++) {
      ExchangeCommand c = commands.get(i);
      if (c instanceof ExchangeCommand.OpenUpstream o) {
        openUpstream(o);
      } else if (c instanceof ExchangeCommand.SendRequestHead h) {
        serverLeg.writeHead(h.head(), codec.request());
      } else if (c instanceof ExchangeCommand.SendRequestData d) {
        serverLeg.write(d.payload());
        timeout.rearm(exchange);
      } else if (c instanceof ExchangeCommand.SendRequestEnd e) {
        serverLeg.end(e.trailers());
        timeout.rearm(exchange);
      } else if (c instanceof ExchangeCommand.SendResponseHead h) {
        sendResponseHead(h.head());
      } else if (c instanceof ExchangeCommand.SendResponseData d) {
        if (fullTier == null || !fullTier.collect(d.payload())) {
          codec.responseBody(d.payload());
        }
      } else if (c instanceof ExchangeCommand.SendResponseEnd e) {
        codec.end(e.trailers());
      } else if (c instanceof ExchangeCommand.SendErrorResponse e) {
        errors.exchangeFailed(e, exchange.flow());
      } else if (c instanceof ExchangeCommand.Discard d) {
        ReferenceCountUtil.release(d.payload());
      } else if (c instanceof ExchangeCommand.SwitchToWebSocket) {
        switchToWebSocket();
      } else if (c instanceof ExchangeCommand.AdvertiseAltSvc a && serverLeg != null) {
        serverLeg.advertised(a.values(), a.age());
      } else if (c instanceof ExchangeCommand.ReleaseUpstream r) {
        releaseUpstream(r.reusable());
      } else if (c instanceof ExchangeCommand.CloseClient cc) {
        closing = true;
        codec.closeClient(cc.abort());
      } else if (c instanceof ExchangeCommand.Finished) {
        finished();
      }
    }
  }

  private void openUpstream(ExchangeCommand.OpenUpstream o) {
    Exchange ex = exchange;
    UpstreamChoice choice = UpstreamChoice.of(engine.config(), side, codec.request().webSocket(), o.scheme());
    ServerLeg.open(new ServerLeg.Opening(engine.connector(), this, ex.flow()) {
      @Override
      boolean wanted() {
        return exchange == ex && !ex.finished();
      }

      @Override
      void opened(ServerLeg leg, FlowError error) {
        upstreamOpened(ex, leg, error);
      }
    }, o, choice, ctx.channel().eventLoop());
  }

  private void upstreamOpened(Exchange ex, ServerLeg leg, FlowError error) {
    if (error != null) {
      execute(ex.on(new ExchangeEvent.UpstreamFailed(error)));
      return;
    }
    serverLeg = leg;
    run(ex, new ExchangeEvent.UpstreamReady(leg.info(), leg.protocol()));
    if (serverLeg != null) {
      serverLeg.start(reading);
      timeout.arm(ex);
    }
    drain();
    readClientIfReady();
  }

  /** A response head from the exchange or the full tier (which collects the origin's final head). */
  void sendResponseHead(ResponseHead head) {
    timeout.disarm();
    if (fullTier == null || !fullTier.collect(head)) {
      codec.respond(head, engine.altSvc().get());
    }
  }

  void releaseUpstream(boolean reusable) {
    timeout.disarm();
    ServerLeg leg = serverLeg;
    if (leg != null) {
      serverLeg = null;
      waitingForUpstreamWritable = waitingForClientWritable = false;
      leg.release(reusable);
    }
  }

  private void finished() {
    endFullTier();
    ChannelFuture last = codec.finish();
    if (exchange != null) {
      carry(exchange.takeSpare());
      carry(exchange.takeSpare());
    }
    exchange = null;
    if (closing || !codec.goesOn()) {
      stopReading();
      codec.close(last);
      return;
    }
    codec.flushWritten(); // the response's end flushed it (and what came before) unless it is still held
    codec.resumeHttp(engine.config().limits()); // after a refused upgrade: held bytes are the next request
    drain();
    readClientIfReady();
  }

  private void switchToWebSocket() {
    WebSocketUpgrade.switchToWebSocket(engine, exchange, ctx, serverLeg, codec.takeHeld(), () -> {
      timeout.disarm();
      serverLeg = null;
      exchange = null;
      stopReading();
    });
  }

  // ---- for the full tier and errors ----------------------------------------------------------

  /** A paced slice of request body went to the exchange: it leaves now; the origin's time counts from here. */
  void requestSliceSent(Exchange ex) {
    if (serverLeg != null) {
      serverLeg.channel().flush();
      timeout.arm(ex);
    }
  }

  /** Forgets the current exchange's full tier. */
  void endFullTier() {
    if (fullTier != null) {
      fullTier.stop();
      fullTier = null;
    }
  }

  /** The leg is closing: nothing more is read or taken from the queue; what is held is dropped. */
  void stopReading() {
    closing = true;
    releaseHeld();
  }

  // ---- from the server leg, and backpressure -----------------------------------------------

  @Override
  public void serverEvent(ExchangeEvent e) {
    if (exchange != null && (fullTier == null || !fullTier.collect(e))) {
      run(exchange, e);
    } else if (exchange == null && e instanceof ExchangeEvent.ResponseDataReceived d) {
      ReferenceCountUtil.release(d.payload());
    }
  }

  @Override
  public void serverBroken(FlowError error, boolean retryable) {
    if (exchange != null) {
      execute(exchange.on(new ExchangeEvent.UpstreamBroken(error, retryable)));
    }
  }

  @Override
  public void serverReadComplete() {
    codec.beforeBody();
    codec.flushWritten();
    if (serverLeg != null) {
      if (ctx.channel().isWritable()) {
        Pipelines.readSoon(serverLeg.channel());
      } else {
        waitingForClientWritable = true;
      }
    }
  }

  @Override
  public void serverWritabilityChanged() {
    if (waitingForUpstreamWritable && serverLeg != null && serverLeg.channel().isWritable()) {
      waitingForUpstreamWritable = false;
      readClientIfReady();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (waitingForClientWritable && ctx.channel().isWritable() && serverLeg != null) {
      waitingForClientWritable = false;
      serverLeg.channel().read();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    reading = false;
    if (serverLeg != null) {
      serverLeg.flushWritten();
    }
    readClientIfReady();
  }

  private void readClientIfReady() {
    if (closing || codec.holding() || !inbound.isEmpty() || !ctx.channel().isActive()) {
      return;
    }
    if (exchange == null || fullTier != null && fullTier.collectingRequest()) {
      Pipelines.readSoon(ctx.channel());
    } else if (exchange.wantsRequestData() && serverLeg != null) {
      if (serverLeg.channel().isWritable()) {
        Pipelines.readSoon(ctx.channel());
      } else {
        waitingForUpstreamWritable = true;
      }
    }
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    stopReading();
    if (fullTier != null) {
      fullTier.cancel(); // a pause for a client that left ends without an outcome
    }
    if (exchange != null) {
      execute(exchange.on(new ExchangeEvent.ClientGone(codec.goneReason())));
    }
    endFullTier();
    releaseUpstream(false);
    timeout.stop();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    codec.failed(cause);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    endFullTier();
    releaseHeld();
  }

  /** Drops what is queued and the bytes held behind an upgrade. */
  private void releaseHeld() {
    Object o;
    while ((o = inbound.poll()) != null) {
      ReferenceCountUtil.release(o);
    }
    codec.releaseHeld();
  }
}
