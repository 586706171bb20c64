package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.ConnectionIds;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.time.Instant;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLSession;

/**
 * Sits behind the client-side TLS handshake of an intercepted tunnel and installs the protocol the
 * client chose by ALPN: HTTP/2 (one {@link ClientLeg} per stream, reading its frames through
 * {@link Http2ClientCodec}, so every version feeds the same exchange) or HTTP/1.1. A failed
 * handshake (typically: the client does not trust the Loupe CA) is recorded as a flow.
 *
 * <p>HTTP/2 settings: large stream and connection windows (the 65,535-byte default stalls big
 * downloads), 256 concurrent streams, bounded header lists; Netty's decoders enforce the abuse
 * limits (rapid reset, CONTINUATION and control-frame floods).
 */
final class AlpnClientLeg extends ApplicationProtocolNegotiationHandler {
  private final EngineContext engine;
  private final String scheme;
  private final String host;
  private final int port;
  private boolean failureRecorded;

  /** {@code scheme://host:port} is where requests go: the CONNECT target, or the reverse-mode origin. */
  AlpnClientLeg(EngineContext engine, String scheme, String host, int port) {
    super(ApplicationProtocolNames.HTTP_1_1);
    this.engine = engine;
    this.scheme = scheme;
    this.host = host;
    this.port = port;
  }

  @Override
  protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
    SSLSession s = ssl.engine().getSession();
    TlsInfo tls = new TlsInfo(requestedSni(s), s.getProtocol(), s.getCipherSuite(), ssl.applicationProtocol(),
        java.util.List.of(), false);
    ChannelPipeline p = ctx.pipeline();
    if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      installHttp2(engine, ctx.channel(), new ClientSide(scheme, host, port, tls, "HTTP/2", true));
      return;
    }
    p.addLast(Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(engine.config().limits()));
    p.addLast(Pipelines.CLIENT_LEG, new ClientLeg(engine,
        new ClientSide(scheme, host, port, tls, "HTTP/1.1", false)));
  }

  /** Makes {@code ch} an HTTP/2 server connection: one {@link ClientLeg} per stream. */
  static void installHttp2(EngineContext engine, Channel ch, ClientSide side) {
    ChannelPipeline p = ch.pipeline();
    FlushCoalescer.install(ch); // response frames of all streams leave in batched writes
    io.netty.handler.codec.http2.Http2FrameCodec codec = Http2Codecs.forClientLeg(engine.config());
    p.addLast("h2-guard", new Http2InboundFrameGuard(codec.connection(), true));
    p.addLast("h2", codec);
    p.addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
      @Override
      protected void initChannel(Http2StreamChannel stream) {
        stream.config().setOption(ChannelOption.AUTO_READ, false);
        // The leg reads and writes the stream's frames itself (Http2ClientCodec).
        stream.pipeline().addLast(Pipelines.CLIENT_LEG, new ClientLeg(engine, side));
      }
    }));
    p.addLast("h2-errors", new Http2ConnectionErrors()); // connection errors end here, logged once
    // Raise the connection window too: initialWindowSize only sets the per-stream windows.
    ch.writeAndFlush(new DefaultHttp2WindowUpdateFrame(Http2Codecs.CONNECTION_WINDOW - 65_535));
    // The connection reads on its own; backpressure is HTTP/2 flow control: a stream's credit
    // returns only as its leg consumes, so at most the connection window is buffered.
    ch.config().setAutoRead(true);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    // The base class reports only handshakes that failed with an exception; a client that just
    // hangs up (no alert) must be recorded too.
    if (evt instanceof io.netty.handler.ssl.SslHandshakeCompletionEvent hs && !hs.isSuccess()) {
      handshakeFailure(ctx, hs.cause());
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
    if (failureRecorded) {
      return;
    }
    failureRecorded = true;
    Channel ch = ctx.channel();
    RecordedFlow flow = new RecordedFlow(engine.store().nextId(), Instant.now(), engine.config().capture());
    flow.tier(FlowTier.RELAY);
    flow.clientProtocol("HTTP/1.1");
    flow.clientConnection(new ConnectionInfo(ConnectionIds.of(ch), (InetSocketAddress) ch.remoteAddress(),
        (InetSocketAddress) ch.localAddress(), null, false));
    flow.request(new RequestHead("CONNECT", scheme, host, port, RequestHeads.authority(host, port), "HTTP/1.1",
        Headers.EMPTY));
    flow.timings().requestStart(System.nanoTime());
    engine.store().add(flow);
    String reason = cause == null ? "unknown"
        : cause instanceof ClosedChannelException ? "the client closed the connection during the handshake"
        : cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
    flow.fail(new FlowError(FlowError.Kind.CLIENT_TLS, "TLS handshake with the client for " + host
        + " failed (does the client trust the Loupe CA?): " + reason));
    engine.store().completed(flow);
    ctx.close();
  }

  private static String requestedSni(SSLSession s) {
    if (s instanceof ExtendedSSLSession ext) {
      for (SNIServerName n : ext.getRequestedServerNames()) {
        if (n instanceof SNIHostName h) {
          return h.getAsciiName();
        }
      }
    }
    return null;
  }
}
