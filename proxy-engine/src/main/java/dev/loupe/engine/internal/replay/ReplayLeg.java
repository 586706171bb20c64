package dev.loupe.engine.internal.replay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ExchangeCommand;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.exchange.ResponseTimer;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import dev.loupe.engine.internal.upstream.Http3Upstreams;
import dev.loupe.engine.internal.upstream.LegSlot;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The leg of a request Loupe sends itself (replay, composer): there is no client, so this leg feeds
 * the request to the same {@link Exchange} live traffic runs on and carries out its commands against
 * a server-leg connection. The exchange decides what the live client leg's exchanges decide — the
 * one retry on a fresh connection, whether the connection goes back to the pool, the Alt-Svc fields
 * handed on, how the flow ends and is recorded; this class only does I/O and the choices a replay
 * makes itself (the protocol to ask for, and a response timeout that also covers a stalled body,
 * since no client is there to give up).
 *
 * <h3>Lifecycle</h3>
 * {@code start} feeds the whole request (head, the body as one immutable payload, end) and the
 * exchange asks for a connection; once connected, the request goes out as one message; the
 * connection's response objects ({@code HttpObject}s, the same on HTTP/1.1, HTTP/2 and HTTP/3 server
 * legs) become exchange events; {@link ExchangeCommand.Finished} reports the flow. While it owns a
 * connection it is that connection's {@link LegSlot} owner.
 *
 * <h3>Threads and buffers</h3>
 * Confined to the event loop it was started on (connections are acquired on it). The request body is
 * a byte array the exchange may hand back for a retry; each write wraps it anew. Response payloads are
 * captured on the flow and released here (or released when the exchange discards them).
 */
final class ReplayLeg extends ChannelInboundHandlerAdapter {
  private final Replays.Context ctx;
  private final RecordedFlow flow;
  private final ReplayRequest request;
  private final Replayer.Protocol protocol;
  private final Consumer<Flow> onDone;
  private final String authority;
  private final Exchange exchange;
  private final ResponseTimer<Exchange> timer;

  private UpstreamConnection upstream;
  private boolean multiplexed;
  /** The final (non-1xx) response head arrived on the current connection. */
  private boolean responseStarted;
  /** The body pieces of the request being written (between its head and its end). */
  private final List<byte[]> pendingBody = new ArrayList<>(1);
  private ScheduledFuture<?> wake;
  /** The request body is recorded on the flow once a connection takes it (not for a replay that never left). */
  private boolean bodyRecorded;
  private boolean reported;

  ReplayLeg(Replays.Context ctx, RecordedFlow flow, ReplayRequest request, Replayer.Protocol protocol,
      Consumer<Flow> onDone) {
    this.ctx = ctx;
    this.flow = flow;
    this.request = request;
    this.protocol = protocol;
    this.onDone = onDone;
    this.authority = request.head().authority();
    this.exchange = new Exchange(flow, ctx.store(), System::nanoTime);
    this.timer = new ResponseTimer<>(System::nanoTime, ctx.config().responseTimeout().toNanos());
    exchange.markRecorded(); // Replays.send recorded it
    exchange.keepRequestPayloads(); // the body is an array: a retry can send it again
  }

  /**
   * Feeds the whole request to the exchange, then carries out what it asks (a connection). The
   * commands wait until the request is complete: a pooled connection is handed over at once, and the
   * exchange must hold the whole request by then. On the event loop.
   */
  void start() {
    List<ExchangeCommand> out = new ArrayList<>(exchange.on(
        new ExchangeEvent.RequestHeadersReceived(flow.request(), false)));
    if (request.body().length > 0) {
      out.addAll(exchange.on(new ExchangeEvent.RequestDataReceived(request.body(), request.body().length)));
    }
    out.addAll(exchange.on(new ExchangeEvent.RequestEnded(Headers.EMPTY)));
    execute(out);
  }

  // ---- commands ------------------------------------------------------------------------------

  private void execute(List<ExchangeCommand> commands) {
    for (ExchangeCommand c : commands) {
      if (c instanceof ExchangeCommand.OpenUpstream) {
        acquire().addListener(f -> connected((UpstreamConnector.Result) f.getNow()));
      } else if (c instanceof ExchangeCommand.SendRequestHead) {
        pendingBody.clear(); // the head is this leg's prepared one (ReplayRequest); the body follows
      } else if (c instanceof ExchangeCommand.SendRequestData d) {
        pendingBody.add((byte[]) d.payload());
      } else if (c instanceof ExchangeCommand.SendRequestEnd e) {
        writeRequest(e.trailers());
      } else if (c instanceof ExchangeCommand.SendResponseData d) {
        capture(d.payload());
      } else if (c instanceof ExchangeCommand.Discard d) {
        ReferenceCountUtil.release(d.payload());
      } else if (c instanceof ExchangeCommand.AdvertiseAltSvc a) {
        if (upstream != null) {
          ctx.connector().advertised(upstream.key(), a.values(), a.age());
        }
      } else if (c instanceof ExchangeCommand.ReleaseUpstream r) {
        releaseUpstream(r.reusable());
      } else if (c instanceof ExchangeCommand.Finished) {
        finished();
      }
      // SendResponseHead/End: the exchange recorded them on the flow. SendErrorResponse, CloseClient,
      // SwitchToWebSocket: there is no client (and a replay never asks for an upgrade).
    }
  }

  // ---- connection ----------------------------------------------------------------------------

  /** Asks for a server-leg connection for the replay's protocol. */
  private Future<UpstreamConnector.Result> acquire() {
    EngineConfig config = ctx.config();
    UpstreamConnector connector = ctx.connector();
    String scheme = request.head().scheme();
    String host = request.head().host();
    int port = request.head().port();
    boolean https = scheme.equals("https");
    switch (protocol) {
      case H3 -> {
        flow.http3Status("forced (replay over HTTP/3)");
        if (config.upstreamProxy() != null) {
          return failed(new FlowError(FlowError.Kind.CONNECT, "HTTP/3 cannot go through the upstream proxy "
              + config.upstreamProxy() + " (QUIC is UDP; the proxy tunnels TCP)"));
        }
        Http3Upstreams pool = connector.http3Pool(() -> Replays.newHttp3Pool(ctx));
        if (pool == null) {
          return failed(new FlowError(FlowError.Kind.CONNECT, "HTTP/3 is not available here: "
              + connector.http3Unavailable()));
        }
        return pool.acquire(ctx.loop(), host, port, flow);
      }
      case H1, H2 -> {
        if (https) {
          flow.http3Status("forced off (replay over "
              + (protocol == Replayer.Protocol.H1 ? "HTTP/1.1" : "HTTP/2") + ")");
        }
        return connector.acquire(ctx.loop(), scheme, host, port, flow,
            protocol == Replayer.Protocol.H1 ? UpstreamConnector.Want.H1 : UpstreamConnector.Want.H2);
      }
      default -> {
        // AUTO: the way proxied traffic goes under --upstream-protocol.
        String noHttp3 = !https ? null : switch (config.upstreamProtocol()) {
          case H1 -> "forced off (--upstream-protocol h1)";
          case H2 -> "forced off (--upstream-protocol h2)";
          case H3 -> "forced (--upstream-protocol h3)";
          case AUTO -> config.upstreamProxy() != null ? "off: QUIC cannot go through the upstream proxy" : null;
        };
        if (noHttp3 != null) {
          flow.http3Status(noHttp3);
        }
        UpstreamConnector.Want want = switch (config.upstreamProtocol()) {
          case H1 -> UpstreamConnector.Want.H1;
          case H2 -> UpstreamConnector.Want.H2;
          case H3 -> UpstreamConnector.Want.H3;
          case AUTO -> UpstreamConnector.Want.H2_OR_H1;
        };
        return connector.acquire(ctx.loop(), scheme, host, port, flow, want, https && noHttp3 == null);
      }
    }
  }

  private Future<UpstreamConnector.Result> failed(FlowError error) {
    return ctx.loop().newSucceededFuture(new UpstreamConnector.Result(null, error));
  }

  private void connected(UpstreamConnector.Result r) {
    if (exchange.finished()) {
      if (r.connection() != null) {
        ctx.connector().release(r.connection(), true); // unused: pool it
      }
      return;
    }
    if (r.error() != null) {
      execute(exchange.on(new ExchangeEvent.UpstreamFailed(r.error())));
      return;
    }
    upstream = r.connection();
    multiplexed = upstream.multiplexed();
    responseStarted = false;
    Channel ch = upstream.channel();
    // The head as it goes out on this protocol (HTTP/2 and HTTP/3 carry Host as :authority).
    flow.request(request.recorded(upstream.protocol(), multiplexed));
    if (ch instanceof QuicStreamChannel qs) {
      flow.serverStreamId((int) Math.min(qs.streamId(), Integer.MAX_VALUE));
    }
    if (!bodyRecorded) {
      bodyRecorded = true;
      if (request.body().length > 0) {
        flow.requestBody().append(ByteBuffer.wrap(request.body()));
      }
    }
    if (ch instanceof Http2StreamChannel && ch.pipeline().get(UpstreamConnector.CODEC) == null) {
      // HTTP/2 origin streams carry frames; a replay writes and reads HTTP objects.
      ch.pipeline().addFirst(UpstreamConnector.CODEC, new Http2StreamFrameToHttpObjectCodec(false));
    }
    LegSlot.attach(ch, this);
    execute(exchange.on(new ExchangeEvent.UpstreamReady(upstream.info(), upstream.protocol())));
    if (upstream != null && upstream.channel() == ch) {
      ch.read();
      armTimer();
    }
  }

  /** Writes the request as one message: the prepared head, the body the exchange handed back, trailers. */
  private void writeRequest(Headers trailers) {
    UpstreamConnection sentOn = upstream;
    if (sentOn == null) {
      return;
    }
    ByteBuf body = pendingBody.isEmpty() ? Unpooled.EMPTY_BUFFER
        : Unpooled.wrappedBuffer(pendingBody.toArray(new byte[0][]));
    pendingBody.clear();
    Channel ch = sentOn.channel();
    ch.write(request.toNetty(body, trailers)).addListener(w -> {
      if (upstream != sentOn || exchange.finished()) {
        return;
      }
      if (w.isSuccess()) {
        flow.timings().sendEnd(System.nanoTime()); // the last byte is out: the wait starts now
        recordStreamId();
      } else {
        broken(new FlowError(FlowError.Kind.SERVER_RESET, "cannot send the request to " + authority + ": "
            + message(w.cause())));
      }
    });
    FlushCoalescer.flush(ch);
  }

  private void recordStreamId() {
    if (upstream != null && upstream.channel() instanceof Http2StreamChannel sc && sc.stream().id() > 0) {
      flow.serverStreamId(sc.stream().id());
    }
  }

  private void releaseUpstream(boolean reusable) {
    timer.disarm();
    if (upstream == null) {
      return;
    }
    UpstreamConnection up = upstream;
    upstream = null;
    LegSlot.detach(up.channel(), this);
    ctx.connector().release(up, reusable);
  }

  private void capture(Object payload) {
    try {
      ByteBuf data = payload instanceof HttpContent c ? c.content() : (ByteBuf) payload;
      if (data.nioBufferCount() == 1) {
        flow.responseBody().append(data.nioBuffer());
      } else {
        for (ByteBuffer b : data.nioBuffers()) {
          flow.responseBody().append(b);
        }
      }
    } finally {
      ReferenceCountUtil.release(payload);
    }
  }

  private void finished() {
    if (reported) {
      return;
    }
    reported = true;
    timer.stop();
    if (wake != null) {
      wake.cancel(false);
      wake = null;
    }
    if (upstream != null) {
      releaseUpstream(false);
    }
    onDone.accept(flow);
  }

  // ---- serverToProxy -------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext c, Object msg) {
    if (exchange.finished() || upstream == null || c.channel() != upstream.channel()) {
      ReferenceCountUtil.release(msg);
      return;
    }
    armTimer(); // the origin is not silent: the timeout counts from now
    if (msg instanceof HttpResponse r) {
      DecoderResult dr = r.decoderResult();
      if (dr.isFailure()) {
        ReferenceCountUtil.release(msg);
        broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority + " sent an invalid response: "
            + message(dr.cause())));
        return;
      }
      boolean informational = r.status().codeClass() == HttpStatusClass.INFORMATIONAL;
      if (!informational) {
        responseStarted = true;
        recordStreamId();
      }
      ResponseHead head = multiplexed
          ? new ResponseHead(r.status().code(), "", upstream.protocol(),
              Http1Messages.toHeadersFromHttp2(r.headers(), false))
          : Http1Messages.toResponseHead(r);
      execute(exchange.on(new ExchangeEvent.ResponseHeadersReceived(head)));
      if (!(msg instanceof HttpContent)) {
        return;
      }
    }
    if (msg instanceof HttpContent content) {
      onContent(content);
      return;
    }
    ReferenceCountUtil.release(msg);
  }

  private void onContent(HttpContent content) {
    if (content.decoderResult().isFailure()) {
      content.release();
      broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority + " sent an invalid response body: "
          + message(content.decoderResult().cause())));
      return;
    }
    boolean last = content instanceof LastHttpContent;
    if (!responseStarted || exchange.finished()) {
      content.release(); // the end of an interim (1xx) response; the final one follows
      return;
    }
    Headers trailers = !last ? null : multiplexed
        ? Http1Messages.toHeadersFromHttp2(((LastHttpContent) content).trailingHeaders(), false)
        : Http1Messages.toHeaders(((LastHttpContent) content).trailingHeaders());
    int length = content.content().readableBytes();
    if (length > 0) {
      // Handed on: captured and released by SendResponseData, or released by Discard.
      execute(exchange.on(new ExchangeEvent.ResponseDataReceived(content, length)));
    } else {
      content.release();
    }
    if (last && !exchange.finished()) {
      execute(exchange.on(new ExchangeEvent.ResponseEnded(trailers)));
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext c) {
    if (!exchange.finished() && upstream != null && c.channel() == upstream.channel()) {
      upstream.channel().read();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) {
    if (!exchange.finished() && upstream != null && c.channel() == upstream.channel()) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET, responseStarted
          ? authority + " closed the connection before the response body ended"
          : authority + " closed the connection before sending a response"));
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
    if (!exchange.finished() && upstream != null && c.channel() == upstream.channel()) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET, "connection to " + authority + " failed: " + message(cause)));
    }
    c.close();
  }

  /**
   * The connection failed. Whether the request goes again on a fresh one is the exchange's rule; the
   * leg says only what it knows: nothing final came back on a connection that was reused.
   */
  private void broken(FlowError error) {
    boolean retryable = !responseStarted && upstream != null && upstream.info().reused();
    execute(exchange.on(new ExchangeEvent.UpstreamBroken(error, retryable)));
  }

  // ---- timeout -------------------------------------------------------------------------------

  /** (Re)starts the response timeout: the longest the origin may stay silent, before the head or mid-body. */
  private void armTimer() {
    long delay = timer.arm(exchange);
    if (delay >= 0) {
      wake = ctx.loop().schedule(this::timerFired, delay, TimeUnit.NANOSECONDS);
    }
  }

  private void timerFired() {
    wake = null;
    ResponseTimer.Verdict v = timer.fired(exchange, exchange.finished());
    if (v instanceof ResponseTimer.Later later) {
      wake = ctx.loop().schedule(this::timerFired, later.delayNanos(), TimeUnit.NANOSECONDS);
    } else if (v instanceof ResponseTimer.TimedOut) {
      long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(ctx.config().responseTimeout().toNanos()));
      if (responseStarted) {
        execute(exchange.on(new ExchangeEvent.UpstreamBroken(new FlowError(FlowError.Kind.TIMEOUT,
            authority + " sent no more of the response for " + seconds + " s (the response timeout)"))));
      } else {
        execute(exchange.on(new ExchangeEvent.ResponseTimedOut(
            "no response from " + authority + " within the response timeout (" + seconds + " s)")));
      }
    }
  }

  private static String message(Throwable t) {
    if (t == null) {
      return "unknown error";
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
