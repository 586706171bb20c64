package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.protocol.http1.ClientSideCodec;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.util.ReferenceCountUtil;

/**
 * The HTTP/1.1 side of a WebSocket upgrade (RFC 6455 §4): what happens to the bytes a client sends
 * right behind its upgrade request, before the origin has answered, and the switch of both legs'
 * pipelines to WebSocket framing after a 101.
 *
 * <p>Eager clients send their first frame without waiting for the 101. The HTTP decoder would parse
 * that frame as the next request (and fail on it), so the client leg takes the decoder out as soon as
 * the upgrade request arrives and holds the raw bytes (an instance of this class holds them for one
 * upgrade): after a 101 they are the first frames the WebSocket relay reads; after any other answer
 * a fresh decoder parses them as the next request. Nothing more is read from the client in between,
 * so the hold is bounded by one read. Event-loop confined.
 */
final class WebSocketUpgrade {
  private ByteBuf early;

  /** Holds {@code b} (ownership passes here). */
  void hold(ByteBuf b) {
    early = early == null ? b : Unpooled.wrappedBuffer(early, b);
  }

  /** The held bytes, handed over (null when none). */
  ByteBuf take() {
    ByteBuf b = early;
    early = null;
    return b;
  }

  /**
   * After a refused upgrade: a fresh HTTP codec in the client pipeline {@code p}, fed the held bytes
   * as if they had just been read (they are the client's next request).
   */
  void resumeHttp(ChannelPipeline p, EngineConfig.Limits limits) {
    resumeHttp(p, limits, take());
  }

  /** Drops the held bytes. */
  void release() {
    ReferenceCountUtil.release(take());
  }

  /**
   * Whether bytes behind {@code req} are to be held: a well-formed WebSocket upgrade request with no
   * body (a request with a body keeps the decoder, which must frame the body).
   */
  static boolean holdsBytesBehind(HttpRequest req) {
    return !req.decoderResult().isFailure() && Http1Messages.isWebSocketUpgrade(req)
        && !req.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)
        && isZeroOrAbsent(req.headers().get(HttpHeaderNames.CONTENT_LENGTH));
  }

  private static boolean isZeroOrAbsent(String contentLength) {
    return contentLength == null || contentLength.trim().equals("0");
  }

  /**
   * Takes the HTTP decoder out of the client pipeline (the encoder stays for the response). The
   * decoder fires the bytes it had buffered beyond the request to the next handler, the leg.
   */
  static void removeHttpDecoder(ChannelPipeline p) {
    if (p.get(Pipelines.HTTP_SERVER_CODEC) instanceof ClientSideCodec codec) {
      codec.removeInboundHandler();
    }
  }

  /**
   * After a refused upgrade: a fresh HTTP codec in the client pipeline, fed the held bytes
   * ({@code early}, may be null; ownership passes here) as if they had just been read.
   */
  static void resumeHttp(ChannelPipeline p, EngineConfig.Limits limits, ByteBuf early) {
    p.replace(Pipelines.HTTP_SERVER_CODEC, Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(limits));
    if (early == null) {
      return;
    }
    ChannelHandlerContext codecCtx = p.context(Pipelines.HTTP_SERVER_CODEC);
    ChannelInboundHandler codec = (ChannelInboundHandler) codecCtx.handler();
    try {
      codec.channelRead(codecCtx, early);
      codec.channelReadComplete(codecCtx);
    } catch (Exception e) {
      codecCtx.fireExceptionCaught(e);
    }
  }

  /**
   * After a 101 went to the client: both pipelines switch from HTTP to WebSocket framing, with a
   * {@link WebSocketRelay} each way that records the messages of {@code ex}. The client leg at
   * {@code legCtx} and the {@code serverLeg} leave; {@code legDone} runs when they
   * have stopped (the leg forgets the exchange), then the {@code early} bytes (may be null; ownership
   * passes here) are the first frames the origin gets.
   */
  static void switchToWebSocket(EngineContext engine, Exchange ex, ChannelHandlerContext legCtx, ServerLeg serverLeg,
      ByteBuf early, Runnable legDone) {
    Channel client = legCtx.channel();
    Channel server = serverLeg.channel();
    WebSocketRelay toServer = new WebSocketRelay(engine, ex, WebSocketMessage.Direction.CLIENT_TO_SERVER, server);
    WebSocketRelay toClient = new WebSocketRelay(engine, ex, WebSocketMessage.Direction.SERVER_TO_CLIENT, client);
    PeerRelay.pair(toServer, toClient);

    ChannelPipeline cp = client.pipeline();
    cp.addAfter(legCtx.name(), "ws-decoder", new WebSocket13FrameDecoder(Pipelines.webSocketDecoder(true)));
    cp.addAfter("ws-decoder", "ws-encoder", new WebSocket13FrameEncoder(false));
    cp.addAfter("ws-encoder", "ws-relay", toServer);

    ChannelPipeline sp = server.pipeline();
    serverLeg.detach();
    sp.addAfter(UpstreamConnector.LEG, "ws-decoder", new WebSocket13FrameDecoder(Pipelines.webSocketDecoder(false)));
    sp.addAfter("ws-decoder", "ws-encoder", new WebSocket13FrameEncoder(true));
    sp.addAfter("ws-encoder", "ws-relay", toClient);

    legDone.run();
    sp.remove(UpstreamConnector.LEG);
    sp.remove(UpstreamConnector.CODEC);
    if (early != null) {
      // Frames the client sent before the 101: the first the origin gets.
      legCtx.fireChannelRead(early);
      legCtx.fireChannelReadComplete();
    }
    cp.remove(legCtx.handler());
    cp.remove(Pipelines.HTTP_SERVER_CODEC);
    toServer.start();
    toClient.start();
  }
}
