package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.exchange.ExchangeCommand;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import dev.loupe.engine.internal.protocol.http2.Http2Messages;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import dev.loupe.engine.internal.upstream.LegSlot;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import java.util.List;

/**
 * The server leg of one exchange: reads the origin's response on the connection or stream the
 * exchange took (an HTTP/1.1 connection or an HTTP/3 stream delivering Netty's HTTP objects, or an
 * HTTP/2 stream delivering frames) and turns it into neutral events for its {@link Owner}; writes
 * the request to it (HTTP objects, or HEADERS and DATA frames); gives it back to the {@link
 * UpstreamConnector}. Installed when the exchange takes the connection, removed when it gives it
 * back.
 *
 * <p>Event-loop confined (the same loop as the client leg). Payloads handed on are owned by the
 * receiver.
 */
final class ServerLeg extends ChannelInboundHandlerAdapter {
  /** Who gets the response: the client leg of the exchange. */
  interface Owner {
    /** A response event for the exchange; body payloads pass to the owner. */
    void serverEvent(ExchangeEvent e);

    /**
     * The origin failed or closed before the response ended; {@code retryable} when no response
     * byte had come on a reused connection (the request may go again on a fresh one).
     */
    void serverBroken(FlowError error, boolean retryable);

    /** The end of a read from the origin. */
    void serverReadComplete();

    void serverWritabilityChanged();
  }

  private final Owner owner;
  private final RecordedFlow flow;
  private final UpstreamConnection connection;
  private final UpstreamConnector connector;
  /** The request as the leg opened: its authority names the origin in error messages (made only then). */
  private final RequestHead request;
  /** {@code HTTP/2} or {@code HTTP/3} for a multiplexed stream, else null. */
  private final String multiplexed;
  /** An HTTP/2 stream without Netty's object adapter: requests are written and responses read as frames. */
  private final boolean frames;
  /** The request's HEADERS, held until its end (a request without body), else null. */
  private Http2Headers heldHead;
  private boolean responseStarted;
  private boolean responseEnded;
  private boolean detached;
  /**
   * Whether a write left a message unflushed: flushes with nothing to send are skipped (SslHandler
   * answers one with a new promise and a TLS wrap of an empty buffer).
   */
  private boolean unflushed;

  ServerLeg(Owner owner, RecordedFlow flow, UpstreamConnection connection, UpstreamConnector connector) {
    this.owner = owner;
    this.flow = flow;
    this.connection = connection;
    this.connector = connector;
    this.request = flow.request();
    this.multiplexed = connection.multiplexed() ? connection.protocol() : null;
    this.frames = connection.multiplexed() && "HTTP/2".equals(connection.protocol());
  }

  /**
   * What {@link #open} reports to, and the listener on the connection it acquires: one object per
   * request (the exchange's side implements {@link #wanted} and {@link #opened}), where lambdas for
   * each part cost three.
   */
  abstract static class Opening implements GenericFutureListener<Future<UpstreamConnector.Result>> {
    private final UpstreamConnector connector;
    private final Owner owner;
    private final RecordedFlow flow;

    Opening(UpstreamConnector connector, Owner owner, RecordedFlow flow) {
      this.connector = connector;
      this.owner = owner;
      this.flow = flow;
    }

    /** Whether the exchange still wants the connection (else it goes back to the pool unused). */
    abstract boolean wanted();

    /** A server leg attached to the connection, or the error. */
    abstract void opened(ServerLeg leg, FlowError error);

    @Override
    public final void operationComplete(Future<UpstreamConnector.Result> f) {
      UpstreamConnector.Result r = f.getNow();
      if (!wanted()) {
        if (r.connection() != null) {
          // Unused: pool it rather than drop it, so clients that open and cancel many streams
          // (rapid reset) do not turn into a stream of new origin connections.
          connector.release(r.connection(), true);
        }
        return;
      }
      if (r.error() != null) {
        opened(null, r.error());
        return;
      }
      ServerLeg leg = new ServerLeg(owner, flow, r.connection(), connector);
      LegSlot.attach(r.connection().channel(), leg);
      opened(leg, null);
    }
  }

  /**
   * Acquires a connection to {@code o}'s origin for {@code opening}'s flow as {@code choice} says
   * (recording on the flow why HTTP/3 is off), then, on {@code loop}: {@code opening} gets a server
   * leg attached to it, whose events go to its owner, or the error. A connection that arrives when
   * {@link Opening#wanted} says no (the exchange ended meanwhile) goes back to the pool unused.
   */
  static void open(Opening opening, ExchangeCommand.OpenUpstream o, UpstreamChoice choice, EventLoop loop) {
    if (choice.http3Off() != null) {
      opening.flow.http3Status(choice.http3Off());
    }
    opening.connector.acquire(loop, o.scheme(), o.host(), o.port(), opening.flow, choice.want(), choice.discover())
        .addListener(opening);
  }

  Channel channel() {
    return connection.channel();
  }

  private String authority() {
    return request.authority();
  }

  /** What the flow records of the connection, and its protocol. */
  ConnectionInfo info() {
    return connection.info();
  }

  String protocol() {
    return connection.protocol();
  }

  /**
   * The exchange has the connection: what it wrote so far leaves (now, or with {@code flushLater}
   * at the end of the client read under way, which flushes the leg: the request's end, often in
   * the same read, then leaves with its head), and the origin is read.
   */
  void start(boolean flushLater) {
    writeHeldHead(); // the end did not come with the head: the head goes alone
    if (!flushLater) {
      flushWritten();
    }
    connection.channel().read();
  }

  /** Flushes what the leg wrote and did not flush yet, if anything ({@link FlushCoalescer#flush}). */
  void flushWritten() {
    if (unflushed) {
      unflushed = false;
      FlushCoalescer.flush(connection.channel());
    }
  }

  /** Writes {@code msg} for a later flush; nobody waits for the write (a failure reaches exceptionCaught). */
  private void write0(Object msg) {
    Channel ch = connection.channel();
    ch.write(msg, ch.voidPromise());
    unflushed = true;
  }

  /** Writes and flushes {@code msg} and what was written before it; nobody waits for the write. */
  private void writeAndFlush0(Object msg) {
    Channel ch = connection.channel();
    unflushed = false;
    ch.writeAndFlush(msg, ch.voidPromise());
  }

  /**
   * proxyToServer: the request head of {@code req} (as the exchange has it). On an HTTP/2 stream
   * (frames, no adapter) the HEADERS frame of a request that had no body waits for the end, so
   * that it goes out with END_STREAM (one frame, not HEADERS + empty DATA).
   */
  void writeHead(RequestHead head, ClientRequest req) {
    if (frames) {
      Http2Headers h = Http2Messages.requestHeaders(head, head.authority(), connection.info().tls() != null);
      if (req.ended()) {
        heldHead = h;
      } else {
        write0(new DefaultHttp2HeadersFrame(h, false));
      }
      return;
    }
    write0(Http1Messages.toOriginRequest(head, req.webSocket(), req.streamsBody()));
  }

  /** proxyToServer: a body payload, as it is (on an HTTP/2 stream: its buffer as DATA). */
  void write(Object payload) {
    if (frames) {
      writeHeldHead();
      ByteBuf data = payload instanceof ByteBufHolder b ? b.content() : (ByteBuf) payload;
      write0(new DefaultHttp2DataFrame(data, false));
      return;
    }
    write0(payload);
  }

  /** proxyToServer: the end of the request, with {@code trailers}. */
  void end(Headers trailers) {
    if (frames) {
      if (heldHead != null && trailers.isEmpty()) {
        writeAndFlush0(new DefaultHttp2HeadersFrame(heldHead, true));
        heldHead = null;
        return;
      }
      writeHeldHead();
      writeAndFlush0(trailers.isEmpty() ? new DefaultHttp2DataFrame(true)
          : new DefaultHttp2HeadersFrame(Http2Messages.trailers(trailers), true));
      return;
    }
    writeAndFlush0(trailers.isEmpty() ? LastHttpContent.EMPTY_LAST_CONTENT
        : new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, Http1Messages.toNetty(trailers)));
  }

  private void writeHeldHead() {
    if (heldHead != null) {
      write0(new DefaultHttp2HeadersFrame(heldHead, false));
      heldHead = null;
    }
  }

  /** The origin advertised these alternative services (and this {@code Age}, or null): for HTTP/3 discovery. */
  void advertised(List<String> altSvc, String age) {
    connector.advertised(connection.key(), altSvc, age);
  }

  /** Stops forwarding events (the exchange is over); the handler is about to be removed. */
  void detach() {
    detached = true;
  }

  /** Gives the connection back: to the pool when {@code reusable}, else closed. */
  void release(boolean reusable) {
    detach();
    LegSlot.detach(connection.channel(), this);
    connector.release(connection, reusable);
  }

  /** A response head arrived: the flow records the stream it came on. */
  private void headArrived() {
    Channel ch = connection.channel();
    if (ch instanceof Http2StreamChannel stream) {
      flow.serverStreamId(stream.stream().id());
    } else if (ch instanceof QuicStreamChannel stream) {
      flow.serverStreamId((int) Math.min(stream.streamId(), Integer.MAX_VALUE));
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (detached) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof Http2HeadersFrame h) {
      readHeaders(h);
      return;
    }
    if (msg instanceof Http2DataFrame d) {
      readData(d);
      return;
    }
    if (msg instanceof HttpResponse r) {
      DecoderResult dr = r.decoderResult();
      if (dr.isFailure()) {
        ReferenceCountUtil.release(msg);
        broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL,
            authority() + " sent an invalid response: " + dr.cause().getMessage()));
        return;
      }
      if (!r.status().codeClass().equals(HttpStatusClass.INFORMATIONAL)) {
        responseStarted = true;
      }
      ResponseHead head = multiplexed != null
          ? new ResponseHead(r.status().code(), "", multiplexed, Http1Messages.toHeadersFromHttp2(r.headers(), false))
          : Http1Messages.toResponseHead(r);
      headArrived();
      owner.serverEvent(new ExchangeEvent.ResponseHeadersReceived(head));
      if (!(msg instanceof HttpContent)) {
        return;
      }
    }
    if (msg instanceof HttpContent c) {
      if (c.decoderResult().isFailure()) {
        c.release();
        broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL,
            authority() + " sent an invalid response body: " + c.decoderResult().cause().getMessage()));
        return;
      }
      boolean last = c instanceof LastHttpContent;
      if (last && !responseStarted) {
        // End of an informational (1xx) response; the final response follows.
        c.release();
        return;
      }
      if (c.content().isReadable()) {
        HttpContent data = last ? new DefaultHttpContent(c.content()) : c;
        Capture.append(flow.responseBody(), data.content());
        owner.serverEvent(new ExchangeEvent.ResponseDataReceived(data, data.content().readableBytes()));
      } else if (!last) {
        c.release();
      }
      if (last) {
        LastHttpContent lc = (LastHttpContent) c;
        Headers trailers = multiplexed != null ? Http1Messages.toHeadersFromHttp2(lc.trailingHeaders(), false)
            : Http1Messages.toHeaders(lc.trailingHeaders());
        if (!c.content().isReadable()) {
          c.release();
        }
        responseEnded = true;
        owner.serverEvent(new ExchangeEvent.ResponseEnded(trailers));
      }
      return;
    }
    ReferenceCountUtil.release(msg);
  }

  /** An HTTP/2 origin's HEADERS: an interim or the final head, or (after it) the trailers. */
  private void readHeaders(Http2HeadersFrame frame) {
    Http2Headers h = frame.headers();
    if (responseStarted) {
      responseEnded = true; // RFC 9113 §8.1: trailers end the stream (the codec enforces END_STREAM)
      owner.serverEvent(new ExchangeEvent.ResponseEnded(Http2Messages.fields(h)));
      return;
    }
    int status = Http2Messages.status(h);
    if (status < 0) {
      broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority() + " sent an invalid response: :status "
          + (h.status() == null ? "missing" : "'" + h.status() + "'")));
      return; // the exchange gives the stream back unusable: it is reset
    }
    boolean interim = status < 200;
    if (!interim) {
      responseStarted = true;
    }
    headArrived();
    owner.serverEvent(new ExchangeEvent.ResponseHeadersReceived(
        new ResponseHead(status, "", multiplexed, Http2Messages.fields(h))));
    if (frame.isEndStream() && !interim) {
      responseEnded = true;
      owner.serverEvent(new ExchangeEvent.ResponseEnded(Headers.EMPTY));
    }
  }

  /** An HTTP/2 origin's DATA: body (its buffer passed on), and maybe the end. */
  private void readData(Http2DataFrame frame) {
    ByteBuf content = frame.content();
    if (!responseStarted) {
      content.release();
      broken(new FlowError(FlowError.Kind.SERVER_PROTOCOL, authority() + " sent DATA before a response head"));
      return;
    }
    if (content.isReadable()) {
      Capture.append(flow.responseBody(), content);
      owner.serverEvent(new ExchangeEvent.ResponseDataReceived(new DefaultHttpContent(content),
          content.readableBytes()));
    } else {
      content.release();
    }
    if (frame.isEndStream()) {
      responseEnded = true;
      owner.serverEvent(new ExchangeEvent.ResponseEnded(Headers.EMPTY));
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!detached) {
      owner.serverReadComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!detached) {
      owner.serverWritabilityChanged();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (!detached && !responseEnded) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET, responseStarted
          ? authority() + " closed the connection before the response body ended"
          : authority() + " closed the connection before sending a response"));
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!detached && !responseEnded) {
      broken(new FlowError(FlowError.Kind.SERVER_RESET,
          "connection to " + authority() + " failed: " + cause.getMessage()));
    }
    ctx.close();
  }

  private void broken(FlowError error) {
    if (!detached) {
      owner.serverBroken(error, !responseStarted && connection.info().reused());
    }
  }
}
