package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Looks at the first bytes a client sends through a CONNECT tunnel: a TLS ClientHello record
 * means interception (SNI → minted certificate → HTTP/1.1 inside); a cleartext HTTP request line
 * (ws://, http:// over CONNECT) is parsed as HTTP too, and so is cleartext HTTP/2 with prior
 * knowledge (h2c, e.g. gRPC without TLS); anything else, or silence for a while
 * (server-speaks-first protocols), makes an opaque TUNNEL.
 */
final class TlsSniffer extends ChannelInboundHandlerAdapter {
  /** TLS record type "handshake". */
  private static final int TLS_HANDSHAKE = 0x16;
  private static final long SILENCE_MS = 3_000;

  private final EngineContext engine;
  private final String host;
  private final int port;
  private final ConnectionInfo clientInfo;
  private ScheduledFuture<?> silenceTimer;
  private boolean decided;

  TlsSniffer(EngineContext engine, String host, int port, ConnectionInfo clientInfo) {
    this.engine = engine;
    this.host = host;
    this.port = port;
    this.clientInfo = clientInfo;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    silenceTimer = ctx.executor().schedule(() -> {
      if (!decided) {
        tunnel(ctx, null);
      }
    }, SILENCE_MS, TimeUnit.MILLISECONDS);
    ctx.read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (decided || !(msg instanceof ByteBuf buf)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!buf.isReadable()) {
      buf.release();
      ctx.read();
      return;
    }
    decided = true;
    silenceTimer.cancel(false);
    if (buf.getUnsignedByte(buf.readerIndex()) == TLS_HANDSHAKE) {
      intercept(ctx, buf);
    } else if (startsHttp2Preface(buf)) {
      interceptH2c(ctx, buf);
    } else if (looksLikeHttp(buf)) {
      interceptCleartext(ctx, buf);
    } else {
      tunnel(ctx, buf);
    }
  }

  private void intercept(ChannelHandlerContext ctx, ByteBuf first) {
    ChannelPipeline p = ctx.pipeline();
    p.addAfter(ctx.name(), Pipelines.SNI, new LeaveTolerantSniHandler(engine.mitm(), host));
    p.addAfter(Pipelines.SNI, Pipelines.ALPN, new AlpnClientLeg(engine, "https", host, port));
    p.remove(this);
    p.fireChannelRead(first);
    p.fireChannelReadComplete();
  }

  /** Plain HTTP inside the tunnel (ws://, or clients that CONNECT for http://): parse it too. */
  private void interceptCleartext(ChannelHandlerContext ctx, ByteBuf first) {
    ChannelPipeline p = ctx.pipeline();
    p.addAfter(ctx.name(), Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(engine.config().limits()));
    p.addAfter(Pipelines.HTTP_SERVER_CODEC, Pipelines.CLIENT_LEG, new ClientLeg(engine,
        new ClientSide("http", host, port, null, "HTTP/1.1", false)));
    p.remove(this);
    p.fireChannelRead(first);
    p.fireChannelReadComplete();
  }

  /**
   * Cleartext HTTP/2 with prior knowledge inside the tunnel (gRPC without TLS through a proxy): the
   * client knows the origin speaks h2c, so each stream goes to it as h2c too.
   */
  private void interceptH2c(ChannelHandlerContext ctx, ByteBuf first) {
    ChannelPipeline p = ctx.pipeline();
    p.remove(this);
    AlpnClientLeg.installHttp2(engine, ctx.channel(), new ClientSide("http", host, port, null, "HTTP/2", true, true));
    p.fireChannelRead(first);
    p.fireChannelReadComplete();
  }

  /** The client connection preface of HTTP/2 ("PRI * HTTP/2.0..."; the PRI method exists for nothing else). */
  static boolean startsHttp2Preface(ByteBuf buf) {
    return Pipelines.http2PrefaceMatch(buf) >= 4;
  }

  /** An HTTP/1.x request line starts with an upper-case token and a space ("GET ", "OPTIONS "). */
  static boolean looksLikeHttp(ByteBuf buf) {
    int n = Math.min(buf.readableBytes(), 9);
    for (int i = 0; i < n; i++) {
      int c = buf.getUnsignedByte(buf.readerIndex() + i);
      if (c == ' ') {
        return i >= 3;
      }
      if (c < 'A' || c > 'Z') {
        return false;
      }
    }
    return false;
  }

  private void tunnel(ChannelHandlerContext ctx, ByteBuf first) {
    decided = true;
    RecordedFlow flow = TunnelRelay.newTunnelFlow(engine, host, port, clientInfo);
    engine.connector().acquire(ctx.channel().eventLoop(), "tcp", host, port, flow).addListener(f -> {
      UpstreamConnector.Result r = (UpstreamConnector.Result) f.getNow();
      if (r.error() != null || !ctx.channel().isActive()) {
        if (first != null) {
          first.release();
        }
        if (r.connection() != null) {
          r.connection().channel().close();
        }
        flow.fail(r.error() != null ? r.error() : new dev.loupe.engine.flow.FlowError(
            dev.loupe.engine.flow.FlowError.Kind.CLIENT_ABORT, "the client left before the tunnel opened"));
        engine.store().completed(flow);
        ctx.close();
        return;
      }
      TunnelRelay.start(engine, flow, ctx.channel(), r.connection(), first);
      ctx.pipeline().remove(this);
    });
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (silenceTimer != null) {
      silenceTimer.cancel(false);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
