package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.intercept.InterceptService;
import dev.loupe.engine.intercept.Interception;
import dev.loupe.engine.intercept.RequestDraft;
import dev.loupe.engine.intercept.RequestOutcome;
import dev.loupe.engine.intercept.ResponseDraft;
import dev.loupe.engine.intercept.ResponseOutcome;
import dev.loupe.engine.intercept.RuleAction;
import dev.loupe.engine.internal.exchange.Exchange;
import dev.loupe.engine.internal.exchange.ExchangeCommand;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.exchange.FullTier;
import dev.loupe.engine.internal.exchange.ResponseTimer;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.protocol.http1.RequestTargets;
import dev.loupe.engine.internal.transport.ConnectionIds;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import dev.loupe.engine.internal.upstream.LegSlot;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLSession;

/**
 * The HTTP/1.1 client leg: clientToProxy parsing into neutral events, proxyToClient writing from
 * commands, and the driver that runs each request's {@link Exchange} and its server leg.
 *
 * <p>One instance per client connection, in one of two modes: the explicit proxy (absolute-form
 * requests and CONNECT), or intercepted (origin-form requests inside a decrypted CONNECT tunnel to
 * {@code side.host():side.port()}; reverse mode uses the same fixed target).
 *
 * <h3>Flow control</h3>
 * Auto-read is off on both legs. The client is read only when the exchange wants request body and
 * the server leg is writable, or when no exchange is running; the origin is read only while the
 * client is writable. Pipelined requests wait in {@code inbound} until the previous response ends.
 * Body buffers pass from leg to leg untouched; the capture tap copies at most the capture cap.
 *
 * <h3>Full tier</h3>
 * When a rule or breakpoint may want a request ({@link InterceptService#begin}), the exchange is not
 * started at once: the whole request is collected (up to {@link #FULL_TIER_BODY_LIMIT}), handed to
 * the {@link Interception}, and only its outcome is fed to the exchange (forwarded, possibly edited
 * or sent elsewhere; answered locally; or aborted). The origin's response is collected the same way
 * before it is delivered. Outcomes may arrive on any thread (a user releasing a pause) and hop back
 * to this loop; on HTTP/2 and HTTP/3 each stream has its own leg, so a paused stream holds nobody
 * else up. Throttling paces the bodies in timed slices on this loop.
 *
 * <h3>Threads</h3>
 * Everything runs on the client channel's event loop; server-leg channels are created on the same
 * loop, so no field here needs synchronisation.
 */
final class Http1ClientLeg extends ChannelInboundHandlerAdapter {

  private final EngineContext engine;
  private final ClientSide side;
  private final ArrayDeque<HttpObject> inbound = new ArrayDeque<>();

  private ChannelHandlerContext ctx;
  private ConnectionInfo clientInfo;
  private TlsInfo clientTls;
  private int served;

  // Current exchange; all null/false between exchanges.
  private Exchange exchange;
  private HttpRequest request;
  private boolean webSocket;
  private UpstreamConnection upstream;
  private Http1ServerLeg serverLeg;
  private boolean upstreamKeepAlive;
  private boolean responseBodyAllowed;
  private boolean responseHeadSent;
  /** How responses go on the wire on this client's HTTP version. */
  private ResponseWriter writer;
  /** The response timeout (sans-io; see {@link ResponseTimer}); its one wake-up task, or null. */
  private ResponseTimer<Exchange> responseTimer;
  private ScheduledFuture<?> responseWake;

  private boolean closeAfterResponse;
  private boolean closing;
  private boolean waitingForUpstreamWritable;
  private boolean waitingForClientWritable;
  /**
   * True from a WebSocket upgrade request until its exchange ends: the HTTP decoder is out of the
   * pipeline and raw client bytes are held in {@link #upgradeEarlyBytes} (no more are read), to
   * become the first frames after a 101 or the next request otherwise.
   */
  private boolean upgradeHold;
  private ByteBuf upgradeEarlyBytes;

  // Full tier: all null unless the current exchange is intercepted.
  private Interception interception;
  /** The sans-io full tier of the current exchange: collects, asks, paces; this leg does its I/O. */
  private FullTier tier;
  private ScheduledFuture<?> fullTierTimer;

  Http1ClientLeg(EngineContext engine, ClientSide side) {
    this.engine = engine;
    this.side = side;
    this.clientTls = side.tls();
  }

  private boolean intercepted() {
    return side.fixedTarget();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.writer = ResponseWriter.of(side, ctx);
    Channel ch = ctx.channel();
    Channel connection = side.multiplexed() && ch.parent() != null ? ch.parent() : ch;
    if (connection instanceof io.netty.handler.codec.quic.QuicChannel quic) {
      // HTTP/3: the QUIC connection's addresses are connection ids; the UDP addresses are these.
      clientInfo = new ConnectionInfo(connectionId(connection), (InetSocketAddress) quic.remoteSocketAddress(),
          (InetSocketAddress) quic.localSocketAddress(), clientTls, false);
    } else {
      clientInfo = new ConnectionInfo(connectionId(connection), (InetSocketAddress) connection.remoteAddress(),
          (InetSocketAddress) connection.localAddress(), clientTls, false);
    }
    if (ch.isActive()) {
      ctx.read();
    }
  }

  private static final io.netty.util.AttributeKey<Long> CONNECTION_ID =
      io.netty.util.AttributeKey.valueOf("loupe.connection.id");

  /** One id per client connection, shared by all its HTTP/2 streams. */
  static long connectionId(Channel connection) {
    Long id = connection.attr(CONNECTION_ID).get();
    if (id == null) {
      id = ConnectionIds.next();
      connection.attr(CONNECTION_ID).set(id);
    }
    return id;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    ctx.read();
    ctx.fireChannelActive();
  }

  // ---- clientToProxy -----------------------------------------------------------------------

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (upgradeHold && msg instanceof ByteBuf b) {
      upgradeEarlyBytes = upgradeEarlyBytes == null ? b : Unpooled.wrappedBuffer(upgradeEarlyBytes, b);
      return;
    }
    if (closing) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (!(msg instanceof HttpObject o)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (o instanceof HttpRequest r && !side.multiplexed() && WebSocketUpgrade.holdsBytesBehind(r)) {
      holdBytesBehindUpgrade();
    }
    inbound.add(o);
    drain();
  }

  /**
   * Takes the HTTP decoder out of the pipeline after a WebSocket upgrade request: what the client
   * sends behind it (frames, sent before the 101 by eager clients) must not be parsed as the next
   * request. The decoder hands over the bytes it already holds (they arrive in channelRead, held).
   */
  private void holdBytesBehindUpgrade() {
    upgradeHold = true;
    WebSocketUpgrade.removeHttpDecoder(ctx.pipeline());
  }

  /** The held bytes, handed over (null when none). */
  private ByteBuf takeUpgradeEarlyBytes() {
    upgradeHold = false;
    ByteBuf b = upgradeEarlyBytes;
    upgradeEarlyBytes = null;
    return b;
  }

  /** Feeds queued messages to the current exchange, starting a new one when the last has ended. */
  private void drain() {
    while (!inbound.isEmpty() && !closing) {
      HttpObject msg = inbound.peek();
      if (msg instanceof HttpRequest r) {
        if (exchange != null) {
          return; // pipelined: wait for the current response to end
        }
        inbound.poll();
        startExchange(r);
        if (msg instanceof HttpContent c && !closing) {
          feedRequestContent(c);
        } else if (msg instanceof HttpContent c) {
          c.release();
        }
        continue;
      }
      inbound.poll();
      if (msg instanceof HttpContent c) {
        if (exchange == null) {
          c.release(); // the tail of a request we already answered
          continue;
        }
        feedRequestContent(c);
      }
    }
  }

  private void feedRequestContent(HttpContent c) {
    if (tier != null && tier.collectingRequest() && !c.decoderResult().isFailure()) {
      collectRequest(c);
      return;
    }
    if (c.decoderResult().isFailure()) {
      c.release();
      badRequestMidBody(c.decoderResult().cause());
      return;
    }
    boolean last = c instanceof LastHttpContent;
    ByteBuf data = c.content();
    if (data.isReadable()) {
      HttpContent payload = last ? new DefaultHttpContent(data) : c;
      capture(exchange.flow().requestBody(), data);
      execute(exchange.on(new ExchangeEvent.RequestDataReceived(payload, data.readableBytes())));
    } else if (!last) {
      c.release();
    }
    if (last && exchange != null) {
      Headers trailers = Http1Messages.toHeaders(((LastHttpContent) c).trailingHeaders());
      if (!data.isReadable()) {
        c.release();
      }
      execute(exchange.on(new ExchangeEvent.RequestEnded(trailers)));
    } else if (last && !data.isReadable()) {
      c.release();
    }
  }

  private void startExchange(HttpRequest req) {
    long now = System.nanoTime();
    if (req.decoderResult().isFailure()) {
      badRequest(req, reason(req.decoderResult().cause()));
      return;
    }
    if (!side.multiplexed()) {
      String versionProblem = Http1Messages.versionProblem(req.protocolVersion());
      if (versionProblem != null) {
        if (req.protocolVersion().majorVersion() != 1) {
          reject(req, 505, "HTTP Version Not Supported", versionProblem);
        } else {
          badRequest(req, versionProblem);
        }
        return;
      }
    }
    String problem = Http1Messages.framingProblem(req);
    if (problem != null) {
      badRequest(req, problem);
      return;
    }
    if (req.method().equals(HttpMethod.CONNECT)) {
      if (intercepted()) {
        badRequest(req, "CONNECT inside an intercepted tunnel is not supported");
        return;
      }
      handOverConnect(req);
      return;
    }
    RequestHead head;
    try {
      head = requestHead(req);
    } catch (IllegalArgumentException e) {
      badRequest(req, e.getMessage());
      return;
    }
    request = req;
    webSocket = Http1Messages.isWebSocketUpgrade(req);
    closeAfterResponse = !Http1Messages.keepAlive(req);
    Flow flow = newFlow();
    flow.timings().requestStart(now);
    exchange = new Exchange(flow, engine.store(), System::nanoTime);
    if (!webSocket) {
      flow.request(head);
      Interception ic = engine.intercept().begin(flow);
      if (ic != null) {
        holdRequest(req, ic);
        return;
      }
    }
    execute(exchange.on(new ExchangeEvent.RequestHeadersReceived(head, webSocket)));
  }

  private Flow newFlow() {
    Flow flow = new Flow(engine.store().nextId(), Instant.now(), engine.config().capture());
    flow.tier(FlowTier.RELAY);
    flow.clientProtocol(side.multiplexed() ? side.protocol()
        : request != null ? request.protocolVersion().text() : side.protocol());
    if (side.multiplexed() && ctx.channel() instanceof io.netty.handler.codec.http2.Http2StreamChannel sc) {
      flow.clientStreamId(sc.stream().id());
    } else if (ctx.channel() instanceof io.netty.handler.codec.quic.QuicStreamChannel qs) {
      flow.clientStreamId((int) Math.min(qs.streamId(), Integer.MAX_VALUE));
      flow.clientQuicConnectionId(Http3Streams.connectionIdHex(qs.parent()));
    }
    flow.clientConnection(new ConnectionInfo(clientInfo.id(), clientInfo.remoteAddress(), clientInfo.localAddress(),
        clientTls, served > 0));
    return flow;
  }

  private RequestHead requestHead(HttpRequest req) {
    String uri = req.uri();
    Headers headers = side.multiplexed() ? Http1Messages.toHeadersFromHttp2(req.headers(), true)
        : Http1Messages.toHeaders(req.headers());
    String version = side.multiplexed() ? side.protocol() : req.protocolVersion().text();
    if (RequestTargets.isOriginForm(uri)) {
      if (!intercepted()) {
        throw new IllegalArgumentException("Loupe is an HTTP proxy: it needs absolute-form requests"
            + " (http://host/path). Configure your client to use " + ctx.channel().localAddress()
            + " as its HTTP and HTTPS proxy.");
      }
      return new RequestHead(req.method().name(), side.scheme(), side.host(), side.port(),
          RequestTargets.normalize(uri), version, headers);
    }
    RequestTargets.Absolute a = RequestTargets.parseAbsolute(uri);
    if (intercepted()) {
      // Absolute-form inside a tunnel: the tunnel decides where it goes.
      return new RequestHead(req.method().name(), side.scheme(), side.host(), side.port(), a.target(), version,
          headers);
    }
    return new RequestHead(req.method().name(), a.scheme(), a.host(), a.port(), a.target(), version, headers);
  }

  // ---- CONNECT -----------------------------------------------------------------------------

  /** Hands the connection to a {@link ConnectHandler} for {@code req}'s target; this leg leaves. */
  private void handOverConnect(HttpRequest req) {
    RequestTargets.Authority target;
    try {
      target = RequestTargets.parseConnect(req.uri());
    } catch (IllegalArgumentException e) {
      badRequest(req, e.getMessage());
      return;
    }
    closing = true;
    ChannelPipeline p = ctx.pipeline();
    p.addAfter(ctx.name(), "connect", new ConnectHandler(engine, clientInfo, target,
        req.protocolVersion().equals(HttpVersion.HTTP_1_0), req instanceof LastHttpContent));
    HttpObject queued;
    while ((queued = inbound.poll()) != null) {
      ctx.fireChannelRead(queued); // the rest of the CONNECT message, or what the client sent behind it
    }
    p.remove(this);
  }

  // ---- commands ----------------------------------------------------------------------------

  private void execute(List<ExchangeCommand> commands) {
    for (ExchangeCommand c : commands) {
      if (c instanceof ExchangeCommand.OpenUpstream o) {
        openUpstream(o);
      } else if (c instanceof ExchangeCommand.SendRequestHead h) {
        // An HTTP/2 request whose HEADERS did not end the stream has a body to stream.
        upstream.channel().write(Http1Messages.toOriginRequest(h.head(), webSocket,
            side.multiplexed() && !(request instanceof LastHttpContent)));
      } else if (c instanceof ExchangeCommand.SendRequestData d) {
        upstream.channel().write(d.payload());
        rearmResponseTimer();
      } else if (c instanceof ExchangeCommand.SendRequestEnd e) {
        upstream.channel().writeAndFlush(e.trailers().isEmpty() ? LastHttpContent.EMPTY_LAST_CONTENT
            : new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, Http1Messages.toNetty(e.trailers())));
        rearmResponseTimer();
      } else if (c instanceof ExchangeCommand.SendResponseHead h) {
        if (tier != null && !tier.delivering() && !h.head().informational()) {
          // The origin's final head on an intercepted exchange: collect the response.
          cancelResponseTimer();
          upstreamKeepAlive = keepsAlive(h.head());
          runTier(new FullTier.ResponseHeadArrived(h.head()));
        } else {
          sendResponseHead(h.head());
        }
      } else if (c instanceof ExchangeCommand.SendResponseData d) {
        if (tier != null && tier.collectingResponse()) {
          Object payload = d.payload();
          feedTier(payload instanceof HttpContent hc ? hc.content() : (ByteBuf) payload, false);
          ReferenceCountUtil.release(payload);
        } else if (responseBodyAllowed) {
          writeHeldHead();
          ctx.write(d.payload());
        } else {
          ReferenceCountUtil.release(d.payload());
        }
      } else if (c instanceof ExchangeCommand.SendResponseEnd e) {
        writer.end(e.trailers());
      } else if (c instanceof ExchangeCommand.SendErrorResponse e) {
        FlowError err = exchange.flow().error();
        writeError(e.status(), e.reason(), e.detail(), err == null ? null : err.kind(), closeAfterResponse);
      } else if (c instanceof ExchangeCommand.Discard d) {
        ReferenceCountUtil.release(d.payload());
      } else if (c instanceof ExchangeCommand.SwitchToWebSocket) {
        switchToWebSocket();
      } else if (c instanceof ExchangeCommand.ReleaseUpstream r) {
        releaseUpstream(r.reusable());
      } else if (c instanceof ExchangeCommand.CloseClient cc) {
        closeClient(cc.abort());
      } else if (c instanceof ExchangeCommand.Finished) {
        finished();
      }
    }
  }

  private void openUpstream(ExchangeCommand.OpenUpstream o) {
    Exchange ex = exchange;
    String noHttp3 = o.scheme().equals("https") ? http3Off() : null;
    if (noHttp3 != null) {
      ex.flow().http3Status(noHttp3);
    }
    engine.connector().acquire(ctx.channel().eventLoop(), o.scheme(), o.host(), o.port(), ex.flow(), upstreamWant(),
            noHttp3 == null)
        .addListener(f -> {
          UpstreamConnector.Result r = (UpstreamConnector.Result) f.getNow();
          if (ex.finished() || exchange != ex) {
            if (r.connection() != null) {
              // Unused: pool it rather than drop it, so clients that open and cancel many streams
              // (rapid reset) do not turn into a stream of new origin connections.
              engine.connector().release(r.connection(), true);
            }
            return;
          }
          if (r.error() != null) {
            execute(ex.on(new ExchangeEvent.UpstreamFailed(r.error())));
            return;
          }
          upstream = r.connection();
          serverLeg = new Http1ServerLeg(this, ex.flow().request().authority(),
              upstream.multiplexed() ? upstream.protocol() : null);
          LegSlot.attach(upstream.channel(), serverLeg);
          execute(ex.on(new ExchangeEvent.UpstreamReady(upstream.info(), upstream.protocol())));
          if (upstream != null) {
            FlushCoalescer.flush(upstream.channel());
            upstream.channel().read();
            armResponseTimer(ex);
          }
          drain();
          readClientIfReady();
        });
  }

  /**
   * Why this exchange to an https origin does not look for HTTP/3 by Alt-Svc (recorded on the
   * flow as {@link dev.loupe.engine.flow.Flow#http3Status()}); null when the connector decides by
   * discovery (and records why itself).
   */
  private String http3Off() {
    dev.loupe.engine.api.EngineConfig config = engine.config();
    return switch (config.upstreamProtocol()) {
      case H1 -> "forced off (--upstream-protocol h1)";
      case H2 -> "forced off (--upstream-protocol h2)";
      case H3 -> webSocket ? "WebSocket stays on HTTP/1.1" : "forced (--upstream-protocol h3)";
      case AUTO -> webSocket ? "WebSocket stays on HTTP/1.1"
          : config.upstreamProxy() != null ? "off: QUIC cannot go through the upstream proxy"
          : null;
    };
  }

  /** What the server leg may speak for the current exchange (see --upstream-protocol). */
  private UpstreamConnector.Want upstreamWant() {
    if (webSocket) {
      return UpstreamConnector.Want.H1; // RFC 8441 extended CONNECT is not bridged: WebSocket stays on HTTP/1.1
    }
    return switch (engine.config().upstreamProtocol()) {
      case H1 -> UpstreamConnector.Want.H1;
      case H2 -> UpstreamConnector.Want.H2;
      case H3 -> UpstreamConnector.Want.H3;
      case AUTO -> side.h2cPriorKnowledge() ? UpstreamConnector.Want.H2
          : side.multiplexed() ? UpstreamConnector.Want.H2_OR_H1 : UpstreamConnector.Want.H1;
    };
  }

  /** Starts (or restarts) the response timeout for {@code ex}. */
  private void armResponseTimer(Exchange ex) {
    if (responseTimer == null) {
      responseTimer = new ResponseTimer<>(System::nanoTime, engine.config().responseTimeout().toNanos());
    }
    long delay = responseTimer.arm(ex);
    if (delay >= 0) {
      scheduleResponseWake(delay);
    }
  }

  /**
   * The origin's time to answer counts from the last request byte sent ({@link ResponseTimer}): a
   * request body still streaming moves the deadline, so a long upload is not cut off by a timeout
   * meant for a silent origin. Only while the response is awaited (the timer is on this exchange).
   */
  private void rearmResponseTimer() {
    if (responseTimer != null && exchange != null && responseTimer.timed() == exchange) {
      armResponseTimer(exchange);
    }
  }

  private void scheduleResponseWake(long delayNanos) {
    responseWake = ctx.executor().schedule(this::responseWakeFired, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void responseWakeFired() {
    responseWake = null;
    Exchange ex = responseTimer.timed();
    ResponseTimer.Verdict v = responseTimer.fired(exchange, exchange == null || exchange.finished());
    if (v instanceof ResponseTimer.Later later) {
      scheduleResponseWake(later.delayNanos());
    } else if (v instanceof ResponseTimer.TimedOut) {
      execute(ex.on(new ExchangeEvent.ResponseTimedOut()));
    }
  }

  /** Stops the response timeout (the response started, or the exchange ended). */
  private void cancelResponseTimer() {
    if (responseTimer != null) {
      responseTimer.disarm();
    }
  }

  /** The connection is gone: drop the pending wake-up too. */
  private void stopResponseTimer() {
    if (responseTimer != null) {
      responseTimer.stop();
    }
    if (responseWake != null) {
      responseWake.cancel(false);
      responseWake = null;
    }
  }

  private void sendResponseHead(ResponseHead head) {
    cancelResponseTimer();
    if (head.informational()) {
      writer.interim(head, request.protocolVersion());
      return;
    }
    upstreamKeepAlive = keepsAlive(head);
    responseHeadSent = true;
    responseBodyAllowed = Http1Messages.bodyAllowed(request.method().name(), head.status());
    var response = Http1Messages.toClientResponse(head, request.protocolVersion(), responseBodyAllowed,
        !closeAfterResponse);
    writer.altSvc(response, engine.altSvc().get());
    if (response.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
      closeAfterResponse = true;
    }
    writer.head(response);
  }

  /** Whether the origin keeps its connection open after {@code head}'s response. */
  private static boolean keepsAlive(ResponseHead head) {
    String connection = head.headers().get("connection");
    boolean http10 = head.httpVersion().equals("HTTP/1.0");
    return connection == null ? !http10
        : http10 ? connection.toLowerCase(Locale.ROOT).contains("keep-alive")
        : !connection.toLowerCase(Locale.ROOT).contains("close");
  }

  private void writeHeldHead() {
    writer.beforeBody();
  }


  private void releaseUpstream(boolean reusable) {
    cancelResponseTimer();
    if (upstream == null) {
      return;
    }
    UpstreamConnection up = upstream;
    upstream = null;
    waitingForUpstreamWritable = false;
    waitingForClientWritable = false;
    serverLeg.detach();
    LegSlot.detach(up.channel(), serverLeg);
    serverLeg = null;
    engine.connector().release(up, reusable && upstreamKeepAlive);
  }

  private void closeClient(boolean abort) {
    closing = true;
    if (abort) {
      ctx.flush();
      ctx.close();
    } else {
      closeAfterResponse = true;
    }
  }

  private void finished() {
    endFullTier();
    ChannelFuture last = writer.lastWrite();
    writer.reset();
    exchange = null;
    request = null;
    responseHeadSent = false;
    webSocket = false;
    served++;
    if (side.multiplexed()) {
      // One stream, one exchange. Closing the stream channel releases request data still queued in
      // it and returns its credit; if the client is still sending, the stream is reset (CANCEL) —
      // after the response's last frame has been written.
      closing = true;
      releaseInbound();
      if (last == null) {
        ctx.flush();
        ctx.close();
      } else {
        last.addListener(f -> ctx.close());
      }
      return;
    }
    if (closeAfterResponse || closing) {
      closing = true;
      releaseInbound();
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    ctx.flush();
    if (upgradeHold) {
      // The origin refused the upgrade: what the client sent behind it is its next request.
      WebSocketUpgrade.resumeHttp(ctx.pipeline(), engine.config().limits(), takeUpgradeEarlyBytes());
    }
    drain();
    readClientIfReady();
  }

  // ---- serverToProxy (called by Http1ServerLeg) ---------------------------------------------

  void serverEvent(ExchangeEvent e) {
    if (e instanceof ExchangeEvent.ResponseHeadersReceived && exchange != null && upstream != null
        && upstream.channel() instanceof io.netty.handler.codec.http2.Http2StreamChannel sc) {
      exchange.flow().serverStreamId(sc.stream().id());
    } else if (e instanceof ExchangeEvent.ResponseHeadersReceived && exchange != null && upstream != null
        && upstream.channel() instanceof io.netty.handler.codec.quic.QuicStreamChannel qs) {
      exchange.flow().serverStreamId((int) Math.min(qs.streamId(), Integer.MAX_VALUE));
    }
    if (e instanceof ExchangeEvent.ResponseHeadersReceived rh && upstream != null && !rh.head().informational()) {
      List<String> altSvc = rh.head().headers().getAll("alt-svc");
      if (!altSvc.isEmpty()) {
        engine.connector().advertised(upstream.key(), altSvc, rh.head().headers().get("age"));
      }
    }
    if (exchange != null && tier != null && tier.collectingResponse()
        && e instanceof ExchangeEvent.ResponseEnded end) {
      runTier(new FullTier.ResponseEnd(end.trailers()));
    } else if (exchange != null) {
      execute(exchange.on(e));
    } else if (e instanceof ExchangeEvent.ResponseDataReceived d) {
      ReferenceCountUtil.release(d.payload());
    }
  }

  void captureResponse(ByteBuf data) {
    if (exchange != null) {
      capture(exchange.flow().responseBody(), data);
    }
  }

  void serverBroken(FlowError error, boolean responseStarted) {
    if (exchange != null) {
      boolean retryable = !responseStarted && upstream != null && upstream.info().reused();
      execute(exchange.on(new ExchangeEvent.UpstreamBroken(error, retryable)));
    }
  }

  void serverReadComplete() {
    writeHeldHead();
    FlushCoalescer.flush(ctx.channel());
    if (upstream != null) {
      if (ctx.channel().isWritable()) {
        readSoon(upstream.channel());
      } else {
        waitingForClientWritable = true;
      }
    }
  }

  /**
   * Asks {@code ch} for more. A QUIC stream is asked once the loop has worked through the datagrams
   * it has in hand: a read pending while they are fed to QUIC takes each packet's ~1.2 KB on its own
   * (one event, one forward, one flush per packet); asked after them, one read takes all they
   * carried. Measured on 64 MiB bodies: 44,000-59,000 reads (1.1-1.5 KB each) before, 3,800-10,200
   * (6.5-17.6 KB each) after.
   */
  private static void readSoon(Channel ch) {
    if (ch instanceof io.netty.handler.codec.quic.QuicStreamChannel) {
      ch.eventLoop().execute(ch::read);
    } else {
      ch.read();
    }
  }

  void serverWritabilityChanged() {
    if (waitingForUpstreamWritable && upstream != null && upstream.channel().isWritable()) {
      waitingForUpstreamWritable = false;
      readClientIfReady();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (waitingForClientWritable && ctx.channel().isWritable() && upstream != null) {
      waitingForClientWritable = false;
      upstream.channel().read();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (upstream != null) {
      FlushCoalescer.flush(upstream.channel());
    }
    readClientIfReady();
  }

  private void readClientIfReady() {
    if (closing || upgradeHold || !inbound.isEmpty() || !ctx.channel().isActive()) {
      return;
    }
    if (exchange == null || tier != null && tier.collectingRequest()) {
      readSoon(ctx.channel());
      return;
    }
    if (exchange.wantsRequestData() && upstream != null) {
      if (upstream.channel().isWritable()) {
        readSoon(ctx.channel());
      } else {
        waitingForUpstreamWritable = true;
      }
    }
  }

  // ---- full tier ---------------------------------------------------------------------------

  /** Starts collecting the request of an exchange a rule, breakpoint or plugin may want. */
  private void holdRequest(HttpRequest req, Interception ic) {
    Flow flow = exchange.flow();
    flow.tier(FlowTier.FULL);
    interception = ic;
    tier = new FullTier(flow, System::nanoTime, FullTier.BODY_LIMIT);
    exchange.markRecorded();
    engine.store().add(flow); // shown (and pausable) while it is held
    if (io.netty.handler.codec.http.HttpUtil.is100ContinueExpected(req)) {
      // The client waits for a 100 before it sends the body we need to collect.
      sendResponseHead(new ResponseHead(100, "Continue", "HTTP/1.1", Headers.EMPTY));
    }
  }

  private void collectRequest(HttpContent c) {
    ByteBuf data = c.content();
    boolean last = c instanceof LastHttpContent;
    Headers trailers = last ? Http1Messages.toHeaders(((LastHttpContent) c).trailingHeaders()) : null;
    Exchange ex = exchange;
    if (data.isReadable()) {
      capture(ex.flow().requestBody(), data);
      feedTier(data, true);
    }
    c.release();
    if (last && exchange == ex && tier != null && tier.collectingRequest()) {
      runTier(new FullTier.RequestEnd(trailers));
    }
  }

  /** Feeds {@code event} to the full tier and carries out its commands. */
  private void runTier(FullTier.Event event) {
    FullTier t = tier;
    if (exchange != null && t != null) {
      carryOutAll(t.on(event));
    }
  }

  /** Body bytes for the full tier: it copies what it holds during the call, so views of them do. */
  private void feedTier(ByteBuf data, boolean request) {
    for (ByteBuffer b : data.nioBuffers()) {
      FullTier t = tier;
      if (exchange == null || t == null) {
        return;
      }
      carryOutAll(t.on(request ? new FullTier.RequestData(b) : new FullTier.ResponseData(b)));
    }
  }

  private void carryOutAll(List<FullTier.Command> commands) {
    Exchange ex = exchange;
    for (FullTier.Command c : commands) {
      if (exchange != ex || ex.finished()) {
        return; // the exchange ended on the way (the client left, an abort)
      }
      carryOut(ex, c);
    }
  }

  private void carryOut(Exchange ex, FullTier.Command c) {
    if (c instanceof FullTier.AskRequest a) {
      java.util.concurrent.CompletionStage<RequestOutcome> stage;
      try {
        stage = interception.request(a.original());
      } catch (RuntimeException e) {
        stage = java.util.concurrent.CompletableFuture.failedFuture(e);
      }
      Interception ic = interception;
      whenDecided(ex, stage, (outcome, error) -> runTier(new FullTier.RequestDecided(outcome, ic.throttle(),
          error == null ? null : describe(error))));
    } else if (c instanceof FullTier.AskResponse a) {
      java.util.concurrent.CompletionStage<ResponseOutcome> stage;
      try {
        stage = interception.response(a.sent(), a.draft());
      } catch (RuntimeException e) {
        stage = java.util.concurrent.CompletableFuture.failedFuture(e);
      }
      whenDecided(ex, stage, (outcome, error) -> runTier(new FullTier.ResponseDecided(outcome,
          error == null ? null : describe(error))));
    } else if (c instanceof FullTier.SendRequestHead h) {
      execute(ex.on(new ExchangeEvent.RequestHeadersReceived(h.head(), false)));
    } else if (c instanceof FullTier.SendRequestData d) {
      execute(ex.on(new ExchangeEvent.RequestDataReceived(
          new DefaultHttpContent(Unpooled.wrappedBuffer(d.body(), d.offset(), d.length())), d.length())));
      if (upstream != null) {
        upstream.channel().flush(); // a paced slice goes now, not with the next read's batch
        armResponseTimer(ex); // the origin's time to answer counts from the last byte we sent
      }
    } else if (c instanceof FullTier.SendRequestEnd e) {
      execute(ex.on(new ExchangeEvent.RequestEnded(e.trailers())));
    } else if (c instanceof FullTier.ReleaseUpstream) {
      releaseUpstream(ex.requestEnded()); // the origin is done: pool its connection while the user looks
    } else if (c instanceof FullTier.AnswerLocally a) {
      execute(ex.on(new ExchangeEvent.AnsweredLocally(a.head()))); // records it and sends the head
      if (exchange == ex && a.body().length > 0) {
        ex.flow().responseBody().append(ByteBuffer.wrap(a.body()));
      }
    } else if (c instanceof FullTier.DeliverHead h) {
      sendResponseHead(h.head());
    } else if (c instanceof FullTier.DeliverData d) {
      if (responseBodyAllowed) {
        writeHeldHead();
        ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(d.body(), d.offset(), d.length())));
        ctx.flush();
      }
    } else if (c instanceof FullTier.DeliverEnd e) {
      execute(ex.on(new ExchangeEvent.ResponseEnded(e.trailers())));
    } else if (c instanceof FullTier.Abort a) {
      abort(ex, a.reset(), a.why());
    } else if (c instanceof FullTier.Fail f) {
      interceptFailed(f.status(), f.reason(), f.detail());
    } else if (c instanceof FullTier.Wake w) {
      fullTierTimer = ctx.executor().schedule(() -> {
        fullTierTimer = null;
        if (exchange == ex && !ex.finished()) {
          runTier(new FullTier.Tick());
        }
      }, w.delayNanos(), TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Runs {@code then} on this loop once {@code stage} (an interception outcome) completes, unless
   * the exchange has ended meanwhile (the client left). An outcome decided at once (no pause) runs
   * inline, without a trip through the loop's task queue; a pause is published to the store's
   * listeners when it starts and when it ends (the table shows it).
   */
  private <T> void whenDecided(Exchange ex, java.util.concurrent.CompletionStage<T> stage,
      java.util.function.BiConsumer<T, Throwable> then) {
    java.util.concurrent.CompletableFuture<T> f = stage.toCompletableFuture();
    boolean paused = !f.isDone();
    if (paused) {
      engine.store().updated(ex.flow());
    }
    java.util.function.BiConsumer<T, Throwable> onLoop = (outcome, error) -> {
      if (exchange != ex || ex.finished() || error instanceof java.util.concurrent.CancellationException) {
        return; // the client left meanwhile
      }
      if (paused) {
        engine.store().updated(ex.flow());
      }
      then.accept(outcome, error instanceof java.util.concurrent.CompletionException && error.getCause() != null
          ? error.getCause() : error);
    };
    if (!paused && ctx.executor().inEventLoop()) {
      T outcome = null;
      Throwable error = null;
      try {
        outcome = f.join();
      } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
        error = e;
      }
      onLoop.accept(outcome, error);
      return;
    }
    f.whenComplete((outcome, error) -> ctx.executor().execute(() -> onLoop.accept(outcome, error)));
  }

  private static String describe(Throwable t) {
    Throwable c = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
  }

  /** Stops the exchange on purpose: the client's stream is reset, or its connection closed (reset). */
  private void abort(Exchange ex, boolean reset, String why) {
    Channel ch = ctx.channel();
    closing = true;
    releaseInbound();
    if (ch instanceof io.netty.handler.codec.http2.Http2StreamChannel) {
      ctx.writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2ResetFrame(reset
          ? io.netty.handler.codec.http2.Http2Error.REFUSED_STREAM : io.netty.handler.codec.http2.Http2Error.CANCEL));
    } else if (ch instanceof io.netty.handler.codec.quic.QuicStreamChannel) {
      Http3Streams.reset(ch, reset ? io.netty.handler.codec.http3.Http3ErrorCode.H3_REQUEST_REJECTED
          : io.netty.handler.codec.http3.Http3ErrorCode.H3_REQUEST_CANCELLED);
    } else if (reset) {
      ch.config().setOption(io.netty.channel.ChannelOption.SO_LINGER, 0); // close with RST
    }
    execute(ex.on(new ExchangeEvent.Aborted(new FlowError(FlowError.Kind.ABORTED, why))));
    if (!side.multiplexed()) {
      ctx.close();
    }
  }

  /** The full tier cannot go on with this exchange: answer with an error page naming why. */
  private void interceptFailed(int status, String reason, String detail) {
    Exchange ex = exchange;
    Interception ic = interception;
    endFullTier();
    if (ic != null) {
      ic.cancel();
    }
    ex.flow().fail(new FlowError(FlowError.Kind.INTERNAL, detail));
    if (!responseHeadSent) {
      writeError(status, reason, detail, FlowError.Kind.INTERNAL, true);
    } else {
      closing = true;
      ctx.close();
    }
    execute(ex.on(new ExchangeEvent.ClientGone(detail)));
  }

  /** Forgets the current exchange's full-tier state. */
  private void endFullTier() {
    interception = null;
    tier = null;
    if (fullTierTimer != null) {
      fullTierTimer.cancel(false);
      fullTierTimer = null;
    }
  }

  // ---- WebSocket ---------------------------------------------------------------------------

  private void switchToWebSocket() {
    Exchange ex = exchange;
    UpstreamConnection up = upstream;
    Channel client = ctx.channel();
    Channel server = up.channel();
    WebSocketRelay toServer = new WebSocketRelay(engine, ex, dev.loupe.engine.flow.WebSocketMessage.Direction.CLIENT_TO_SERVER, server);
    WebSocketRelay toClient = new WebSocketRelay(engine, ex, dev.loupe.engine.flow.WebSocketMessage.Direction.SERVER_TO_CLIENT, client);
    PeerRelay.pair(toServer, toClient);

    ChannelPipeline cp = client.pipeline();
    cp.addAfter(ctx.name(), "ws-decoder", new WebSocket13FrameDecoder(Pipelines.webSocketDecoder(true)));
    cp.addAfter("ws-decoder", "ws-encoder", new WebSocket13FrameEncoder(false));
    cp.addAfter("ws-encoder", "ws-relay", toServer);

    ChannelPipeline sp = server.pipeline();
    serverLeg.detach();
    sp.addAfter(UpstreamConnector.LEG, "ws-decoder", new WebSocket13FrameDecoder(Pipelines.webSocketDecoder(false)));
    sp.addAfter("ws-decoder", "ws-encoder", new WebSocket13FrameEncoder(true));
    sp.addAfter("ws-encoder", "ws-relay", toClient);

    cancelResponseTimer();
    upstream = null;
    serverLeg = null;
    exchange = null;
    closing = true;
    releaseInbound();
    sp.remove(UpstreamConnector.LEG);
    sp.remove(UpstreamConnector.CODEC);
    ByteBuf early = takeUpgradeEarlyBytes();
    if (early != null) {
      // Frames the client sent before the 101: the first the origin gets.
      ctx.fireChannelRead(early);
      ctx.fireChannelReadComplete();
    }
    cp.remove(this);
    cp.remove(Pipelines.HTTP_SERVER_CODEC);
    toServer.start();
    toClient.start();
  }

  // ---- errors ------------------------------------------------------------------------------

  private void badRequest(HttpRequest req, String reason) {
    reject(req, 400, "Bad Request", reason);
  }

  /** Refuses a request the origin must never see: records it as failed, answers, closes. */
  private void reject(HttpRequest req, int status, String statusReason, String reason) {
    Flow flow = newFlow();
    flow.timings().requestStart(System.nanoTime());
    flow.request(headForRejected(req));
    engine.store().add(flow);
    flow.fail(new FlowError(FlowError.Kind.CLIENT_PROTOCOL, "bad request from client: " + reason));
    engine.store().completed(flow);
    // A request that is also content (the decoder's invalid-message object) is released by drain().
    writeError(status, statusReason, reason, FlowError.Kind.CLIENT_PROTOCOL, true);
  }

  /** The best head we can record for a request we refuse: its real target when it parses. */
  private RequestHead headForRejected(HttpRequest req) {
    if (!req.decoderResult().isFailure() && !req.method().equals(HttpMethod.CONNECT)) {
      try {
        return requestHead(req);
      } catch (IllegalArgumentException ignored) {
        // fall through
      }
    }
    String uri = req.uri() == null ? "" : req.uri();
    String host = intercepted() ? side.host() : "unknown";
    int port = intercepted() ? side.port() : 0;
    if (req.method().equals(HttpMethod.CONNECT)) {
      return new RequestHead("CONNECT", "https", host, port, uri, req.protocolVersion().text(),
          Http1Messages.toHeaders(req.headers()));
    }
    return new RequestHead(req.method().name(), intercepted() ? side.scheme() : "http", host, port,
        uri.startsWith("/") ? uri : "/", req.protocolVersion().text(), Http1Messages.toHeaders(req.headers()));
  }

  private void badRequestMidBody(Throwable cause) {
    String reason = reason(cause);
    Exchange ex = exchange;
    if (ex != null) {
      // Streaming: the head (and body before the error) may be at the origin already. Its request
      // is aborted below (connection closed, RST_STREAM or RESET_STREAM), never completed.
      ex.flow().fail(new FlowError(FlowError.Kind.CLIENT_PROTOCOL, "bad request body from client: " + reason
          + (upstream != null ? "; the request to the origin was aborted" : "")));
    }
    if (!responseHeadSent) {
      writeError(400, "Bad Request", reason, FlowError.Kind.CLIENT_PROTOCOL, true);
    } else {
      closing = true;
      ctx.close();
    }
    if (ex != null) {
      // Never hand the origin the rest of an ambiguous body: drop the server leg too.
      execute(ex.on(new ExchangeEvent.ClientGone()));
    }
  }

  private static String reason(Throwable cause) {
    if (cause == null) {
      return "malformed request";
    }
    String m = cause.getMessage();
    if (cause instanceof io.netty.handler.codec.TooLongFrameException) {
      return m == null ? "request head too large" : m;
    }
    return m == null || m.isBlank() ? cause.getClass().getSimpleName() : m;
  }

  /** Writes a short text error page naming the cause; closes the connection when {@code close}. */
  private void writeError(int status, String reason, String detail, FlowError.Kind kind, boolean close) {
    boolean http10 = request != null && request.protocolVersion().equals(HttpVersion.HTTP_1_0);
    FullHttpResponse r = ErrorPages.page(status, reason, detail, kind, http10, close);
    if (close) {
      closing = true;
      releaseInbound();
      ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(r);
    }
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    releaseInbound();
    releaseEarlyBytes();
    if (interception != null) {
      interception.cancel(); // a pause for a client that left ends without an outcome
    }
    if (exchange != null) {
      execute(exchange.on(new ExchangeEvent.ClientGone(Http3Streams.cancelReason(ctx.channel()))));
    }
    endFullTier();
    if (upstream != null) {
      releaseUpstream(false);
    }
    stopResponseTimer();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (ctx.channel() instanceof io.netty.handler.codec.quic.QuicStreamChannel) {
      Http3Streams.streamFailed(ctx.channel(), cause); // resets the stream with an HTTP/3 error code
      return;
    }
    if (cause instanceof io.netty.handler.codec.http2.Http2Exception.StreamException se
        && ctx.channel() instanceof io.netty.handler.codec.http2.Http2StreamChannel) {
      // Keep the stream error's code (e.g. FLOW_CONTROL_ERROR): a bare close would say CANCEL.
      ctx.writeAndFlush(new io.netty.handler.codec.http2.DefaultHttp2ResetFrame(se.error()));
    }
    ctx.close();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    endFullTier();
    releaseInbound();
    releaseEarlyBytes();
  }

  private void releaseEarlyBytes() {
    ReferenceCountUtil.release(takeUpgradeEarlyBytes());
  }

  private void releaseInbound() {
    HttpObject o;
    while ((o = inbound.poll()) != null) {
      ReferenceCountUtil.release(o);
    }
  }

  static void capture(dev.loupe.engine.flow.Body body, ByteBuf data) {
    if (data.nioBufferCount() == 1) {
      body.append(data.nioBuffer());
    } else {
      for (ByteBuffer b : data.nioBuffers()) {
        body.append(b);
      }
    }
  }

  static String authority(String host, int port) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
