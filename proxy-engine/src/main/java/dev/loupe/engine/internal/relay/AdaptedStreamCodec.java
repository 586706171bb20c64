package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;

/**
 * One stream of a multiplexed connection read through Netty's frame-to-object adapter (today
 * HTTP/3's {@code Http3FrameToHttpObjectCodec}; HTTP/2 streams are read as frames by {@link
 * Http2ClientCodec}). The final head is held until the first body byte or the end arrives (at the latest, the end of
 * the read), so a response with no body goes out as HEADERS with END_STREAM, not HEADERS + empty
 * DATA (gRPC's Trailers-Only needs it). The last write's flush joins the connection's batch ({@link
 * FlushCoalescer}); the stream is closed only once it has left, since closing earlier would reset
 * the stream with its END_STREAM still queued.
 */
abstract class AdaptedStreamCodec extends ClientCodec {
  private HttpResponse held;
  private ChannelFuture lastWrite;

  AdaptedStreamCodec(ChannelHandlerContext ctx, ClientSide side) {
    super(ctx, side);
  }

  @Override
  boolean multiplexed() {
    return true;
  }

  @Override
  Headers headers(HttpHeaders headers) {
    return Http1Messages.toHeadersFromHttp2(headers, true);
  }

  @Override
  void interim(ResponseHead head, ClientRequest request) {
    // A HEADERS frame without END_STREAM: the adapter wants every 1xx as a full response (it
    // refuses a 103 otherwise).
    ctx.writeAndFlush(full(Http1Messages.toClientResponse(head, version(request), false, true)));
  }

  @Override
  void writeHead(HttpResponse response) {
    held = response;
  }

  @Override
  void beforeBody() {
    if (held != null) {
      write(held);
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
    flushNow();
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
}
