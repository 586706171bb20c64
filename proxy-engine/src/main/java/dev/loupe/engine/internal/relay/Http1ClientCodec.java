package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * An HTTP/1.1 (or 1.0) client connection: requests one after another on one connection, each
 * message written as it comes, only {@code HTTP/1.1} and {@code HTTP/1.0} request lines, and the
 * bytes behind a WebSocket upgrade request held.
 */
final class Http1ClientCodec extends ClientCodec {
  /** From a WebSocket upgrade request until its exchange ends: the bytes behind it, held. */
  private WebSocketUpgrade upgrade;

  Http1ClientCodec(ChannelHandlerContext ctx, ClientSide side) {
    super(ctx, side);
  }

  @Override
  boolean multiplexed() {
    return false;
  }

  @Override
  boolean hold(Object msg) {
    if (upgrade != null && msg instanceof ByteBuf b) {
      upgrade.hold(b);
      return true;
    }
    return false;
  }

  @Override
  void queued(Object msg) {
    if (msg instanceof HttpRequest r && WebSocketUpgrade.holdsBytesBehind(r)) {
      upgrade = new WebSocketUpgrade(); // before the decoder goes: it hands over what it buffered
      WebSocketUpgrade.removeHttpDecoder(ctx.pipeline());
    }
  }

  @Override
  boolean holding() {
    return upgrade != null;
  }

  @Override
  void resumeHttp(EngineConfig.Limits limits) {
    if (upgrade != null) {
      WebSocketUpgrade refused = upgrade;
      upgrade = null; // first: the fresh decoder's requests are read at once
      refused.resumeHttp(ctx.pipeline(), limits);
    }
  }

  @Override
  ByteBuf takeHeld() {
    ByteBuf b = upgrade == null ? null : upgrade.take();
    upgrade = null;
    return b;
  }

  @Override
  void releaseHeld() {
    if (upgrade != null) {
      upgrade.release();
      upgrade = null;
    }
  }

  @Override
  String versionProblem(HttpVersion version) {
    return Http1Messages.versionProblem(version);
  }

  @Override
  String protocol(HttpRequest req) {
    return req.protocolVersion().text();
  }

  @Override
  Headers headers(HttpHeaders headers) {
    return Http1Messages.toHeaders(headers);
  }

  @Override
  void interim(ResponseHead head, ClientRequest request) {
    if (head.status() != 101 && request.http10()) {
      return; // HTTP/1.0 clients do not understand interim responses
    }
    // An interim response is a whole message: end it, or the encoder refuses the final head.
    ctx.write(Http1Messages.toClientResponse(head, version(request), false, true));
    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
  }

  @Override
  void writeHead(HttpResponse response) {
    write(response);
  }

  @Override
  void end(Headers trailers) {
    writeAndFlush(last(trailers));
  }

  @Override
  void abort(boolean reset) {
    if (reset) {
      ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0); // the leg closes: with RST
    }
  }
}
