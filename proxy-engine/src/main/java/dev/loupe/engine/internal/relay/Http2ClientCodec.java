package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.protocol.http2.Http2Messages;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.HttpConversionUtil;

/**
 * One HTTP/2 stream, read and written as frames: no HTTP/1 objects in between. The first HEADERS
 * frame is the request (its header block wrapped, not copied: {@link Http2Messages}); DATA frames
 * are its body (handed to the leg as {@link HttpContent} around the frame's own buffer); a later
 * HEADERS frame is its trailers. A request whose pseudo-header fields are malformed (RFC 9113
 * §8.3.1) never reaches the leg: its stream is reset with PROTOCOL_ERROR.
 *
 * <p>The response goes out as frames: interim heads as HEADERS, the final head held until the first
 * body byte or the end arrives (at the latest, the end of the read), so a response with no body is
 * one HEADERS frame with END_STREAM, not HEADERS + empty DATA (gRPC's Trailers-Only needs it); body
 * as DATA; the end as trailers (HEADERS with END_STREAM) or an empty DATA frame with END_STREAM. The
 * last write's flush joins the connection's batch ({@link FlushCoalescer}); the stream is closed
 * only once it has left, since closing earlier would reset the stream with its END_STREAM still
 * queued.
 */
final class Http2ClientCodec extends ClientCodec {
  /** The HEADERS frame that opened the request (until its body is taken), else null. */
  private Object opening;
  /** A HEADERS frame was read: later ones are trailers. */
  private boolean headersRead;
  private boolean requested;
  private Http2Headers held;
  private ChannelFuture lastWrite;

  Http2ClientCodec(ChannelHandlerContext ctx, ClientSide side) {
    super(ctx, side);
  }

  @Override
  boolean multiplexed() {
    return true;
  }

  @Override
  void describe(RecordedFlow flow) {
    if (ctx.channel() instanceof Http2StreamChannel stream) {
      flow.clientStreamId(stream.stream().id());
    }
  }

  // ---- reading -----------------------------------------------------------------------------

  @Override
  boolean readable(Object msg) {
    if (msg instanceof Http2DataFrame) {
      return true;
    }
    if (!(msg instanceof Http2HeadersFrame h)) {
      return false;
    }
    if (headersRead) {
      return true; // trailers
    }
    headersRead = true;
    if (Http2Messages.malformed(h.headers()) != null) {
      // RFC 9113 §8.1.1: a malformed request is a stream error of type PROTOCOL_ERROR.
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.PROTOCOL_ERROR));
      ctx.close();
      return false;
    }
    return true;
  }

  @Override
  boolean opensRequest(Object msg) {
    return msg instanceof Http2HeadersFrame && !requested;
  }

  @Override
  boolean carriesBody(Object msg) {
    return msg instanceof Http2DataFrame || msg instanceof Http2HeadersFrame h && (msg != opening || h.isEndStream());
  }

  @Override
  HttpContent requestBody(Object msg) {
    if (msg instanceof Http2DataFrame d) {
      ByteBuf data = d.content(); // the content passes on; the frame around it is dropped
      if (!d.isEndStream()) {
        return new DefaultHttpContent(data);
      }
      if (data.isReadable()) {
        return new DefaultLastHttpContent(data, EmptyHttpHeaders.INSTANCE);
      }
      data.release();
      return LastHttpContent.EMPTY_LAST_CONTENT;
    }
    if (msg == opening) {
      opening = null;
      return LastHttpContent.EMPTY_LAST_CONTENT; // HEADERS with END_STREAM: no body
    }
    return new Trailers(((Http2HeadersFrame) msg).headers());
  }

  @Override
  Headers trailers(LastHttpContent last) {
    return last instanceof Trailers t ? Http2Messages.fields(t.block) : Headers.EMPTY;
  }

  @Override
  ClientRequest request(Object msg) {
    Http2HeadersFrame frame = (Http2HeadersFrame) msg;
    requested = true;
    opening = msg;
    Http2Headers h = frame.headers();
    String problem = Http2Messages.requestProblem(h);
    boolean ok = problem == null;
    boolean ended = frame.isEndStream();
    Headers headers = Http2Messages.requestHeaders(h);
    String expect = ok ? headers.get("expect") : null;
    return new ClientRequest(h.method().toString(), Http2Messages.target(h), side.protocol(), false, headers,
        ended, !ended, ok, false, expect != null && expect.equalsIgnoreCase("100-continue"), false,
        ok ? 0 : 400, problem);
  }

  @Override
  Headers headers(HttpHeaders headers) {
    throw new UnsupportedOperationException("HTTP/2 requests are read from HEADERS frames");
  }

  // ---- writing -----------------------------------------------------------------------------

  @Override
  void interim(ResponseHead head, ClientRequest request) {
    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(Http2Messages.responseHeaders(head, null), false));
  }

  @Override
  boolean head(ResponseHead head, ClientRequest request, boolean bodyAllowed, boolean keepAlive, String altSvc) {
    held = Http2Messages.responseHeaders(head, altSvc);
    return false;
  }

  @Override
  void writeHead(HttpResponse response) {
    throw new UnsupportedOperationException("HTTP/2 heads go out as HEADERS frames");
  }

  @Override
  void data(Object payload) {
    beforeBody();
    ByteBuf data = payload instanceof ByteBufHolder b ? b.content() : (ByteBuf) payload;
    write(new DefaultHttp2DataFrame(data, false));
  }

  @Override
  void beforeBody() {
    if (held != null) {
      write(new DefaultHttp2HeadersFrame(held, false));
      held = null;
    }
  }

  @Override
  void end(Headers trailers) {
    Object last;
    if (held != null && trailers.isEmpty()) {
      last = new DefaultHttp2HeadersFrame(held, true); // one HEADERS frame with END_STREAM
      held = null;
    } else {
      beforeBody();
      last = trailers.isEmpty() ? new DefaultHttp2DataFrame(true)
          : new DefaultHttp2HeadersFrame(Http2Messages.trailers(trailers), true);
    }
    lastWrite = ctx.write(last);
    flushNow();
  }

  @Override
  ChannelFuture page(FullHttpResponse page) {
    Http2Headers headers = HttpConversionUtil.toHttp2Headers(page, false);
    ByteBuf body = page.content();
    if (!body.isReadable()) {
      page.release();
      return ctx.writeAndFlush(new DefaultHttp2HeadersFrame(headers, true));
    }
    ctx.write(new DefaultHttp2HeadersFrame(headers, false));
    return ctx.writeAndFlush(new DefaultHttp2DataFrame(body, true));
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

  /**
   * One stream, one exchange. Closing the stream channel releases request data still queued in it
   * and returns its credit; if the client is still sending, the stream is reset (CANCEL) — after
   * the response's last frame has been written.
   */
  @Override
  void close(ChannelFuture last) {
    if (last == null) {
      ctx.flush();
      ctx.close();
    } else {
      last.addListener(f -> ctx.close());
    }
  }

  @Override
  void abort(boolean reset) {
    ctx.writeAndFlush(new DefaultHttp2ResetFrame(reset ? Http2Error.REFUSED_STREAM : Http2Error.CANCEL));
  }

  @Override
  void failed(Throwable cause) {
    if (cause instanceof Http2Exception.StreamException se) {
      // Keep the stream error's code (e.g. FLOW_CONTROL_ERROR): a bare close would say CANCEL.
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(se.error()));
    }
    ctx.close();
  }

  /** A request's trailers as the leg takes them: the end of the request, its fields read later. */
  private static final class Trailers extends DefaultLastHttpContent {
    final Http2Headers block;

    Trailers(Http2Headers block) {
      super(Unpooled.EMPTY_BUFFER, EmptyHttpHeaders.INSTANCE);
      this.block = block;
    }
  }
}
