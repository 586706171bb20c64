package dev.loupe.e2e;

import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A frame-level HTTP/2 client for what the JDK client cannot do (trailers, RST_STREAM, small
 * windows, watching interim responses): Netty's {@code Http2FrameCodec} and
 * {@code Http2MultiplexHandler}, over TLS (ALPN {@code h2} only) through a CONNECT tunnel to the
 * proxy, directly to a TLS origin, or in cleartext with prior knowledge (h2c).
 *
 * <p>Each {@link #open() stream} records what arrives: interim and final response heads, the body's
 * length and SHA-256 (and its first 1 MiB), trailers, and how it ended. Streams return flow-control
 * credit as they read (Netty's child channels do that when auto-read consumes a DATA frame).
 * GOAWAY frames received on the connection are recorded.
 */
final class Http2TestClient implements AutoCloseable {
  private static final long CONNECT_TIMEOUT_SECONDS = 20;
  private static final int KEEP_BODY = 1 << 20;

  private final EventLoopGroup group;
  private final Channel connection;
  private final String authority;
  private final List<Long> goAways;

  private Http2TestClient(EventLoopGroup group, Channel connection, String authority, List<Long> goAways) {
    this.group = group;
    this.connection = connection;
    this.authority = authority;
    this.goAways = goAways;
  }

  /** Through the proxy's CONNECT tunnel to {@code origin}, TLS trusting Loupe's CA, default settings. */
  static Http2TestClient viaProxy(ProxyFixture proxy, TestOrigin origin) throws Exception {
    return viaProxy(proxy, origin, Http2Settings.defaultSettings());
  }

  /** As {@link #viaProxy(ProxyFixture, TestOrigin)} with these SETTINGS (e.g. a small initial window). */
  static Http2TestClient viaProxy(ProxyFixture proxy, TestOrigin origin, Http2Settings settings) throws Exception {
    return connect(proxy.address(), "127.0.0.1", origin.port(), TestPki.shared().loupeCa().certificate(), settings);
  }

  /** Directly to a TLS origin, trusting the origin CA. */
  static Http2TestClient direct(TestOrigin origin) throws Exception {
    return connect(null, "127.0.0.1", origin.port(), TestPki.shared().originCa().certificate(),
        Http2Settings.defaultSettings());
  }

  /** Directly to a cleartext origin, HTTP/2 with prior knowledge. */
  static Http2TestClient directCleartext(TestOrigin origin) throws Exception {
    return connect(null, "127.0.0.1", origin.port(), null, Http2Settings.defaultSettings());
  }

  /**
   * Connects to {@code host:port}, through the CONNECT proxy at {@code proxy} when not null, with
   * TLS trusting {@code trust} when not null (ALPN h2 only; fails unless h2 is negotiated).
   */
  static Http2TestClient connect(InetSocketAddress proxy, String host, int port, X509Certificate trust,
      Http2Settings settings) throws Exception {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    String authority = host + ":" + port;
    List<Long> goAways = new CopyOnWriteArrayList<>();
    CompletableFuture<Channel> ready = new CompletableFuture<>();
    SslContext ssl = trust == null ? null : SslContextBuilder.forClient()
        .trustManager(trust)
        .applicationProtocolConfig(new ApplicationProtocolConfig(
            ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
            ApplicationProtocolNames.HTTP_2))
        .build();
    try {
      new Bootstrap()
          .group(group)
          .channel(NioSocketChannel.class)
          .handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              Runnable afterTunnel = () -> {
                if (ssl == null) {
                  installHttp2(ch, settings, goAways);
                  if (proxy != null) {
                    ready.complete(ch); // the tunnel is open, so the channel is active
                  }
                  return;
                }
                SslHandler tls = ssl.newHandler(ch.alloc(), host, port);
                ch.pipeline().addLast("tls", tls);
                ch.pipeline().addLast("alpn", new ChannelInboundHandlerAdapter() {
                  @Override
                  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
                    if (evt instanceof SslHandshakeCompletionEvent hs) {
                      ctx.pipeline().remove(this);
                      if (!hs.isSuccess()) {
                        ready.completeExceptionally(hs.cause());
                      } else if (!ApplicationProtocolNames.HTTP_2.equals(tls.applicationProtocol())) {
                        ready.completeExceptionally(new AssertionError(
                            "ALPN did not select h2 but " + tls.applicationProtocol()));
                      } else {
                        installHttp2(ch, settings, goAways);
                        ready.complete(ch);
                      }
                    }
                    super.userEventTriggered(ctx, evt);
                  }
                });
              };
              if (proxy != null) {
                ch.pipeline().addLast("connect", new ConnectTunnel(authority, afterTunnel, ready));
              } else {
                afterTunnel.run();
              }
            }
          })
          .connect(proxy != null ? proxy : new InetSocketAddress(host, port))
          .addListener(f -> {
            if (!f.isSuccess()) {
              ready.completeExceptionally(f.cause());
            } else if (proxy == null && ssl == null) {
              ready.complete(((io.netty.channel.ChannelFuture) f).channel()); // h2c: nothing to wait for
            }
          });
      Channel ch = ready.get(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      return new Http2TestClient(group, ch, authority, goAways);
    } catch (Exception e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
  }

  private static void installHttp2(Channel ch, Http2Settings settings, List<Long> goAways) {
    ch.pipeline().addLast("h2", Http2FrameCodecBuilder.forClient().initialSettings(settings).build());
    ch.pipeline().addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
    ch.pipeline().addLast("goaway", new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Http2GoAwayFrame g) {
          goAways.add(g.errorCode());
        }
        ReferenceCountUtil.release(msg);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
      }
    });
  }

  /** {@code :authority} of requests: the origin's {@code 127.0.0.1:PORT}. */
  String authority() {
    return authority;
  }

  Channel connection() {
    return connection;
  }

  /** GOAWAY error codes received so far (empty while the connection is in good standing). */
  List<Long> goAwayErrorCodes() {
    return List.copyOf(goAways);
  }

  /** Request headers for {@code method path} on this connection's origin. */
  Http2Headers request(String method, String path) {
    return new DefaultHttp2Headers().method(method).path(path).scheme(sslUsed() ? "https" : "http")
        .authority(authority);
  }

  private boolean sslUsed() {
    return connection.pipeline().get(SslHandler.class) != null;
  }

  /** Opens a stream (nothing is sent until the first HEADERS frame is written). */
  Stream open() throws Exception {
    Stream s = new Stream();
    new Http2StreamChannelBootstrap(connection).handler(s.recorder).open().addListener(f -> {
      if (f.isSuccess()) {
        s.channel.complete((Http2StreamChannel) f.getNow());
      } else {
        s.channel.completeExceptionally(f.cause());
      }
    });
    s.channel.get(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    return s;
  }

  /** Opens a stream and sends a body-less request: {@code method path}, END_STREAM on the HEADERS frame. */
  Stream send(String method, String path) throws Exception {
    Stream s = open();
    s.headers(request(method, path), true);
    return s;
  }

  @Override
  public void close() {
    connection.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One stream: write frames to it, read what it recorded. */
  static final class Stream {
    final CompletableFuture<Http2StreamChannel> channel = new CompletableFuture<>();
    /** The final (non-1xx) response head. */
    final CompletableFuture<Http2Headers> response = new CompletableFuture<>();
    /** The first interim (1xx) response head. */
    final CompletableFuture<Http2Headers> interim = new CompletableFuture<>();
    /** Completes at END_STREAM from the peer; exceptionally on RST_STREAM or when the stream closes first. */
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final List<Http2Headers> informational = new CopyOnWriteArrayList<>();
    final AtomicLong dataFrames = new AtomicLong();
    private final Recorder recorder = new Recorder();
    private volatile Http2Headers trailers;
    private volatile long length;
    private volatile String sha256;
    private volatile Http2Error resetByPeer;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    /** Send RST_STREAM(CANCEL) once this many body bytes arrived; negative: never. */
    private volatile long cancelAfter = -1;
    private volatile boolean cancelled;

    Http2StreamChannel channel() {
      return channel.getNow(null);
    }

    int id() {
      return channel().stream().id();
    }

    void headers(Http2Headers h, boolean endStream) {
      channel().writeAndFlush(new DefaultHttp2HeadersFrame(h, endStream));
    }

    void data(byte[] bytes, boolean endStream) {
      channel().writeAndFlush(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(bytes), endStream));
    }

    /** Sends {@code n} bytes of {@link TestData} in 16 KiB DATA frames, END_STREAM on the last unless {@code more}. */
    void body(long n, boolean more) {
      Http2StreamChannel ch = channel();
      ch.eventLoop().execute(() -> {
        long off = 0;
        do {
          int len = (int) Math.min(16 * 1024, n - off);
          byte[] b = new byte[len];
          TestData.fill(n, off, b, len);
          off += len;
          ch.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(b), !more && off >= n));
        } while (off < n);
        ch.flush();
      });
    }

    /** A trailing HEADERS frame with END_STREAM. */
    void trailers(Http2Headers h) {
      headers(h, true);
    }

    void reset(Http2Error error) {
      cancelled = true;
      channel().writeAndFlush(new DefaultHttp2ResetFrame(error));
    }

    /** Resets the stream with CANCEL as soon as {@code bytes} of response body have arrived. */
    void cancelAfter(long bytes) {
      cancelAfter = bytes;
    }

    /** Waits for END_STREAM (throws if the stream was reset or closed first). */
    Stream await(long seconds) throws Exception {
      done.get(seconds, TimeUnit.SECONDS);
      return this;
    }

    int status() {
      return Integer.parseInt(response.getNow(null).status().toString());
    }

    Http2Headers responseHeaders() {
      return response.getNow(null);
    }

    Http2Headers trailers() {
      return trailers;
    }

    long length() {
      return length;
    }

    String sha256() {
      return sha256;
    }

    /** The first 1 MiB of the body. */
    byte[] body() {
      synchronized (kept) {
        return kept.toByteArray();
      }
    }

    String text() {
      return new String(body(), StandardCharsets.UTF_8);
    }

    /** The error code of a RST_STREAM from the peer, or null. */
    Http2Error resetByPeer() {
      return resetByPeer;
    }

    boolean cancelled() {
      return cancelled;
    }

    /** Event-loop confined: written by the stream channel's loop only. */
    private final class Recorder extends SimpleChannelInboundHandler<Http2StreamFrame> {
      private final MessageDigest digest;
      private long received;

      Recorder() {
        try {
          digest = MessageDigest.getInstance("SHA-256");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      protected void channelRead0(ChannelHandlerContext ctx, Http2StreamFrame frame) {
        if (frame instanceof Http2HeadersFrame h) {
          CharSequence status = h.headers().status();
          if (!response.isDone() && status != null && status.length() == 3 && status.charAt(0) == '1') {
            informational.add(h.headers());
            interim.complete(h.headers());
          } else if (!response.isDone()) {
            response.complete(h.headers());
          } else {
            trailers = h.headers();
          }
          if (h.isEndStream()) {
            ended();
          }
        } else if (frame instanceof Http2DataFrame d) {
          dataFrames.incrementAndGet();
          ByteBuf b = d.content();
          int n = b.readableBytes();
          if (n > 0) {
            digest.update(b.nioBuffer());
            synchronized (kept) {
              if (kept.size() < KEEP_BODY) {
                byte[] copy = new byte[Math.min(n, KEEP_BODY - kept.size())];
                b.getBytes(b.readerIndex(), copy);
                kept.writeBytes(copy);
              }
            }
          }
          received += n;
          length = received;
          if (d.isEndStream()) {
            ended();
          } else if (cancelAfter >= 0 && received >= cancelAfter && !cancelled) {
            cancelled = true;
            ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL));
          }
        }
      }

      private void ended() {
        sha256 = HexFormat.of().formatHex(digest.digest());
        done.complete(null);
      }

      @Override
      public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof Http2ResetFrame r) {
          resetByPeer = Http2Error.valueOf(r.errorCode());
          done.completeExceptionally(new AssertionError("stream reset by the peer: " + resetByPeer));
        }
        super.userEventTriggered(ctx, evt);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        done.completeExceptionally(new AssertionError(cancelled ? "stream cancelled by this client"
            : "stream closed without END_STREAM"));
        response.completeExceptionally(new AssertionError("stream closed before a response"));
        super.channelInactive(ctx);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.completeExceptionally(cause);
        ctx.close();
      }
    }
  }

  /** Sends CONNECT, waits for the 2xx answer, then hands the connection over. */
  private static final class ConnectTunnel extends ChannelInboundHandlerAdapter {
    private final String authority;
    private final Runnable then;
    private final CompletableFuture<Channel> ready;
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();

    ConnectTunnel(String authority, Runnable then, CompletableFuture<Channel> ready) {
      this.authority = authority;
      this.then = then;
      this.ready = ready;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
      ctx.writeAndFlush(Unpooled.copiedBuffer("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority
          + "\r\n\r\n", StandardCharsets.US_ASCII));
      super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf b = (ByteBuf) msg;
      try {
        while (b.isReadable()) {
          head.write(b.readByte());
          byte[] h = head.toByteArray();
          int n = h.length;
          if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
            String text = new String(h, StandardCharsets.ISO_8859_1);
            if (!text.startsWith("HTTP/1.1 200") && !text.startsWith("HTTP/1.0 200")) {
              ready.completeExceptionally(new AssertionError("CONNECT refused: " + text));
              ctx.close();
              return;
            }
            if (b.isReadable()) {
              ready.completeExceptionally(new AssertionError("bytes after the CONNECT answer"));
              ctx.close();
              return;
            }
            ctx.pipeline().remove(this);
            then.run();
            return;
          }
        }
      } finally {
        b.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      ready.completeExceptionally(new AssertionError("proxy closed the connection during CONNECT"));
      super.channelInactive(ctx);
    }
  }
}
