package dev.loupe.engine.internal.replay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.intercept.Replayer;
import dev.loupe.engine.internal.upstream.Http3Upstreams;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import dev.loupe.engine.internal.upstream.LegSlot;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One request Loupe sends itself, from acquiring a server-leg connection to the end of the response:
 * proxyToServer writes the whole request (one message), serverToProxy reads the response's
 * {@code HttpObject}s (the same on HTTP/1.1, HTTP/2 and HTTP/3 server legs) and records them on the
 * flow. While it owns a connection it is that connection's {@link LegSlot} owner.
 *
 * <h3>Lifecycle</h3>
 * {@code start → (acquire) → write request → read response → finish}. {@link #finish} runs once:
 * it gives the connection back (pooled only after a clean, keep-alive HTTP/1.1 exchange; HTTP/2 and
 * HTTP/3 streams are closed, reset unless complete), ends the flow (complete, or failed with the
 * first error) and reports it. A pooled HTTP/1.1 connection that turns out closed before any response
 * byte is replaced once by a fresh one for an idempotent request (RFC 9112 §9.3.1), as for proxied
 * traffic.
 *
 * <h3>Threads and buffers</h3>
 * Confined to the event loop it was started on (connections are acquired on it). Every inbound
 * message is released here; the request buffer is released by the write.
 */
final class ReplayExchange extends ChannelInboundHandlerAdapter {
  private static final Set<String> IDEMPOTENT = Set.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

  private final Replays.Context ctx;
  private final Flow flow;
  private final ReplayRequest request;
  private final Replayer.Protocol protocol;
  private final Consumer<Flow> onDone;
  private final String authority;
  private final long timeoutNanos;

  private UpstreamConnection upstream;
  private boolean multiplexed;
  private boolean bodyRecorded;
  private boolean retried;
  /** Something (even an interim response) came back on the current connection. */
  private boolean heardBack;
  /** The final (non-1xx) response head arrived. */
  private boolean responseStarted;
  private boolean requestWritten;
  private boolean keepAlive = true;
  /** Once true, always true: the flow has ended and the connection is given back. */
  private boolean done;
  private long lastActivity;
  private ScheduledFuture<?> timer;

  ReplayExchange(Replays.Context ctx, Flow flow, ReplayRequest request, Replayer.Protocol protocol,
      Consumer<Flow> onDone) {
    this.ctx = ctx;
    this.flow = flow;
    this.request = request;
    this.protocol = protocol;
    this.onDone = onDone;
    this.authority = request.head().authority();
    this.timeoutNanos = ctx.config().responseTimeout().toNanos();
  }

  // ---- connection ----------------------------------------------------------------------------

  /** Asks for a server-leg connection. On the event loop. */
  void start() {
    acquire().addListener(f -> connected((UpstreamConnector.Result) f.getNow()));
  }

  private Future<UpstreamConnector.Result> acquire() {
    EngineConfig config = ctx.config();
    UpstreamConnector connector = ctx.connector();
    String scheme = request.head().scheme();
    String host = request.head().host();
    int port = request.head().port();
    boolean https = scheme.equals("https");
    switch (protocol) {
      case H3 -> {
        flow.http3Status("forced (replay over HTTP/3)");
        if (config.upstreamProxy() != null) {
          return failed(new FlowError(FlowError.Kind.CONNECT, "HTTP/3 cannot go through the upstream proxy "
              + config.upstreamProxy() + " (QUIC is UDP; the proxy tunnels TCP)"));
        }
        Http3Upstreams pool = connector.http3Pool(() -> Replays.newHttp3Pool(ctx));
        if (pool == null) {
          return failed(new FlowError(FlowError.Kind.CONNECT, "HTTP/3 is not available here: "
              + connector.http3Unavailable()));
        }
        return pool.acquire(ctx.loop(), host, port, flow);
      }
      case H1, H2 -> {
        if (https) {
          flow.http3Status("forced off (replay over "
              + (protocol == Replayer.Protocol.H1 ? "HTTP/1.1" : "HTTP/2") + ")");
        }
        return connector.acquire(ctx.loop(), scheme, host, port, flow,
            protocol == Replayer.Protocol.H1 ? UpstreamConnector.Want.H1 : UpstreamConnector.Want.H2);
      }
      default -> {
        // AUTO: the way proxied traffic goes under --upstream-protocol.
        String noHttp3 = !https ? null : switch (config.upstreamProtocol()) {
          case H1 -> "forced off (--upstream-protocol h1)";
          case H2 -> "forced off (--upstream-protocol h2)";
          case H3 -> "forced (--upstream-protocol h3)";
          case AUTO -> config.upstreamProxy() != null ? "off: QUIC cannot go through the upstream proxy" : null;
        };
        if (noHttp3 != null) {
          flow.http3Status(noHttp3);
        }
        UpstreamConnector.Want want = switch (config.upstreamProtocol()) {
          case H1 -> UpstreamConnector.Want.H1;
          case H2 -> UpstreamConnector.Want.H2;
          case H3 -> UpstreamConnector.Want.H3;
          case AUTO -> UpstreamConnector.Want.H2_OR_H1;
        };
        return connector.acquire(ctx.loop(), scheme, host, port, flow, want, https && noHttp3 == null);
      }
    }
  }

  private Future<UpstreamConnector.Result> failed(FlowError error) {
    return ctx.loop().newSucceededFuture(new UpstreamConnector.Result(null, error));
  }

  private void connected(UpstreamConnector.Result r) {
    if (done) {
      if (r.connection() != null) {
        ctx.connector().release(r.connection(), true);
      }
      return;
    }
    if (r.error() != null) {
      finish(r.error());
      return;
    }
    upstream = r.connection();
    multiplexed = upstream.multiplexed();
    heardBack = false;
    Channel ch = upstream.channel();
    flow.serverConnection(upstream.info());
    flow.serverProtocol(upstream.protocol());
    flow.request(request.recorded(upstream.protocol(), multiplexed));
    if (ch instanceof QuicStreamChannel qs) {
      flow.serverStreamId((int) Math.min(qs.streamId(), Integer.MAX_VALUE));
    }
    if (!bodyRecorded) {
      bodyRecorded = true;
      if (request.body().length > 0) {
        flow.requestBody().append(ByteBuffer.wrap(request.body()));
      }
      flow.requestBody().complete();
    }
    flow.timings().sendStart(System.nanoTime());
    ctx.store().updated(flow);

    LegSlot.attach(ch, this);
    UpstreamConnection sentOn = upstream;
    ch.write(request.toNetty()).addListener(w -> {
      if (upstream != sentOn || done) {
        return;
      }
      if (w.isSuccess()) {
        requestWritten = true;
        flow.timings().sendEnd(System.nanoTime());
        recordStreamId();
      } else {
        broken(new FlowError(FlowError.Kind.SERVER_RESET, "cannot send the request to " + authority + ": "
            + message(w.cause())));
      }
    });
    FlushCoalescer.flush(ch);
    ch.read();
    lastActivity = System.nanoTime();
    if (timer == null) {
      timer = ctx.loop().schedule(this::timerFired, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  private void recordStreamId() {
    if (upstream != null && upstream.channel() instanceof Http2StreamChannel sc && sc.stream().id() > 0) {
      flow.serverStreamId(sc.stream().id());
    }
  }

  // ---- serverToProxy -------------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext c, Object msg) {
    if (done || upstream == null || c.channel() != upstream.channel()) {
      ReferenceCountUtil.release(msg);
      return;
    }
    lastActivity = System.nanoTime();
    heardBack = true;
    if (msg instanceof HttpResponse r && !onHead(r)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpContent content) {
      onContent(content);
      return;
    }
    if (!(msg instanceof HttpResponse)) {
      ReferenceCountUtil.release(msg);
    }
  }

  /** Records a response head; false when the exchange failed on it. */
  private boolean onHead(HttpResponse r) {
    DecoderResult dr = r.decoderResult();
    if (dr.isFailure()) {
      finish(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority + " sent an invalid response: "
          + message(dr.cause())));
      return false;
    }
    ResponseHead head = multiplexed
        ? new ResponseHead(r.status().code(), "", upstream.protocol(),
            Http1Messages.toHeadersFromHttp2(r.headers(), false))
        : Http1Messages.toResponseHead(r);
    if (r.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
      if (head.status() == 101) {
        finish(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority + " switched protocols without being asked"));
        return false;
      }
      flow.response(head); // kept as an informational response
      ctx.store().updated(flow);
      return true;
    }
    responseStarted = true;
    flow.response(head);
    flow.timings().responseStart(System.nanoTime());
    recordStreamId();
    if (!multiplexed) {
      String connection = head.headers().get("connection");
      boolean http10 = head.httpVersion().equals("HTTP/1.0");
      keepAlive = connection == null ? !http10
          : http10 ? connection.toLowerCase(Locale.ROOT).contains("keep-alive")
          : !connection.toLowerCase(Locale.ROOT).contains("close");
    }
    List<String> altSvc = head.headers().getAll("alt-svc");
    if (!altSvc.isEmpty()) {
      ctx.connector().advertised(upstream.key(), altSvc, head.headers().get("age"));
    }
    ctx.store().updated(flow);
    return true;
  }

  private void onContent(HttpContent content) {
    try {
      if (content.decoderResult().isFailure()) {
        finish(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority + " sent an invalid response body: "
            + message(content.decoderResult().cause())));
        return;
      }
      boolean last = content instanceof LastHttpContent;
      if (!responseStarted) {
        return; // the end of an interim (1xx) response; the final one follows
      }
      ByteBuf data = content.content();
      if (data.isReadable()) {
        if (data.nioBufferCount() == 1) {
          flow.responseBody().append(data.nioBuffer());
        } else {
          for (ByteBuffer b : data.nioBuffers()) {
            flow.responseBody().append(b);
          }
        }
      }
      if (last) {
        LastHttpContent lc = (LastHttpContent) content;
        Headers trailers = multiplexed ? Http1Messages.toHeadersFromHttp2(lc.trailingHeaders(), false)
            : Http1Messages.toHeaders(lc.trailingHeaders());
        flow.responseTrailers(trailers);
        finish(null);
      }
    } finally {
      content.release();
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext c) {
    if (!done && upstream != null && c.channel() == upstream.channel()) {
      upstream.channel().read();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext c) {
    if (!done && upstream != null && c.channel() == upstream.channel()) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET, responseStarted
          ? authority + " closed the connection before the response body ended"
          : authority + " closed the connection before sending a response"));
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
    if (!done && upstream != null && c.channel() == upstream.channel()) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET, "connection to " + authority + " failed: " + message(cause)));
    }
    c.close();
  }

  /**
   * The connection failed. A reused HTTP/1.1 connection the origin had already given up on gets the
   * request once more on a fresh one, when nothing came back and the method is idempotent.
   */
  private void broken(FlowError error) {
    boolean retry = !retried && !heardBack && upstream != null && !multiplexed && upstream.info().reused()
        && IDEMPOTENT.contains(request.head().method());
    if (!retry) {
      finish(error);
      return;
    }
    retried = true;
    UpstreamConnection stale = upstream;
    upstream = null;
    LegSlot.detach(stale.channel(), this);
    ctx.connector().release(stale, false);
    requestWritten = false;
    acquire().addListener(f -> connected((UpstreamConnector.Result) f.getNow()));
  }

  // ---- timeout -------------------------------------------------------------------------------

  /** The response timeout: the longest the origin may stay silent (before the head, or mid-body). */
  private void timerFired() {
    timer = null;
    if (done) {
      return;
    }
    long left = lastActivity + timeoutNanos - System.nanoTime();
    if (left > 0 || upstream == null) {
      timer = ctx.loop().schedule(this::timerFired, Math.max(left, TimeUnit.MILLISECONDS.toNanos(10)),
          TimeUnit.NANOSECONDS);
      return;
    }
    long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(timeoutNanos));
    finish(new FlowError(FlowError.Kind.TIMEOUT, responseStarted
        ? authority + " sent no more of the response for " + seconds + " s (the response timeout)"
        : "no response from " + authority + " within the response timeout (" + seconds + " s)"));
  }

  // ---- end -----------------------------------------------------------------------------------

  /** Ends the exchange once: gives the connection back, ends the flow ({@code error} null: complete). */
  private void finish(FlowError error) {
    if (done) {
      return;
    }
    done = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (upstream != null) {
      UpstreamConnection up = upstream;
      upstream = null;
      LegSlot.detach(up.channel(), this);
      // HTTP/1.1: pooled after a clean keep-alive exchange; streams: closed (reset unless complete).
      ctx.connector().release(up, error == null && (multiplexed || (keepAlive && requestWritten)));
    }
    if (error == null) {
      flow.timings().responseEnd(System.nanoTime());
      flow.complete();
    } else {
      flow.fail(error);
    }
    ctx.store().completed(flow);
    onDone.accept(flow);
  }

  private static String message(Throwable t) {
    if (t == null) {
      return "unknown error";
    }
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
