package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.ConnectionIds;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.time.Instant;

/**
 * What differs between HTTP versions on the client side of a {@link ClientLeg}: how a request is
 * read from its channel, and how a response goes back on it (interim responses, when the final head
 * leaves, Alt-Svc, the end of the message and its trailers, aborting, the connection a flow
 * records). The leg decides what happens; its codec decides how that looks on the wire, and keeps
 * what went out of the current response (its head, whether a body may follow, whether the
 * connection closes after it), which does not differ by version. One per leg: {@link
 * Http1ClientCodec}, {@link Http2ClientCodec}, {@link Http3ClientCodec}.
 *
 * <h3>The seam</h3>
 * The leg sees requests as neutral {@link ClientRequest}s and body parts as {@link HttpContent}
 * (a buffer, an end mark, trailers); it hands responses over as neutral {@link ResponseHead}s and
 * opaque payloads. HTTP/1.1 and HTTP/3 pipelines deliver Netty's HTTP objects (HTTP/3 streams
 * through Netty's frame-to-object adapter, {@link AdaptedStreamCodec}), so the reading methods here
 * take those and the writing methods write them. HTTP/2 streams are read and written as frames:
 * {@link Http2ClientCodec} overrides the reading methods for HEADERS and DATA frames and writes
 * frames, with no HTTP/2 ⇄ HTTP/1 object conversion; the leg is the same.
 *
 * <p>Confined to the leg's event loop.
 */
abstract class ClientCodec {
  final ChannelHandlerContext ctx;
  final ClientSide side;
  private ConnectionInfo connection;
  /** {@link #connection} marked reused, as the flows after the connection's first record it (made once). */
  private ConnectionInfo reusedConnection;
  private int served;
  // The response to the current request: all null/false between exchanges, but for closeAfter.
  private ClientRequest request;
  private boolean headSent;
  private boolean bodyAllowed;
  private boolean closeAfter;
  /**
   * Whether {@link #write} left a message unflushed. The leg's flushes at the end of an exchange
   * and of an origin read are skipped without it: SslHandler answers a flush with nothing pending
   * with a new promise and a TLS wrap of an empty buffer.
   */
  private boolean unflushed;

  ClientCodec(ChannelHandlerContext ctx, ClientSide side) {
    this.ctx = ctx;
    this.side = side;
  }

  /** The codec for {@code side}, its connection recorded (the connection id given) now. */
  static ClientCodec of(ClientSide side, ChannelHandlerContext ctx) {
    ClientCodec codec = !side.multiplexed() ? new Http1ClientCodec(ctx, side)
        : Http3Streams.PROTOCOL.equals(side.protocol()) ? new Http3ClientCodec(ctx, side)
        : new Http2ClientCodec(ctx, side);
    codec.connection();
    return codec;
  }

  // ---- the connection ----------------------------------------------------------------------

  /** True for one stream of a multiplexed connection: one exchange, then the stream closes. */
  abstract boolean multiplexed();

  /**
   * A new flow for a request on this connection or stream: its protocol (of {@link #request()},
   * else the side's), where it travels, and whether the connection served requests before.
   */
  RecordedFlow newFlow(long id, CapturePolicy capture) {
    ConnectionInfo connection = connection();
    RecordedFlow flow = new RecordedFlow(id, Instant.now(), capture);
    flow.tier(FlowTier.RELAY);
    flow.clientProtocol(request != null ? request.protocol() : side.protocol());
    describe(flow);
    if (served == 0) {
      flow.clientConnection(!connection.reused() ? connection // as made by connection(TlsInfo): the same record
          : new ConnectionInfo(connection.id(), connection.remoteAddress(), connection.localAddress(),
              connection.tls(), false));
    } else {
      if (reusedConnection == null) {
        reusedConnection = new ConnectionInfo(connection.id(), connection.remoteAddress(), connection.localAddress(),
            connection.tls(), true);
      }
      flow.clientConnection(reusedConnection);
    }
    return flow;
  }

  /** The client connection as flows record it (made on first use; the leg asks when it is added). */
  ConnectionInfo connection() {
    if (connection == null) {
      connection = connection(side.tls());
    }
    return connection;
  }

  /** The client connection as flows record it (one id per connection, shared by its streams). */
  ConnectionInfo connection(TlsInfo tls) {
    Channel ch = ctx.channel();
    Channel connection = multiplexed() && ch.parent() != null ? ch.parent() : ch;
    return new ConnectionInfo(ConnectionIds.of(connection), (InetSocketAddress) connection.remoteAddress(),
        (InetSocketAddress) connection.localAddress(), tls, false);
  }

  /** Records on a new flow where on the connection it travels (its stream). */
  void describe(RecordedFlow flow) {}

  /** Why the client went away, when it said (an HTTP/3 stream cancelled), else null. */
  String goneReason() {
    return null;
  }

  // ---- reading -----------------------------------------------------------------------------

  /** Whether the leg takes {@code msg} (else it is released unread). */
  boolean readable(Object msg) {
    return msg instanceof HttpObject;
  }

  /**
   * Takes {@code msg} when it is bytes the client sent behind a WebSocket upgrade request, held
   * until the origin answers (HTTP/1.1 only; see {@link WebSocketUpgrade}).
   */
  boolean hold(Object msg) {
    return false;
  }

  /** {@code msg} joins the leg's queue: an HTTP/1.1 upgrade request starts a hold of what follows it. */
  void queued(Object msg) {}

  /** Whether bytes behind an upgrade request are held (nothing more is read meanwhile). */
  boolean holding() {
    return false;
  }

  /** The exchange ended without a switch to WebSocket: held bytes are the client's next request. */
  void resumeHttp(EngineConfig.Limits limits) {}

  /** The held bytes, handed over (after a 101; null when none). */
  ByteBuf takeHeld() {
    return null;
  }

  /** Drops held bytes. */
  void releaseHeld() {}

  /** Whether {@code msg} opens a request ({@link #request}); it may carry body too. */
  boolean opensRequest(Object msg) {
    return msg instanceof HttpRequest;
  }

  /** Whether {@code msg} carries body or the end of the request ({@link #requestBody}). */
  boolean carriesBody(Object msg) {
    return msg instanceof HttpContent;
  }

  /** The body part {@code msg} carries; a {@link LastHttpContent} ends the request. */
  HttpContent requestBody(Object msg) {
    return (HttpContent) msg;
  }

  /** The trailers that end a request. */
  Headers trailers(LastHttpContent last) {
    return Http1Messages.toHeaders(last.trailingHeaders());
  }

  /** The request {@code msg} opens, checked as far as its version's rules go. */
  ClientRequest request(Object msg) {
    HttpRequest req = (HttpRequest) msg;
    DecoderResult decoded = req.decoderResult();
    boolean malformed = decoded.isFailure();
    int refusal = 0;
    String problem;
    if (malformed) {
      refusal = 400;
      problem = ErrorPages.reason(decoded.cause());
    } else if ((problem = versionProblem(req.protocolVersion())) != null) {
      refusal = req.protocolVersion().majorVersion() != 1 ? 505 : 400;
    } else if ((problem = Http1Messages.framingProblem(req)) != null) {
      refusal = 400;
    }
    boolean ok = refusal == 0;
    boolean ended = req instanceof LastHttpContent;
    return new ClientRequest(req.method().name(), req.uri(), protocol(req),
        req.protocolVersion().equals(HttpVersion.HTTP_1_0), headers(req.headers()), ended,
        multiplexed() && !ended, ok && Http1Messages.keepAlive(req), ok && Http1Messages.isWebSocketUpgrade(req),
        ok && HttpUtil.is100ContinueExpected(req), malformed, refusal, problem);
  }

  /** Why this version refuses a request line's version, or null. */
  String versionProblem(HttpVersion version) {
    return null;
  }

  /** What flows record as the protocol of {@code req}. */
  String protocol(HttpRequest req) {
    return side.protocol();
  }

  /** The end-to-end headers of a request as they were on the wire. */
  abstract Headers headers(HttpHeaders headers);

  // ---- the response ------------------------------------------------------------------------

  /** An exchange starts answering {@code req}. */
  void begin(ClientRequest req) {
    request = req;
    closeAfter = !req.keepAlive();
  }

  /** The request being answered, or null between exchanges. */
  ClientRequest request() {
    return request;
  }

  /** Whether the final response head has gone out (or is held to go out). */
  boolean headSent() {
    return headSent;
  }

  /** The exchange closes the client: at once ({@code abort}), or after this response. */
  void closeClient(boolean abort) {
    if (abort) {
      ctx.flush();
      ctx.close();
    } else {
      closeAfter = true;
    }
  }

  boolean closesAfter() {
    return closeAfter;
  }

  /** A response head (interim or final) for the current request; {@code altSvc} as {@link #head} takes it. */
  void respond(ResponseHead head, String altSvc) {
    if (head.informational()) {
      interim(head, request);
      return;
    }
    headSent = true;
    bodyAllowed = Http1Messages.bodyAllowed(request.method(), head.status());
    if (head(head, request, bodyAllowed, !closeAfter, altSvc)) {
      closeAfter = true;
    }
  }

  // ---- writes nobody waits for -------------------------------------------------------------

  /** Writes {@code msg} for a later flush ({@link #flushWritten}, or a flush of its own); nobody waits for it. */
  final void write(Object msg) {
    ctx.write(msg, ctx.voidPromise());
    unflushed = true;
  }

  /** Writes and flushes {@code msg} and what was written before it; nobody waits for it. */
  final void writeAndFlush(Object msg) {
    unflushed = false;
    ctx.writeAndFlush(msg, ctx.voidPromise());
  }

  /** Flushes the channel as {@link FlushCoalescer#flush} does (what was written before goes too). */
  final void flushNow() {
    unflushed = false;
    FlushCoalescer.flush(ctx.channel());
  }

  /** Flushes what {@link #write} left unflushed, if anything, as {@link #flushNow} does. */
  final void flushWritten() {
    if (unflushed) {
      flushNow();
    }
  }

  /** Response body: written when the response may have one, else released. */
  void responseBody(Object payload) {
    if (bodyAllowed) {
      data(payload);
    } else {
      ReferenceCountUtil.release(payload);
    }
  }

  /** Response body the full tier delivers (a slice of its own array), flushed at once. */
  void deliver(byte[] body, int offset, int length) {
    if (bodyAllowed) {
      data(new DefaultHttpContent(Unpooled.wrappedBuffer(body, offset, length)));
      ctx.flush();
    }
  }

  /** Writes one of Loupe's error pages; {@code close} says the connection closes after it. */
  ChannelFuture error(int status, String reason, String detail, FlowError.Kind kind, boolean close) {
    return page(ErrorPages.page(status, reason, detail, kind, request != null && request.http10(), close));
  }

  /**
   * Whether the connection goes on to the next request after this response; if not, the leg
   * {@link #close}s it.
   */
  boolean goesOn() {
    return !multiplexed() && !closeAfter;
  }

  /** Closes the connection (or stream) once the response has gone; {@code last}: {@link #finish()}'s. */
  void close(ChannelFuture last) {
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  /** The exchange is over: the write of its last message (multiplexed; else null), and state forgotten. */
  ChannelFuture finish() {
    ChannelFuture last = lastWrite();
    reset();
    request = null;
    headSent = false;
    served++;
    return last;
  }

  // ---- writing -----------------------------------------------------------------------------

  /** Writes an interim (1xx) response. */
  abstract void interim(ResponseHead head, ClientRequest request);

  /**
   * Writes (or holds, until body or the end comes) the final response head to {@code request}.
   * {@code altSvc}: reverse mode with the QUIC listener up, what the head says of it (else null).
   * Returns whether the client connection closes after this response.
   */
  boolean head(ResponseHead head, ClientRequest request, boolean bodyAllowed, boolean keepAlive, String altSvc) {
    HttpResponse response = Http1Messages.toClientResponse(head, version(request), bodyAllowed, keepAlive);
    altSvc(response, altSvc);
    boolean close = response.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    writeHead(response);
    return close;
  }

  HttpVersion version(ClientRequest request) {
    return request.http10() ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
  }

  /**
   * TCP clients are pointed at Loupe's HTTP/3 port (an origin's own Alt-Svc names the origin's
   * endpoints, which the client does not reach through Loupe).
   */
  void altSvc(HttpResponse response, String altSvc) {
    if (altSvc != null) {
      response.headers().set(HttpHeaderNames.ALT_SVC, altSvc);
    }
  }

  abstract void writeHead(HttpResponse response);

  /** A body payload from the server leg (or the full tier), written as it is; anything held goes first. */
  void data(Object payload) {
    beforeBody();
    write(payload);
  }

  /** Body bytes follow, or the read ended: a held head goes out. */
  void beforeBody() {}

  /** Ends the response, with {@code trailers} (may be empty). */
  abstract void end(Headers trailers);

  /** The write of the last message, until the stream may close (multiplexed); else null. */
  ChannelFuture lastWrite() {
    return null;
  }

  /** The exchange is over: forget per-response state. */
  void reset() {}

  /** Writes one of Loupe's own whole responses (an error page). */
  ChannelFuture page(FullHttpResponse page) {
    return ctx.writeAndFlush(page);
  }

  /** Stops the exchange on purpose: the stream is reset, or (HTTP/1.1, {@code reset}) the leg closes with RST. */
  abstract void abort(boolean reset);

  /** The channel failed with {@code cause}: close it the way the version wants. */
  void failed(Throwable cause) {
    ctx.close();
  }

  static LastHttpContent last(Headers trailers) {
    return trailers.isEmpty() ? LastHttpContent.EMPTY_LAST_CONTENT
        : new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, Http1Messages.toNetty(trailers));
  }

  static DefaultFullHttpResponse full(HttpResponse h) {
    return new DefaultFullHttpResponse(h.protocolVersion(), h.status(), Unpooled.EMPTY_BUFFER, h.headers(),
        EmptyHttpHeaders.INSTANCE);
  }
}
