package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.http3.Http3StreamEnd;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelOutputShutdownException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3FrameToHttpObjectCodec;
import io.netty.handler.codec.http3.Http3ServerConnectionHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicConnectionAddress;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;

/**
 * The HTTP/3 client leg: every request stream of a QUIC connection becomes one
 * {@link ClientLeg} behind Netty's {@link Http3FrameToHttpObjectCodec} — the same shape as
 * HTTP/2 (one leg per stream through a frame-to-message adapter), so HTTP/3 requests run through
 * the same {@link dev.loupe.engine.internal.exchange.Exchange} to HTTP/1.1 and HTTP/2 origins.
 *
 * <p>What HTTP/3 adds on each stream ({@link StreamAdapter}):
 * <ul>
 *   <li>a request whose HEADERS frame is followed at once by the end of the stream is handed on as
 *       one bodiless message (like an HTTP/2 HEADERS frame with END_STREAM), so a GET does not
 *       reach an HTTP/1.1 origin as a chunked request with an empty body;
 *   <li>a stream the client cancels (RESET_STREAM, or STOP_SENDING failing our response writes) is
 *       reset with H3_REQUEST_CANCELLED and the exchange ends as a client abort naming it, which
 *       releases the server leg (an HTTP/1.1 origin connection is closed, an HTTP/2 stream reset).
 * </ul>
 */
public final class Http3Streams {
  /** The protocol string flows record for the HTTP/3 leg. */
  public static final String PROTOCOL = "HTTP/3";

  private static final AttributeKey<String> CANCEL_REASON = AttributeKey.valueOf("loupe.h3.cancel");
  private static final AttributeKey<TlsInfo> TLS = AttributeKey.valueOf("loupe.h3.tls");
  private static final AttributeKey<String> SNI = AttributeKey.valueOf("loupe.h3.sni");

  private Http3Streams() {}

  /**
   * The handler for each accepted QUIC connection of the reverse-mode listener: HTTP/3 with every
   * request going to {@code scheme://host:port}.
   */
  public static ChannelInitializer<QuicChannel> reverseConnections(EngineContext engine) {
    var target = engine.config().reverse();
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(QuicChannel quic) {
        quic.pipeline().addLast("h3-sni", new io.netty.channel.ChannelInboundHandlerAdapter() {
          @Override
          public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof io.netty.handler.ssl.SniCompletionEvent sni && sni.hostname() != null) {
              ctx.channel().attr(SNI).set(sni.hostname()); // the name the client asked for, for the flow
            }
            ctx.fireUserEventTriggered(evt);
          }
        });
        quic.pipeline().addLast(new Http3ServerConnectionHandler(new ChannelInitializer<QuicStreamChannel>() {
          /**
           * The leg's first read runs while this initializer is still in the stream's pipeline
           * (ahead of the handlers it installs), so a stream the client reset or stopped before
           * it was set up reports that here. That is the client's doing, not a failed set-up: on
           * to {@link StreamGuard}, which ends the stream quietly, as it would have later. Other
           * failures (in the set-up itself) are logged by the base class.
           */
          @Override
          public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
            if (ctx.pipeline().get(StreamGuard.class) != null && byThePeer(cause)) {
              ctx.fireExceptionCaught(cause);
            } else {
              super.exceptionCaught(ctx, cause);
            }
          }

          @Override
          protected void initChannel(QuicStreamChannel stream) {
            stream.config().setOption(ChannelOption.AUTO_READ, false);
            ClientSide side = new ClientSide(target.scheme(), target.host(), target.port(), tls(stream.parent()),
                PROTOCOL, true);
            stream.pipeline()
                .addLast("h3-guard", new StreamGuard())
                .addLast("h3-to-http", new Http3FrameToHttpObjectCodec(true))
                .addLast("h3-stream", new StreamAdapter())
                .addLast(Pipelines.CLIENT_LEG, new ClientLeg(engine, side));
            Http3StreamEnd.install(stream.pipeline(), "h3-to-http");
          }
        }));
      }
    };
  }

  /** A stream error the client caused: a reset, STOP_SENDING, a QUIC or an HTTP/3 error. */
  private static boolean byThePeer(Throwable cause) {
    return cause instanceof QuicStreamResetException || cause instanceof ChannelOutputShutdownException
        || cause instanceof io.netty.handler.codec.quic.QuicException
        || cause instanceof io.netty.handler.codec.http3.Http3Exception;
  }

  /** Loupe's (the server's) connection id for {@code quic}, hex. */
  public static String connectionIdHex(QuicChannel quic) {
    return dev.loupe.engine.internal.transport.ConnectionIds.quicHex(quic);
  }

  /** Why the client stream ended early, if the client cancelled it; null otherwise. */
  static String cancelReason(Channel ch) {
    return ch instanceof QuicStreamChannel ? ch.attr(CANCEL_REASON).get() : null;
  }

  /**
   * A stream failed (read or write error): record why and reset it in both directions with an
   * HTTP/3 error code, which closes the stream channel (the leg sees it go inactive).
   */
  static void streamFailed(Channel ch, Throwable cause) {
    QuicStreamChannel stream = (QuicStreamChannel) ch;
    String reason;
    int code;
    if (cause instanceof QuicStreamResetException reset) {
      Http3ErrorCode known = errorCode(reset.applicationProtocolCode());
      reason = "the client cancelled the HTTP/3 stream (RESET_STREAM "
          + (known != null ? known.name() : "0x" + Long.toHexString(reset.applicationProtocolCode())) + ")";
      code = Http3ErrorCode.H3_REQUEST_CANCELLED.code();
    } else if (cause instanceof ChannelOutputShutdownException) {
      reason = "the client cancelled the HTTP/3 stream (STOP_SENDING)";
      code = Http3ErrorCode.H3_REQUEST_CANCELLED.code();
    } else {
      reason = "HTTP/3 stream error: " + (cause.getMessage() != null ? cause.getMessage()
          : cause.getClass().getSimpleName());
      code = cause instanceof io.netty.handler.codec.http3.Http3Exception h3 ? h3.errorCode().code()
          : Http3ErrorCode.H3_INTERNAL_ERROR.code();
    }
    stream.attr(CANCEL_REASON).setIfAbsent(reason);
    if (stream.isActive()) {
      stream.shutdown(code).addListener(f -> stream.close());
    }
  }

  /** Resets a client stream in both directions with {@code code} (a breakpoint abort or a block rule). */
  static void reset(Channel ch, Http3ErrorCode code) {
    QuicStreamChannel stream = (QuicStreamChannel) ch;
    if (stream.isActive()) {
      stream.shutdown(code.code()).addListener(f -> stream.close());
    }
  }

  private static Http3ErrorCode errorCode(long code) {
    for (Http3ErrorCode c : Http3ErrorCode.values()) {
      if (c.code() == code) {
        return c;
      }
    }
    return null;
  }

  /**
   * Whether quiche says a stream can no longer be written (STOP_SENDING received, or reset). Netty
   * keeps the capacity query package-private, so it is reached reflectively; if that fails (a
   * Netty upgrade), the answer is "no" and a cancelled, connection-blocked stream ends with the
   * idle timeout instead.
   */
  static final class StopSending {
    private static final java.lang.reflect.Method CAPACITY = find();
    /** quiche's QUICHE_ERR_DONE: nothing to do now, not an error. */
    private static final long DONE = -1;

    private StopSending() {}

    private static java.lang.reflect.Method find() {
      try {
        java.lang.reflect.Method m = Class.forName("io.netty.handler.codec.quic.QuicheQuicChannel")
            .getDeclaredMethod("streamCapacity", long.class);
        m.setAccessible(true);
        return m;
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    static boolean stopped(QuicStreamChannel stream) {
      if (CAPACITY == null) {
        return false;
      }
      try {
        long capacity = (long) CAPACITY.invoke(stream.parent(), stream.streamId());
        return capacity < 0 && capacity != DONE;
      } catch (ReflectiveOperationException | RuntimeException e) {
        return false;
      }
    }
  }

  /** TLS details of the QUIC connection, computed once per connection. */
  private static TlsInfo tls(QuicChannel quic) {
    TlsInfo t = quic.attr(TLS).get();
    if (t == null) {
      SSLEngine engine = quic.sslEngine();
      SSLSession s = engine == null ? null : engine.getSession();
      t = new TlsInfo(quic.attr(SNI).get(), s == null ? "TLSv1.3" : s.getProtocol(), s == null ? null : s.getCipherSuite(),
          engine == null ? "h3" : engine.getApplicationProtocol(), List.of(), false);
      quic.attr(TLS).set(t);
    }
    return t;
  }

  /**
   * Between the HTTP/3 frame codec and {@link Http3FrameToHttpObjectCodec}: turns stream errors —
   * the client's RESET_STREAM (surfacing on read), STOP_SENDING (failing our writes), frame or
   * QPACK errors — into a reset stream with the reason recorded for the flow.
   *
   * <p>It sits in front of the adapter because the adapter swallows QUIC exceptions and then, at
   * the input shutdown that follows a reset, reports the request as ended: a cancelled upload
   * would reach the origin as a complete, shorter body. After a failure nothing more goes in.
   */
  static final class StreamGuard extends dev.loupe.engine.internal.http3.Http3ResetGuard {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      failed = true;
      streamFailed(ctx.channel(), cause);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      ChannelPromise p = promise.unvoid();
      p.addListener(f -> {
        if (!f.isSuccess()) {
          failed = true;
          streamFailed(ctx.channel(), f.cause());
        }
      });
      ctx.write(msg, p);
    }
  }

  /**
   * Between {@link Http3FrameToHttpObjectCodec} and the leg: a request HEADERS frame followed by
   * the end of the stream (in the same read) goes on as one bodiless request; and a stream that
   * waits for flow-control credit carries a probe so that a STOP_SENDING is noticed.
   *
   * <p>The probe: Netty's QUIC stream fails queued writes when STOP_SENDING arrives, but with
   * nothing queued it notices nothing and the stream stays unwritable for good — the leg, waiting
   * for writability with the origin paused, would hang until the idle timeout. So when a response
   * stream turns unwritable, one empty DATA frame (2 bytes on the wire) is queued behind the body:
   * it goes out with the next credit, or fails with the STOP_SENDING, which {@link StreamGuard}
   * turns into a cancelled exchange.
   *
   * <p>That covers a stream blocked by its own credit. A stream blocked by the <em>connection's</em>
   * credit is never reported to Netty at all (quiche lists no stream as writable while the
   * connection has no send capacity) — and a client that cancelled the only busy stream may never
   * send more credit. While blocked, the stream's state is therefore asked of quiche once a second
   * ({@link StopSending}).
   */
  static final class StreamAdapter extends ChannelDuplexHandler {
    /** A request head whose end is not known yet: the next message decides (until read complete). */
    private HttpRequest held;
    private boolean headWritten;
    private boolean ended;
    private boolean probed;
    private boolean checkScheduled;

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof io.netty.handler.codec.http.HttpResponse r && r.status().code() >= 200) {
        headWritten = true;
      }
      if (msg instanceof LastHttpContent) {
        ended = true;
      }
      ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
      ctx.flush();
      if (headWritten && !ended && !probed && !ctx.channel().isWritable() && ctx.channel().isActive()) {
        probed = true;
        ctx.writeAndFlush(new io.netty.handler.codec.http.DefaultHttpContent(Unpooled.EMPTY_BUFFER));
        if (!checkScheduled) {
          checkScheduled = true;
          ctx.executor().schedule(() -> checkStopped(ctx), 1, java.util.concurrent.TimeUnit.SECONDS);
        }
      }
    }

    private void checkStopped(ChannelHandlerContext ctx) {
      checkScheduled = false;
      Channel ch = ctx.channel();
      if (ended || !ch.isActive() || ch.isWritable()) {
        return;
      }
      if (StopSending.stopped((QuicStreamChannel) ch)) {
        streamFailed(ch, new ChannelOutputShutdownException("STOP_SENDING frame received"));
        return;
      }
      checkScheduled = true;
      ctx.executor().schedule(() -> checkStopped(ctx), 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable()) {
        probed = false;
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (held != null) {
        HttpRequest h = held;
        held = null;
        if (msg instanceof LastHttpContent last && !last.content().isReadable()
            && last.trailingHeaders().isEmpty()) {
          last.release();
          ctx.fireChannelRead(bodiless(h));
          ctx.fireChannelReadComplete(); // the FIN comes as an event after the read completed
          return;
        }
        ctx.fireChannelRead(h);
        ctx.fireChannelRead(msg);
        return;
      }
      if (msg instanceof HttpRequest r && !(msg instanceof LastHttpContent) && !HttpUtil.is100ContinueExpected(r)
          && !hasBody(r)) {
        held = r;
        return;
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (held != null && !bodilessMethod(held)) {
        // A FIN read with the HEADERS is reported right after this (input shutdown event, turned
        // into an empty last content by the adapter): give it that long to arrive.
        ctx.executor().execute(() -> {
          if (held != null) {
            releaseHeld(ctx);
            ctx.fireChannelReadComplete();
          }
        });
      }
      ctx.fireChannelReadComplete();
    }

    private void releaseHeld(ChannelHandlerContext ctx) {
      if (held != null) {
        HttpRequest h = held;
        held = null;
        ctx.fireChannelRead(h);
      }
    }

    /**
     * Methods that carry no body in practice: their head waits for whatever comes next, data or the
     * end of the stream, however many reads that takes. Other methods wait only to the end of the
     * read (plus the FIN event right after it) — their client may wait for the response before it
     * sends a body.
     */
    private static boolean bodilessMethod(HttpRequest r) {
      String m = r.method().name();
      return m.equals("GET") || m.equals("HEAD") || m.equals("OPTIONS") || m.equals("DELETE") || m.equals("TRACE");
    }

    /** A declared non-zero Content-Length: a body follows, nothing to merge. */
    private static boolean hasBody(HttpRequest r) {
      String cl = r.headers().get(HttpHeaderNames.CONTENT_LENGTH);
      return cl != null && !cl.equals("0");
    }

    private static FullHttpRequest bodiless(HttpRequest h) {
      if (HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(h.headers().get(HttpHeaderNames.TRANSFER_ENCODING))) {
        h.headers().remove(HttpHeaderNames.TRANSFER_ENCODING); // added by the codec, not sent by the client
      }
      return new DefaultFullHttpRequest(h.protocolVersion(), h.method(), h.uri(), Unpooled.EMPTY_BUFFER,
          h.headers(), io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (held != null) {
        ReferenceCountUtil.release(held); // the client left before its request ended: nothing to run
        held = null;
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
      if (held != null) {
        ReferenceCountUtil.release(held);
        held = null;
      }
    }
  }
}
