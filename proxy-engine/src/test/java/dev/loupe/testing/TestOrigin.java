package dev.loupe.testing;

import dev.loupe.ca.CertificateAuthority;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process HTTP/1.1 origin (cleartext or TLS with certificates from a test CA), streaming in
 * both directions. Routes:
 * <ul>
 *   <li>{@code GET|HEAD /bytes/N[?chunked=1]} — N deterministic bytes ({@link TestData}), streamed with backpressure;
 *   <li>{@code POST|PUT /sha256} — answers "SHA256HEX LENGTH" of the body; honours {@code Expect: 100-continue};
 *   <li>{@code POST|PUT /echo} — streams the body back, chunked;
 *   <li>{@code /status/CODE}, {@code /headers} (request headers as text), {@code /trailers} (chunked with a trailer);
 *   <li>{@code /reset} — promises 100000 bytes, sends 1000, closes; {@code /close} — closes without answering;
 *   <li>{@code /slow/MS} — answers after MS milliseconds; {@code /ws} — WebSocket echo;
 *   <li>{@code /drop-next} — answers (keep-alive), then closes the connection, without a word, when
 *       the next request arrives on it (a keep-alive connection the origin gave up on).
 * </ul>
 * Records every request head and counts connections.
 */
public final class TestOrigin implements AutoCloseable {
  /** A request as the origin saw it. */
  public record Seen(String method, String uri, HttpHeaders headers) {}

  private final EventLoopGroup group;
  private final Channel server;
  private final boolean tls;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();

  private TestOrigin(CertificateAuthority ca) throws InterruptedException {
    this.tls = ca != null;
    this.group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    TestPki pki = TestPki.shared();
    this.server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            connections.incrementAndGet();
            if (ca != null) {
              ch.pipeline().addLast(new SniHandler(
                  (String host) -> pki.originContext(ca, host == null ? "127.0.0.1" : host)));
            }
            ch.pipeline().addLast("codec", new HttpServerCodec());
            ch.pipeline().addLast(new ChunkedWriteHandler());
            ch.pipeline().addLast("handler", new Handler());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0))
        .sync()
        .channel();
  }

  public static TestOrigin http() throws InterruptedException {
    return new TestOrigin(null);
  }

  /** TLS with a certificate from the origin CA (which the proxy under test trusts). */
  public static TestOrigin https() throws InterruptedException {
    return new TestOrigin(TestPki.shared().originCa());
  }

  /** TLS with a certificate from a CA nobody trusts. */
  public static TestOrigin untrustedHttps() throws InterruptedException {
    return new TestOrigin(TestPki.shared().untrustedCa());
  }

  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** {@code http(s)://HOST:PORT} with the given host name (127.0.0.1 or localhost). */
  public String url(String host) {
    return (tls ? "https" : "http") + "://" + host + ":" + port();
  }

  public String url() {
    return url("127.0.0.1");
  }

  public List<Seen> seen() {
    return seen;
  }

  public int connections() {
    return connections.get();
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Handler extends SimpleChannelInboundHandler<HttpObject> {
    private String route;
    private boolean dropNext;
    private HttpRequest request;
    private MessageDigest digest;
    private long length;

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws Exception {
      if (msg instanceof HttpRequest r) {
        request = r;
        seen.add(new Seen(r.method().name(), r.uri(), r.headers().copy()));
        route = new QueryStringDecoder(r.uri()).path();
        length = 0;
        digest = MessageDigest.getInstance("SHA-256");
        onHead(ctx, r);
      }
      if (msg instanceof HttpContent c) {
        onContent(ctx, c);
        if (c instanceof LastHttpContent last) {
          onEnd(ctx, last);
        }
      }
    }

    private void onHead(ChannelHandlerContext ctx, HttpRequest r) {
      if (dropNext) {
        route = "/close";
      }
      if (route.equals("/drop-next")) {
        dropNext = true;
        route = "/status/200";
      }
      if (route.equals("/close")) {
        ctx.close();
        return;
      }
      if (route.equals("/ws")) {
        DefaultFullHttpRequest full = new DefaultFullHttpRequest(r.protocolVersion(), r.method(), r.uri(),
            Unpooled.EMPTY_BUFFER, r.headers(), EmptyHttpHeaders.INSTANCE);
        WebSocketServerHandshaker hs = new WebSocketServerHandshakerFactory(
            "ws://" + r.headers().get(HttpHeaderNames.HOST) + "/ws", null, true, 64 << 20).newHandshaker(full);
        ctx.pipeline().remove(ChunkedWriteHandler.class);
        ctx.pipeline().replace("handler", "ws", new WsEcho());
        hs.handshake(ctx.channel(), full);
        return;
      }
      if ((route.equals("/sha256") || route.equals("/continue")) && HttpUtil.is100ContinueExpected(r)) {
        ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
      }
      if (route.equals("/echo")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        ctx.writeAndFlush(res);
      }
    }

    private void onContent(ChannelHandlerContext ctx, HttpContent c) {
      ByteBuf b = c.content();
      length += b.readableBytes();
      if (b.isReadable()) {
        digest.update(b.nioBuffer());
        if ("/echo".equals(route)) {
          ctx.writeAndFlush(new DefaultHttpContent(b.retainedDuplicate()));
        }
      }
    }

    private void onEnd(ChannelHandlerContext ctx, LastHttpContent last) {
      if (route == null || route.equals("/close") || route.equals("/ws")) {
        return;
      }
      HttpRequest r = request;
      boolean keepAlive = HttpUtil.isKeepAlive(r);
      if (route.equals("/echo")) {
        finish(ctx, ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive);
        return;
      }
      if (route.equals("/sha256") || route.equals("/continue")) {
        text(ctx, 200, HexFormat.of().formatHex(digest.digest()) + " " + length, keepAlive);
        return;
      }
      if (route.startsWith("/bytes/")) {
        long n = Long.parseLong(route.substring("/bytes/".length()));
        boolean chunked = new QueryStringDecoder(r.uri()).parameters().containsKey("chunked");
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        if (chunked) {
          res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        } else {
          res.headers().set(HttpHeaderNames.CONTENT_LENGTH, n);
        }
        HttpUtil.setKeepAlive(res, keepAlive);
        ctx.write(res);
        if (r.method().equals(HttpMethod.HEAD)) {
          finish(ctx, ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive);
          return;
        }
        finish(ctx, ctx.writeAndFlush(new HttpChunkedInput(new DataInput(n))), keepAlive);
        return;
      }
      if (route.startsWith("/status/")) {
        int code = Integer.parseInt(route.substring("/status/".length()));
        if (code == 204 || code == 304) {
          FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code));
          HttpUtil.setKeepAlive(res, keepAlive);
          finish(ctx, ctx.writeAndFlush(res), keepAlive);
        } else {
          text(ctx, code, "status " + code, keepAlive);
        }
        return;
      }
      if (route.equals("/headers")) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : r.headers()) {
          sb.append(e.getKey().toLowerCase()).append(": ").append(e.getValue()).append('\n');
        }
        text(ctx, 200, sb.toString(), keepAlive);
        return;
      }
      if (route.equals("/trailers")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        res.headers().set(HttpHeaderNames.TRAILER, "x-checksum");
        ctx.write(res);
        ctx.write(new DefaultHttpContent(Unpooled.copiedBuffer("hello trailers", StandardCharsets.UTF_8)));
        LastHttpContent end = new DefaultLastHttpContent();
        end.trailingHeaders().set("x-checksum", "abc123");
        finish(ctx, ctx.writeAndFlush(end), keepAlive);
        return;
      }
      if (route.equals("/reset")) {
        HttpResponse res = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        res.headers().set(HttpHeaderNames.CONTENT_LENGTH, 100_000);
        ctx.write(res);
        ctx.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(new byte[1000])))
            .addListener(ChannelFutureListener.CLOSE);
        return;
      }
      if (route.startsWith("/slow/")) {
        long ms = Long.parseLong(route.substring("/slow/".length()));
        ctx.executor().schedule(() -> text(ctx, 200, "slow " + ms, keepAlive), ms, TimeUnit.MILLISECONDS);
        return;
      }
      text(ctx, 404, "no route " + route, keepAlive);
    }

    private void text(ChannelHandlerContext ctx, int code, String body, boolean keepAlive) {
      FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(code),
          Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), new DefaultHttpHeaders(), new DefaultHttpHeaders());
      res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
      res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
      HttpUtil.setKeepAlive(res, keepAlive);
      finish(ctx, ctx.writeAndFlush(res), keepAlive);
    }

    private void finish(ChannelHandlerContext ctx, io.netty.channel.ChannelFuture f, boolean keepAlive) {
      if (!keepAlive) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    }
  }

  /** Echoes text and binary frames; answers ping and close. */
  private static final class WsEcho extends SimpleChannelInboundHandler<WebSocketFrame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
      if (frame instanceof CloseWebSocketFrame close) {
        ctx.writeAndFlush(new CloseWebSocketFrame(close.statusCode(), close.reasonText()))
            .addListener(ChannelFutureListener.CLOSE);
        return;
      }
      if (frame instanceof PingWebSocketFrame) {
        ctx.writeAndFlush(new PongWebSocketFrame(frame.content().retain()));
        return;
      }
      if (frame instanceof PongWebSocketFrame) {
        return;
      }
      ctx.writeAndFlush(frame.retain());
    }
  }

  /** N deterministic bytes in 64 KiB pieces, pulled by ChunkedWriteHandler as the socket drains. */
  private static final class DataInput implements ChunkedInput<ByteBuf> {
    private final long n;
    private long offset;

    DataInput(long n) {
      this.n = n;
    }

    @Override
    public boolean isEndOfInput() {
      return offset >= n;
    }

    @Override
    public void close() {}

    @Deprecated
    @Override
    public ByteBuf readChunk(ChannelHandlerContext ctx) {
      return readChunk(ctx.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator alloc) {
      if (offset >= n) {
        return null;
      }
      int len = (int) Math.min(64 * 1024, n - offset);
      byte[] b = new byte[len];
      TestData.fill(n, offset, b, len);
      offset += len;
      return Unpooled.wrappedBuffer(b);
    }

    @Override
    public long length() {
      return n;
    }

    @Override
    public long progress() {
      return offset;
    }
  }
}
