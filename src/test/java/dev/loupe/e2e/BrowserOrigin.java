package dev.loupe.e2e;

import dev.loupe.testing.TestPki;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

/**
 * An HTTPS origin for real browsers (certificate from the test origin CA, which Loupe trusts; the
 * browsers trust only Loupe): {@code /page?t=TOKEN} is a page whose script opens a WebSocket to
 * {@code /ws}, sends {@code echo-TOKEN}, and reports what came back to {@code /result?t=TOKEN&ws=...}.
 * A browser that cannot trust Loupe's certificate never loads the page, so no result arrives.
 */
final class BrowserOrigin implements AutoCloseable {
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel server;
  private final Map<String, String> results = new ConcurrentHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  BrowserOrigin() throws InterruptedException {
    server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline().addLast(TestPki.shared().originContext(TestPki.shared().originCa(), "127.0.0.1")
                    .newHandler(ch.alloc()))
                .addLast(new HttpServerCodec())
                .addLast(new HttpObjectAggregator(1 << 16))
                .addLast(new WebSocketServerProtocolHandler("/ws"))
                .addLast(new Routes());
          }
        })
        .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
  }

  int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  String pageUrl(String token) {
    return "https://127.0.0.1:" + port() + "/page?t=" + token;
  }

  /** Request paths seen, in order. */
  List<String> requests() {
    return requests;
  }

  /** What the page reported for {@code token} (the WebSocket's echo), waiting up to {@code timeout}; null if nothing came. */
  String awaitResult(String token, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String r = results.get(token);
      if (r != null) {
        return r;
      }
      LockSupport.parkNanos(50_000_000);
    }
    return null;
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
  }

  private final class Routes extends SimpleChannelInboundHandler<Object> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof TextWebSocketFrame text) {
        ctx.writeAndFlush(new TextWebSocketFrame(text.text()));
        return;
      }
      if (!(msg instanceof FullHttpRequest req)) {
        return;
      }
      requests.add(req.uri());
      QueryStringDecoder q = new QueryStringDecoder(req.uri());
      switch (q.path()) {
        case "/page" -> respond(ctx, HttpResponseStatus.OK, "text/html; charset=utf-8", page());
        case "/result" -> {
          results.put(first(q, "t"), first(q, "ws"));
          respond(ctx, HttpResponseStatus.OK, "text/plain", "thanks");
        }
        default -> respond(ctx, HttpResponseStatus.NOT_FOUND, "text/plain", "no");
      }
    }

    private String first(QueryStringDecoder q, String name) {
      List<String> v = q.parameters().get(name);
      return v == null || v.isEmpty() ? "" : v.get(0);
    }

    private String page() {
      return "<!doctype html><html><head><title>waiting</title></head><body><p id=s>waiting</p><script>\n"
          + "const t = new URLSearchParams(location.search).get('t');\n"
          + "const report = v => fetch('/result?t=' + t + '&ws=' + encodeURIComponent(v))"
          + ".then(() => { document.title = 'done'; document.getElementById('s').textContent = 'done ' + v; });\n"
          + "const ws = new WebSocket('wss://' + location.host + '/ws');\n"
          + "ws.onopen = () => ws.send('echo-' + t);\n"
          + "ws.onmessage = e => report(e.data);\n"
          + "ws.onerror = () => report('error');\n"
          + "</script></body></html>\n";
    }

    private void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String type, String body) {
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(b));
      r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
      r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, b.length);
      r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
      ctx.writeAndFlush(r);
    }
  }
}
