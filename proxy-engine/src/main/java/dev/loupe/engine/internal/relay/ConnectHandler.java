package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.internal.protocol.http1.RequestTargets;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.time.Instant;

/**
 * A CONNECT request in regular mode (RFC 9110 §9.3.6), once the client leg has parsed its target:
 * it takes the leg's place in the pipeline and turns the connection into a tunnel.
 *
 * <ul>
 *   <li>An ignored host: dial, then {@code 200} and an opaque {@link TunnelRelay} (or a 502).
 *   <li>Otherwise, {@link EngineConfig.ConnectStrategy#EAGER} (default): dial first; a failure is a
 *       {@code 502} naming the cause and a failed CONNECT flow; on success the connection is parked
 *       for the tunnel's first request, then {@code 200} and the {@link TlsSniffer} decides what the
 *       tunnel carries. {@link EngineConfig.ConnectStrategy#LAZY}: {@code 200} at once, then the
 *       sniffer.
 * </ul>
 * Bytes the client sends before the {@code 200} are held and become the tunnel's first bytes. Event
 * loop confined; owns the held bytes until it hands them on or is removed.
 */
final class ConnectHandler extends ChannelInboundHandlerAdapter {
  private static final String RESPONSE_ENCODER = "connect-response-encoder";

  private final EngineContext engine;
  private final ConnectionInfo clientInfo;
  private final String host;
  private final int port;
  private final boolean http10;
  private ChannelHandlerContext ctx;
  /** True until the CONNECT message's end arrives from the HTTP decoder. */
  private boolean awaitingEnd;
  /** True once the HTTP decoder is gone: raw bytes are held in {@link #early}. */
  private boolean holding;
  private ByteBuf early;

  ConnectHandler(EngineContext engine, ConnectionInfo clientInfo, RequestTargets.Authority target, boolean http10,
      boolean requestEnded) {
    this.engine = engine;
    this.clientInfo = clientInfo;
    this.host = target.host();
    this.port = target.port();
    this.http10 = http10;
    this.awaitingEnd = !requestEnded;
  }

  /**
   * Puts a handler for {@code target} in the place of the client leg at {@code legCtx}: hands it
   * what the leg had queued ({@code queued}: the rest of the CONNECT message, or what the client sent
   * behind it) and removes the leg.
   */
  static void takeOver(ChannelHandlerContext legCtx, EngineContext engine, ConnectionInfo clientInfo,
      RequestTargets.Authority target, boolean http10, boolean requestEnded, java.util.Queue<Object> queued) {
    ChannelPipeline p = legCtx.pipeline();
    p.addAfter(legCtx.name(), "connect", new ConnectHandler(engine, clientInfo, target, http10, requestEnded));
    Object m;
    while ((m = queued.poll()) != null) {
      legCtx.fireChannelRead(m);
    }
    p.remove(legCtx.handler());
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (!awaitingEnd) {
      ctx.executor().execute(this::start); // after the leg has left the pipeline
    } else {
      ctx.read();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (holding && msg instanceof ByteBuf b) {
      early = early == null ? b : Unpooled.wrappedBuffer(early, b);
      return;
    }
    ReferenceCountUtil.release(msg);
    if (awaitingEnd && msg instanceof LastHttpContent) {
      // The rest of the CONNECT message (it has no body); then the connection leaves HTTP.
      awaitingEnd = false;
      start();
    } else if (awaitingEnd && !(msg instanceof HttpContent)) {
      ctx.read();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (awaitingEnd) {
      ctx.read();
    }
  }

  private void start() {
    if (!ctx.channel().isActive()) {
      return;
    }
    ChannelPipeline p = ctx.pipeline();
    EngineConfig config = engine.config();
    if (config.ignored(host, port)) {
      dial(FlowTier.TUNNEL);
      return;
    }
    boolean eager = config.connectStrategy() == EngineConfig.ConnectStrategy.EAGER
        // QUIC would not use a TCP connection; a pooled connection says the origin is reachable.
        && config.upstreamProtocol() != EngineConfig.UpstreamProtocol.H3
        && !engine.connector().hasPooled(ctx.channel().eventLoop(), host, port);
    if (eager) {
      dial(FlowTier.RELAY);
      return;
    }
    ctx.writeAndFlush(established());
    p.addAfter(ctx.name(), Pipelines.SNIFFER, new TlsSniffer(engine, host, port, clientInfo));
    p.remove(this);
    // Bytes the client sent right after CONNECT move on to the sniffer when the codec goes.
    p.remove(Pipelines.HTTP_SERVER_CODEC);
  }

  /**
   * Dials {@code host:port} before answering. {@code TUNNEL}: the connection carries an opaque tunnel
   * (its flow is recorded either way). {@code RELAY}: it is parked for the tunnel's first request,
   * which the sniffer's leg will send; only a failed dial is recorded (as a failed CONNECT flow).
   */
  private void dial(FlowTier tier) {
    ChannelPipeline p = ctx.pipeline();
    holding = true;
    // Stop parsing: bytes behind the CONNECT belong to the tunnel (the codec hands its leftovers to
    // channelRead, which holds them). An encoder stays for the 200 or the 502.
    p.replace(Pipelines.HTTP_SERVER_CODEC, RESPONSE_ENCODER, new HttpResponseEncoder());
    boolean tunnel = tier == FlowTier.TUNNEL;
    RecordedFlow flow = tunnel ? TunnelRelay.newTunnelFlow(engine, host, port, clientInfo)
        : new RecordedFlow(0, Instant.now(), engine.config().capture()); // timings of the dial, recorded if it fails
    flow.timings().requestStart(System.nanoTime());
    engine.connector().acquire(ctx.channel().eventLoop(), "tcp", host, port, flow).addListener(f -> {
      UpstreamConnector.Result r = (UpstreamConnector.Result) f.getNow();
      if (r.error() != null) {
        RecordedFlow failed = tunnel ? flow : TunnelRelay.newConnectFlow(engine, host, port, clientInfo, FlowTier.RELAY);
        failed.fail(r.error());
        engine.store().completed(failed);
        badGateway(r.error());
        return;
      }
      if (!ctx.channel().isActive()) {
        r.connection().channel().close();
        if (tunnel) {
          flow.fail(new FlowError(FlowError.Kind.CLIENT_ABORT, "the client left before the tunnel opened"));
          engine.store().completed(flow);
        }
        return;
      }
      if (!tunnel) {
        engine.connector().parkPredialed(r.connection(), host, port);
      }
      ctx.writeAndFlush(established()).addListener(w -> {
        if (!w.isSuccess()) {
          if (tunnel) {
            r.connection().channel().close();
            flow.fail(new FlowError(FlowError.Kind.CLIENT_ABORT, "the client left before the tunnel opened"));
            engine.store().completed(flow);
          }
          return;
        }
        if (p.get(RESPONSE_ENCODER) != null) {
          p.remove(RESPONSE_ENCODER);
        }
        ByteBuf first = early;
        early = null;
        holding = false;
        if (tunnel) {
          TunnelRelay.start(engine, flow, ctx.channel(), r.connection(), first);
        } else {
          p.addAfter(ctx.name(), Pipelines.SNIFFER, new TlsSniffer(engine, host, port, clientInfo));
          if (first != null) {
            ctx.fireChannelRead(first);
            ctx.fireChannelReadComplete();
          }
        }
        p.remove(this);
      });
    });
  }

  private void badGateway(FlowError error) {
    releaseEarly();
    ctx.writeAndFlush(ErrorPages.page(502, "Bad Gateway", error.message(), error.kind(), http10, true))
        .addListener(ChannelFutureListener.CLOSE);
  }

  private static FullHttpResponse established() {
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, new HttpResponseStatus(200, "Connection established"));
  }

  private void releaseEarly() {
    holding = false;
    if (early != null) {
      early.release();
      early = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseEarly();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releaseEarly();
  }
}
