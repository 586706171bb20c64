package dev.loupe.bench.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http3.DefaultHttp3DataFrame;
import io.netty.handler.codec.http3.DefaultHttp3Headers;
import io.netty.handler.codec.http3.DefaultHttp3HeadersFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3DataFrame;
import io.netty.handler.codec.http3.Http3Headers;
import io.netty.handler.codec.http3.Http3HeadersFrame;
import io.netty.handler.codec.http3.Http3RequestStreamInboundHandler;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamLimitChangedEvent;
import io.netty.handler.codec.quic.QuicStreamType;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/3 client connection of the run: a UDP socket of its own, one QUIC connection on it,
 * {@code -m} request streams in flight (a new stream opened as soon as one ends, within the
 * peer's bidirectional stream credit). Reconnects after the QUIC connection closes while the run
 * lasts (each failed attempt is an error; retries are 20 ms apart). The certificate is checked
 * against {@code --cacert} and the URL's host name. Event-loop confined except for the
 * immutable fields.
 */
final class QuicLoadConnection implements LoadClient {
  private static final long RETRY_MILLIS = 20;
  private static final long CONNECTION_WINDOW = 16L << 20;
  private static final long STREAM_WINDOW = 2L << 20;

  private final LoadOptions options;
  private final LoadClock clock;
  private final LoadStats stats = new LoadStats();
  private final EventLoop loop;
  private final Class<? extends Channel> datagramType;
  private final QuicSslContext ssl;
  /** POST body shared by all requests (unreleasable, duplicated per request), or null for GET. */
  private final ByteBuf body;
  private final InetSocketAddress target;

  private Channel udp;
  private QuicChannel quic;
  private final Set<Stream> inFlight = new HashSet<>();
  private Throwable firstError;

  QuicLoadConnection(LoadOptions options, LoadClock clock, EventLoop loop, Class<? extends Channel> datagramType,
      QuicSslContext ssl, ByteBuf body) {
    this.options = options;
    this.clock = clock;
    this.loop = loop;
    this.datagramType = datagramType;
    this.ssl = ssl;
    this.body = body;
    this.target = new InetSocketAddress(options.host, options.port);
  }

  @Override
  public EventLoop loop() {
    return loop;
  }

  @Override
  public LoadStats stats() {
    return stats;
  }

  @Override
  public Throwable firstError() {
    return firstError;
  }

  @Override
  public void connect() {
    if (!clock.running()) {
      return;
    }
    ChannelHandler codec = Http3.newQuicClientCodecBuilder()
        .sslEngineProvider(q -> ssl.newEngine(q.alloc(), options.host, options.port))
        .maxIdleTimeout(30, TimeUnit.SECONDS)
        .initialMaxData(CONNECTION_WINDOW)
        .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
        .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
        .initialMaxStreamsBidirectional(0) // HTTP/3 servers open no request streams
        .build();
    new Bootstrap().group(loop).channel(datagramType)
        .option(ChannelOption.SO_RCVBUF, 4 << 20)
        .option(ChannelOption.SO_SNDBUF, 4 << 20)
        .handler(codec)
        .bind(new InetSocketAddress(0))
        .addListener(bf -> {
          if (!bf.isSuccess()) {
            failed(LoadStats.ErrorKind.CONNECT, bf.cause(), null);
            return;
          }
          Channel u = ((io.netty.channel.ChannelFuture) bf).channel();
          udp = u;
          Future<QuicChannel> cf = QuicChannel.newBootstrap(u)
              .handler(new Http3ClientConnectionHandler())
              .remoteAddress(target)
              .connect();
          cf.addListener(done -> {
            if (!done.isSuccess()) {
              // the handshake (certificate, ALPN) or the path failed
              failed(LoadStats.ErrorKind.TLS, done.cause(), u);
              return;
            }
            QuicChannel q = cf.getNow();
            quic = q;
            q.pipeline().addLast(new ChannelInboundHandlerAdapter() {
              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof QuicStreamLimitChangedEvent) {
                  fill();
                }
                ctx.fireUserEventTriggered(evt);
              }
            });
            q.closeFuture().addListener(c -> closed(q, u));
            fill();
          });
        });
  }

  private void failed(LoadStats.ErrorKind kind, Throwable cause, Channel u) {
    if (clock.running()) {
      stats.error(kind);
      noteError(cause);
    }
    if (u != null) {
      u.close();
    }
    retryLater();
  }

  private void closed(QuicChannel q, Channel u) {
    u.close();
    if (quic != q) {
      return;
    }
    quic = null;
    for (Stream s : inFlight) {
      s.done = true;
      if (clock.running()) {
        stats.error(LoadStats.ErrorKind.CLOSED);
      }
    }
    inFlight.clear();
    retryLater();
  }

  private void retryLater() {
    if (clock.running()) {
      loop.schedule(this::connect, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** Opens request streams up to -m, within the peer's stream credit. */
  private void fill() {
    QuicChannel q = quic;
    while (q != null && q.isActive() && clock.running() && inFlight.size() < options.streams
        && q.peerAllowedStreams(QuicStreamType.BIDIRECTIONAL) > 0) {
      Stream s = new Stream(q);
      inFlight.add(s);
      Http3.newRequestStream(q, s).addListener(f -> {
        if (!f.isSuccess()) {
          if (!s.done) {
            s.done = true;
            inFlight.remove(s);
            if (clock.running()) {
              stats.error(LoadStats.ErrorKind.OTHER);
              noteError(f.cause());
            }
          }
          return;
        }
        s.send((QuicStreamChannel) f.getNow());
      });
    }
  }

  private Http3Headers newHeaders() {
    Http3Headers h = new DefaultHttp3Headers(false)
        .method(body == null ? "GET" : "POST")
        .scheme("https")
        .authority(options.authority())
        .path(options.path);
    h.set(HttpHeaderNames.USER_AGENT, "loupe-loadgen");
    if (body != null) {
      h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
      h.set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
    }
    return h;
  }

  private void record(long startNanos, int status, long bodyBytes) {
    long now = System.nanoTime();
    if (status < 200 || status >= 300) {
      if (clock.running()) {
        stats.error(LoadStats.ErrorKind.NON2XX);
        noteError(new IllegalStateException("status " + status));
      }
      return;
    }
    if (clock.measured(now)) {
      stats.requests++;
      stats.bodyBytes += bodyBytes;
      stats.latencyMicros.recordValue(Math.min((now - startNanos) / 1000, 600_000_000L));
    }
  }

  private void noteError(Throwable t) {
    if (firstError == null && t != null) {
      firstError = t;
    }
  }

  @Override
  public void finish(long timeoutBefore) {
    for (Stream s : inFlight) {
      if (s.start != 0 && s.start - timeoutBefore < 0) {
        stats.error(LoadStats.ErrorKind.TIMEOUT);
      }
    }
    QuicChannel q = quic;
    quic = null;
    inFlight.clear();
    if (q != null) {
      q.close();
    }
    if (udp != null) {
      udp.close();
    }
  }

  /** One request stream: headers (and body) out, output shut down, response counted and dropped. */
  private final class Stream extends Http3RequestStreamInboundHandler {
    private final QuicChannel owner;
    long start;
    int status;
    long bytes;
    boolean done;

    Stream(QuicChannel owner) {
      this.owner = owner;
    }

    void send(QuicStreamChannel ch) {
      if (done) {
        ch.close();
        return;
      }
      start = System.nanoTime();
      if (body == null) {
        ch.writeAndFlush(new DefaultHttp3HeadersFrame(newHeaders())).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
      } else {
        ch.write(new DefaultHttp3HeadersFrame(newHeaders()));
        ch.writeAndFlush(new DefaultHttp3DataFrame(body.duplicate())).addListener(QuicStreamChannel.SHUTDOWN_OUTPUT);
      }
    }

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3HeadersFrame frame) {
      CharSequence st = frame.headers().status();
      ReferenceCountUtil.release(frame);
      if (st != null && (status == 0 || status >= 100 && status < 200)) {
        status = parseStatus(st);
      }
    }

    @Override
    protected void channelRead(ChannelHandlerContext ctx, Http3DataFrame frame) {
      bytes += frame.content().readableBytes();
      frame.release();
    }

    @Override
    protected void channelInputClosed(ChannelHandlerContext ctx) {
      ctx.close();
      if (done || owner != quic) {
        return;
      }
      done = true;
      inFlight.remove(this);
      record(start, status, bytes);
      fill();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      end(LoadStats.ErrorKind.RESET, null);
      super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      end(LoadStats.ErrorKind.OTHER, cause);
      ctx.close();
    }

    private void end(LoadStats.ErrorKind kind, Throwable cause) {
      if (done || owner != quic) {
        return;
      }
      done = true;
      inFlight.remove(this);
      if (clock.running()) {
        stats.error(kind);
        noteError(cause != null ? cause : new IllegalStateException("stream closed before the response ended"));
      }
      fill();
    }
  }

  private static int parseStatus(CharSequence st) {
    int code = 0;
    for (int i = 0; i < st.length(); i++) {
      char c = st.charAt(i);
      if (c < '0' || c > '9') {
        return 0;
      }
      code = code * 10 + (c - '0');
    }
    return code;
  }
}
