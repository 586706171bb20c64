package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * The HTTP/1.1 side of a WebSocket upgrade (RFC 6455 §4): what happens to the bytes a client sends
 * right behind its upgrade request, before the origin has answered.
 *
 * <p>Eager clients send their first frame without waiting for the 101. The HTTP decoder would parse
 * that frame as the next request (and fail on it), so the client leg takes the decoder out as soon as
 * the upgrade request arrives and holds the raw bytes: after a 101 they are the first frames the
 * WebSocket relay reads; after any other answer a fresh decoder parses them as the next request.
 * Nothing more is read from the client in between, so the hold is bounded by one read.
 */
final class WebSocketUpgrade {
  private WebSocketUpgrade() {}

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
    if (p.get(Pipelines.HTTP_SERVER_CODEC) instanceof HttpServerCodec codec) {
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
}
