package dev.loupe.bench.load;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of the run, bound to one event loop for its whole life. Connects
 * (directly, or to the proxy and then CONNECT), sets up TLS with ALPN when the target is
 * https, installs the HTTP/1.1 or HTTP/2 driver, and reconnects after a close while the run
 * lasts (each failed attempt is an error; retries are 20 ms apart). Event-loop confined except
 * for the immutable fields.
 */
final class LoadConnection implements LoadClient {
  private static final long RETRY_MILLIS = 20;

  final LoadOptions options;
  final LoadClock clock;
  final LoadStats stats = new LoadStats();
  private final EventLoop loop;
  private final Bootstrap bootstrap;
  private final SslContext ssl;
  /** POST body shared by all requests (unreleasable, sliced per request), or null for GET. */
  private final ByteBuf body;

  private final HttpHeaders http1Headers;
  private final String http1Uri;
  private Channel channel;
  private Exchanges exchanges;
  private Throwable firstError;

  LoadConnection(LoadOptions options, LoadClock clock, EventLoop loop, Class<? extends Channel> channelType,
      SslContext ssl, ByteBuf body) {
    this.options = options;
    this.clock = clock;
    this.loop = loop;
    this.ssl = ssl;
    this.body = body;
    this.http1Headers = new DefaultHttpHeaders();
    http1Headers.set(HttpHeaderNames.HOST, options.authority());
    http1Headers.set(HttpHeaderNames.USER_AGENT, "loupe-loadgen");
    if (body != null) {
      http1Headers.set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
      http1Headers.set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
    }
    // Through a plain forward proxy, the request line carries the absolute URI.
    this.http1Uri = options.viaProxy() && !options.tls
        ? "http://" + options.authority() + options.path : options.path;
    this.bootstrap = new Bootstrap().group(loop).channel(channelType)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            initPipeline(ch.pipeline());
          }
        });
  }

  @Override
  public EventLoop loop() {
    return loop;
  }

  /** Starts (or restarts) the connection. On the loop. */
  @Override
  public void connect() {
    if (!clock.running()) {
      return;
    }
    InetSocketAddress to = options.viaProxy()
        ? new InetSocketAddress(options.proxyHost, options.proxyPort)
        : new InetSocketAddress(options.host, options.port);
    ChannelFuture f = bootstrap.connect(to);
    channel = f.channel();
    f.addListener((ChannelFuture done) -> {
      if (!done.isSuccess()) {
        if (clock.running()) {
          stats.error(LoadStats.ErrorKind.CONNECT);
          noteError(done.cause());
        }
        retryLater();
        return;
      }
      done.channel().closeFuture().addListener(closed -> retryLater());
    });
  }

  private void retryLater() {
    exchanges = null;
    if (clock.running()) {
      loop.schedule(this::connect, RETRY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void initPipeline(ChannelPipeline p) {
    if (options.viaProxy() && options.tls) {
      p.addLast(new ProxyConnectHandler(options.authority(), stats, this::addTls));
    } else if (options.tls) {
      addTls(p);
    } else {
      addProtocol(p);
    }
  }

  private void addTls(ChannelPipeline p) {
    p.addLast(ssl.newHandler(p.channel().alloc(), options.host, options.port));
    p.addLast(new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
      @Override
      protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        boolean isH2 = ApplicationProtocolNames.HTTP_2.equals(protocol);
        if (isH2 != options.h2) {
          stats.error(LoadStats.ErrorKind.TLS);
          noteError(new IllegalStateException("ALPN selected " + protocol));
          ctx.close();
          return;
        }
        addProtocol(ctx.pipeline());
      }

      @Override
      protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        if (clock.running()) {
          stats.error(LoadStats.ErrorKind.TLS);
          noteError(cause);
        }
        ctx.close();
      }
    });
  }

  private void addProtocol(ChannelPipeline p) {
    if (options.h2) {
      Http2Exchanges.install(p, this);
      exchanges = p.get(Http2Exchanges.class);
    } else {
      p.addLast(new HttpClientCodec(4096, 16 * 1024, 64 * 1024));
      Http1Exchanges h1 = new Http1Exchanges(this);
      exchanges = h1;
      p.addLast(h1);
    }
  }

  // --- used by the drivers

  FullHttpRequest newHttp1Request() {
    if (body == null) {
      return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, http1Uri, Unpooled.EMPTY_BUFFER,
          http1Headers, EmptyHttpHeaders.INSTANCE);
    }
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, http1Uri, body.duplicate(),
        http1Headers, EmptyHttpHeaders.INSTANCE);
  }

  Http2Headers newHttp2Headers() {
    Http2Headers h = new DefaultHttp2Headers(false)
        .method(body == null ? "GET" : "POST")
        .scheme(options.tls ? "https" : "http")
        .authority(options.authority())
        .path(options.path);
    h.set(HttpHeaderNames.USER_AGENT, "loupe-loadgen");
    if (body != null) {
      h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
      h.set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
    }
    return h;
  }

  /** A view of the shared POST body for one request, or null for GET. */
  ByteBuf newRequestBody() {
    return body == null ? null : body.duplicate();
  }

  /** One response ended: counted when it ended inside the measured window. */
  void record(long startNanos, int status, long bodyBytes) {
    long now = System.nanoTime();
    boolean ok = status >= 200 && status < 300;
    if (!ok) {
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

  void noteError(Throwable t) {
    if (firstError == null && t != null) {
      firstError = t;
    }
  }

  @Override
  public LoadStats stats() {
    return stats;
  }

  @Override
  public Throwable firstError() {
    return firstError;
  }

  /** At the end, on the loop: counts requests stuck longer than --timeout and closes. */
  @Override
  public void finish(long timeoutBefore) {
    Exchanges ex = exchanges;
    if (ex != null) {
      int stuck = ex.countStartedBefore(timeoutBefore);
      for (int i = 0; i < stuck; i++) {
        stats.error(LoadStats.ErrorKind.TIMEOUT);
      }
    }
    if (channel != null) {
      channel.close();
    }
  }
}
