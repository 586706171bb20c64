package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * How a response goes to the client on one HTTP version: the part of the client leg that differs
 * between an HTTP/1.1 connection, an HTTP/2 stream and an HTTP/3 stream (interim responses, when
 * the final head leaves, Alt-Svc, the end of the message). The leg decides what to send; this
 * decides how it goes on the wire. Messages are Netty's HTTP objects today (each stream channel
 * has an object adapter); a frame-level HTTP/2 path would be a fourth implementation behind the
 * same methods.
 *
 * <p>One per client leg, confined to its event loop.
 */
abstract class ResponseWriter {
  final ChannelHandlerContext ctx;

  ResponseWriter(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  static ResponseWriter of(ClientSide side, ChannelHandlerContext ctx) {
    if (!side.multiplexed()) {
      return new Http1(ctx);
    }
    return Http3Streams.PROTOCOL.equals(side.protocol()) ? new Http3(ctx) : new Http2(ctx);
  }

  /** Writes an interim (1xx) response to a client that spoke {@code clientVersion}. */
  abstract void interim(ResponseHead head, HttpVersion clientVersion);

  /**
   * Reverse mode with the QUIC listener up ({@code altSvc} non-null): what the final head says of
   * it. TCP clients are pointed at Loupe's HTTP/3 port (an origin's own Alt-Svc names the origin's
   * endpoints, which the client does not reach through Loupe).
   */
  void altSvc(HttpResponse response, String altSvc) {
    if (altSvc != null) {
      response.headers().set(HttpHeaderNames.ALT_SVC, altSvc);
    }
  }

  /** The final response head. */
  abstract void head(HttpResponse response);

  /** Body bytes follow: anything held goes first. */
  void beforeBody() {}

  /** Ends the response, with {@code trailers} (may be empty). */
  abstract void end(Headers trailers);

  /** The write of the last message, until the stream may close (multiplexed); else null. */
  ChannelFuture lastWrite() {
    return null;
  }

  /** The exchange is over: forget per-response state. */
  void reset() {}

  static LastHttpContent last(Headers trailers) {
    return trailers.isEmpty() ? LastHttpContent.EMPTY_LAST_CONTENT
        : new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, Http1Messages.toNetty(trailers));
  }

  static DefaultFullHttpResponse full(HttpResponse h) {
    return new DefaultFullHttpResponse(h.protocolVersion(), h.status(), Unpooled.EMPTY_BUFFER, h.headers(),
        EmptyHttpHeaders.INSTANCE);
  }

  /** HTTP/1.1 (and 1.0): each message written as it comes. */
  static final class Http1 extends ResponseWriter {
    Http1(ChannelHandlerContext ctx) {
      super(ctx);
    }

    @Override
    void interim(ResponseHead head, HttpVersion clientVersion) {
      if (head.status() != 101 && clientVersion.equals(HttpVersion.HTTP_1_0)) {
        return; // HTTP/1.0 clients do not understand interim responses
      }
      // An interim response is a whole message: end it, or the encoder refuses the final head.
      ctx.write(Http1Messages.toClientResponse(head, clientVersion, false, true));
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    @Override
    void head(HttpResponse response) {
      ctx.write(response);
    }

    @Override
    void end(Headers trailers) {
      ctx.writeAndFlush(last(trailers));
    }
  }

  /**
   * One HTTP/2 stream. The final head is held until the first body byte or the end arrives (at the
   * latest, the end of the read), so a response with no body goes out as HEADERS with END_STREAM,
   * not HEADERS + empty DATA (gRPC's Trailers-Only needs it). The last write's flush joins the
   * connection's batch ({@link FlushCoalescer}); the stream is closed only once it has left, since
   * closing earlier would reset the stream with its END_STREAM still queued.
   */
  static class Http2 extends ResponseWriter {
    private HttpResponse held;
    private ChannelFuture lastWrite;

    Http2(ChannelHandlerContext ctx) {
      super(ctx);
    }

    @Override
    void interim(ResponseHead head, HttpVersion clientVersion) {
      // A HEADERS frame without END_STREAM: the adapter wants every 1xx as a full response (it
      // refuses a 103 otherwise).
      ctx.writeAndFlush(full(Http1Messages.toClientResponse(head, clientVersion, false, true)));
    }

    @Override
    void head(HttpResponse response) {
      held = response;
    }

    @Override
    void beforeBody() {
      if (held != null) {
        ctx.write(held);
        held = null;
      }
    }

    @Override
    void end(Headers trailers) {
      Object last;
      if (held != null && trailers.isEmpty()) {
        last = full(held); // one HEADERS frame with END_STREAM
        held = null;
      } else {
        beforeBody();
        last = last(trailers);
      }
      lastWrite = ctx.write(last);
      FlushCoalescer.flush(ctx.channel());
    }

    @Override
    ChannelFuture lastWrite() {
      return lastWrite;
    }

    @Override
    void reset() {
      held = null;
      lastWrite = null;
    }
  }

  /** One HTTP/3 stream: like HTTP/2, but only a 100 is written as a full response, and no Alt-Svc. */
  static final class Http3 extends Http2 {
    Http3(ChannelHandlerContext ctx) {
      super(ctx);
    }

    @Override
    void interim(ResponseHead head, HttpVersion clientVersion) {
      HttpResponse interim = Http1Messages.toClientResponse(head, clientVersion, false, true);
      // A full 103 would end the stream on HTTP/3's adapter; a 100 must be full.
      ctx.writeAndFlush(head.status() == 100 ? full(interim) : interim);
    }

    @Override
    void altSvc(HttpResponse response, String altSvc) {
      if (altSvc != null) {
        response.headers().remove(HttpHeaderNames.ALT_SVC); // the client already speaks HTTP/3 to us
      }
    }
  }
}
