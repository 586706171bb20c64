package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.ServerCertificate;
import dev.loupe.engine.internal.protocol.http1.RequestTargets;
import dev.loupe.engine.internal.tls.TlsProviders;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.ReferenceCountUtil;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;

/**
 * Serves the setup page inside a tunnel to {@code loupe.setup} (a CONNECT, or a SOCKS5 CONNECT):
 * TLS with a certificate for {@code loupe.setup} from the Loupe CA (HTTP/1.1 only) when the client
 * starts a handshake, cleartext HTTP otherwise; every request is answered by {@link SetupPage}.
 * Nothing is forwarded and no flow is recorded: the page is Loupe's own.
 *
 * <p>One instance per tunnel, confined to its event loop; the TLS context is built once per
 * certificate source, off the event loop, and shared.
 */
final class SetupHost extends ChannelInboundHandlerAdapter {
  static final String NAME = "setup-host";
  private static final int TLS_HANDSHAKE = 0x16;
  private static final int MAX_REQUEST = 64 * 1024;
  /** The loupe.setup TLS context per certificate source (weak: a source that is gone takes its context). */
  private static final Map<CertificateSource, CompletableFuture<SslContext>> CONTEXTS = new WeakHashMap<>();

  private final EngineContext engine;
  private boolean decided;

  SetupHost(EngineContext engine) {
    this.engine = engine;
  }

  /**
   * Answers the CONNECT {@code connect} (released here) through the HTTP codec, then replaces the
   * codec, the gate and the leg with a {@code SetupHost}.
   */
  static void takeOver(ChannelHandlerContext gate, EngineContext engine, HttpRequest connect) {
    ChannelPipeline p = gate.pipeline();
    ReferenceCountUtil.release(connect);
    p.addAfter(gate.name(), NAME, new SetupHost(engine));
    gate.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
        new HttpResponseStatus(200, "Connection established")));
    if (p.get(Pipelines.CLIENT_LEG) != null) {
      p.remove(Pipelines.CLIENT_LEG);
    }
    p.remove(gate.handler());
    // Last: bytes the client sent behind the CONNECT move on to this handler as the codec goes.
    p.remove(Pipelines.HTTP_SERVER_CODEC);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      ctx.read();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (decided || !(msg instanceof ByteBuf buf)) {
      ReferenceCountUtil.release(msg); // e.g. the end of the CONNECT message
      if (!decided) {
        ctx.read();
      }
      return;
    }
    if (!buf.isReadable()) {
      buf.release();
      ctx.read();
      return;
    }
    decided = true;
    if (buf.getUnsignedByte(buf.readerIndex()) != TLS_HANDSHAKE) {
      install(ctx, null, buf);
      return;
    }
    context(engine).whenComplete((ssl, err) -> ctx.executor().execute(() -> {
      if (err != null || !ctx.channel().isActive()) {
        buf.release();
        ctx.close();
        return;
      }
      install(ctx, ssl, buf);
    }));
  }

  private void install(ChannelHandlerContext ctx, SslContext ssl, ByteBuf first) {
    ChannelPipeline p = ctx.pipeline();
    String after = ctx.name();
    if (ssl != null) {
      p.addAfter(after, "setup-tls", ssl.newHandler(ctx.alloc()));
      after = "setup-tls";
    }
    p.addAfter(after, "setup-codec", Pipelines.serverCodec(engine.config().limits()));
    p.addAfter("setup-codec", "setup-aggregator", new HttpObjectAggregator(MAX_REQUEST));
    p.addAfter("setup-aggregator", "setup-server", new Server(engine));
    p.remove(this);
    ctx.channel().config().setAutoRead(true); // a few small requests: no backpressure to keep
    p.fireChannelRead(first);
    p.fireChannelReadComplete();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  /** The TLS context presenting Loupe's certificate for loupe.setup, HTTP/1.1 by ALPN. */
  private static CompletableFuture<SslContext> context(EngineContext engine) {
    CertificateSource source = engine.config().certificates();
    synchronized (CONTEXTS) {
      CompletableFuture<SslContext> f = CONTEXTS.get(source);
      if (f == null || f.isCompletedExceptionally()) {
        f = CompletableFuture.supplyAsync(() -> build(source), engine.blocking());
        CONTEXTS.put(source, f);
      }
      return f;
    }
  }

  private static SslContext build(CertificateSource source) {
    ServerCertificate cert = source.certificateFor(SetupPage.HOST);
    try {
      return SslContextBuilder.forServer(cert.privateKey(), cert.chain().toArray(new X509Certificate[0]))
          .sslProvider(TlsProviders.preferred())
          .protocols("TLSv1.3", "TLSv1.2")
          .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_1_1))
          .build();
    } catch (Exception e) {
      throw new IllegalStateException("cannot build the TLS context for " + SetupPage.HOST + ": " + e.getMessage(), e);
    }
  }

  /** Answers each (aggregated) request with the setup page; keeps the connection while the client does. */
  private static final class Server extends SimpleChannelInboundHandler<FullHttpRequest> {
    private final EngineContext engine;

    Server(EngineContext engine) {
      this.engine = engine;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
      boolean keepAlive = HttpUtil.isKeepAlive(req) && req.decoderResult().isSuccess();
      FullHttpResponse r;
      if (req.decoderResult().isFailure()) {
        r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
      } else {
        r = SetupPage.answer(req.method(), SetupPage.path(targetPath(req.uri())), engine.config().setup(), null,
            req.protocolVersion());
      }
      if (!keepAlive) {
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
      } else {
        ctx.writeAndFlush(r);
      }
    }

    /** The path of an origin-form or absolute-form target. */
    private static String targetPath(String uri) {
      if (uri.startsWith("/")) {
        return uri;
      }
      try {
        return RequestTargets.parseAbsolute(uri).target();
      } catch (IllegalArgumentException e) {
        return uri;
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
