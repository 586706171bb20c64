package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.AccessLog;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.ProxyAuth;
import dev.loupe.engine.internal.protocol.http1.RequestTargets;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * Stands between the HTTP codec and the client leg of the explicit proxy and answers what must
 * never reach an origin:
 * <ul>
 *   <li><b>proxy authentication</b>: when {@link ProxyAuthenticator#required required}, a request
 *       (CONNECT included) without the right {@code Proxy-Authorization} gets {@code 407} with
 *       {@code Proxy-Authenticate: Basic}, is logged in the {@link AccessLog}, and the connection is
 *       closed; the leg never sees it. Accepted credentials are removed from the request, so flows
 *       never record them;
 *   <li><b>the setup page</b>: requests for {@code http://loupe.setup/...}, and origin-form
 *       {@code GET /} (and the download paths) sent to the listener itself, are answered by
 *       {@link SetupPage}; a CONNECT to {@code loupe.setup} is answered {@code 200} and the tunnel
 *       handed to {@link SetupHost}.
 * </ul>
 * Everything else passes through untouched.
 *
 * <h3>Order of responses</h3>
 * A client may pipeline requests, so an answer of ours must not overtake the response the leg is
 * still writing to an earlier request. The gate sees the leg's writes (it is an outbound handler
 * too): {@link #order} holds a marker per request handed to the leg and, behind them, answers of
 * ours waiting their turn; each final response the leg finishes releases what waits behind it.
 *
 * <h3>Threads</h3>
 * One instance per connection, confined to its event loop.
 */
final class ProxyGate extends ChannelDuplexHandler {
  static final String NAME = "proxy-gate";
  /** A request handed to the leg whose response has not ended yet (in {@link #order}). */
  private static final Object LEG = new Object();

  private final EngineContext engine;
  private final AccessLog log;
  private final boolean launchedClient;
  /** {@link #LEG} markers and our own answers ({@link Answer}), in the order the client asked. */
  private final ArrayDeque<Object> order = new ArrayDeque<>();
  /** The request we are answering ourselves: its body is read and dropped, then it is answered. */
  private Answer current;
  /** After a refusal: the connection is closing; anything else the client sends is dropped. */
  private boolean refused;
  private Boolean authRequired;

  /** An answer of ours and whether the connection closes after it. */
  private record Answer(FullHttpResponse response, boolean close) {}

  ProxyGate(EngineContext engine, AccessLog log, boolean launchedClient) {
    this.engine = engine;
    this.log = log;
    this.launchedClient = launchedClient;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refused) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (current != null) {
      boolean last = msg instanceof LastHttpContent;
      ReferenceCountUtil.release(msg);
      if (last) {
        Answer a = current;
        current = null;
        answer(ctx, a);
      }
      return;
    }
    if (msg instanceof HttpRequest req && !req.decoderResult().isFailure()) {
      Answer a = decide(ctx, req);
      if (a == null) {
        order.add(LEG);
        ctx.fireChannelRead(msg);
        return;
      }
      if (a.response() == null) {
        return; // the tunnel went to SetupHost, which took the message
      }
      boolean last = msg instanceof LastHttpContent;
      ReferenceCountUtil.release(msg);
      if (last) {
        answer(ctx, a);
      } else if (HttpUtil.is100ContinueExpected(req)) {
        // The client waits for a 100 before its body: answer now and close, so a body it sends
        // anyway is never read as a request.
        a.response().headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        answer(ctx, new Answer(a.response(), true));
      } else {
        current = a; // read and drop its body, then answer
      }
      return;
    }
    if (msg instanceof HttpRequest) {
      order.add(LEG); // a malformed request: the leg answers it (400)
    }
    ctx.fireChannelRead(msg);
  }

  /** What to do with {@code req}: null to pass it on, else our answer. */
  private Answer decide(ChannelHandlerContext ctx, HttpRequest req) {
    String uri = req.uri();
    if (req.method().equals(HttpMethod.CONNECT)) {
      String host = connectHost(uri);
      if (SetupPage.isSetupHost(host) && order.isEmpty()) {
        SetupHost.takeOver(ctx, engine, req);
        return new Answer(null, false);
      }
      return authorize(ctx, req);
    }
    if (uri.startsWith("/")) {
      // Not a proxy request: someone opened Loupe's address in a browser. The setup page is public
      // (it offers only the CA certificate); anything else is the leg's to refuse.
      String path = SetupPage.path(uri);
      if (SetupPage.serves(path) && (req.method().equals(HttpMethod.GET) || req.method().equals(HttpMethod.HEAD))) {
        return setupAnswer(ctx, req, path, proxyAddress(ctx, req));
      }
      return null;
    }
    String host;
    String path;
    try {
      RequestTargets.Absolute a = RequestTargets.parseAbsolute(uri);
      host = a.host();
      path = SetupPage.path(a.target());
    } catch (IllegalArgumentException e) {
      return authorize(ctx, req); // the leg explains what is wrong with it, once the client may ask
    }
    if (SetupPage.isSetupHost(host)) {
      return setupAnswer(ctx, req, path, null);
    }
    return authorize(ctx, req);
  }

  private Answer setupAnswer(ChannelHandlerContext ctx, HttpRequest req, String path, String proxyAddress) {
    FullHttpResponse r = SetupPage.answer(req.method(), path, engine.config().setup(), proxyAddress,
        req.protocolVersion());
    boolean close = !HttpUtil.isKeepAlive(req);
    if (close) {
      r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    return new Answer(r, close);
  }

  /** Null when the client may use the proxy (credentials removed from the request), else a 407. */
  private Answer authorize(ChannelHandlerContext ctx, HttpRequest req) {
    if (authRequired == null) {
      authRequired = ProxyAuthenticator.required(engine, ctx.channel(), launchedClient);
    }
    ProxyAuth auth = engine.config().proxyAuth();
    String header = req.headers().get(HttpHeaderNames.PROXY_AUTHORIZATION);
    if (!authRequired) {
      return null;
    }
    ProxyAuthenticator.Verdict v = ProxyAuthenticator.basic(auth, header);
    if (v.ok()) {
      req.headers().remove(HttpHeaderNames.PROXY_AUTHORIZATION);
      return null;
    }
    log.refused(ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a : null, "HTTP", v.reason(),
        v.username());
    return new Answer(proxyAuthenticationRequired(req.protocolVersion(), v.reason()), true);
  }

  static FullHttpResponse proxyAuthenticationRequired(HttpVersion version, String reason) {
    byte[] body = ("407 Proxy Authentication Required\n\nLoupe: this proxy needs a user name and password ("
        + reason + ").\n").getBytes(StandardCharsets.UTF_8);
    FullHttpResponse r = new DefaultFullHttpResponse(version, HttpResponseStatus.PROXY_AUTHENTICATION_REQUIRED,
        Unpooled.wrappedBuffer(body));
    r.headers().set(HttpHeaderNames.PROXY_AUTHENTICATE, "Basic realm=\"" + ProxyAuth.REALM + "\", charset=\"UTF-8\"");
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    r.headers().set("X-Loupe-Error", "proxy-auth");
    return r;
  }

  /** Writes {@code a} now, or behind the leg's responses still being written. */
  private void answer(ChannelHandlerContext ctx, Answer a) {
    if (a.close()) {
      refused = true;
    }
    if (order.isEmpty()) {
      write(ctx, a);
    } else {
      order.add(a);
    }
  }

  private static void write(ChannelHandlerContext ctx, Answer a) {
    if (a.close()) {
      ctx.writeAndFlush(a.response()).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(a.response());
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    boolean end = msg instanceof LastHttpContent && !(msg instanceof HttpResponse r
        && r.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL);
    ctx.write(msg, promise);
    if (end && order.peek() == LEG) {
      order.poll();
      while (order.peek() instanceof Answer a) {
        order.poll();
        write(ctx, a);
      }
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    for (Object o : order) {
      if (o instanceof Answer a) {
        a.response().release();
      }
    }
    order.clear();
    if (current != null) {
      current.response().release();
      current = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    handlerRemoved(ctx);
    ctx.fireChannelInactive();
  }

  /** {@code host} of a CONNECT target {@code host:port} / {@code [v6]:port}, or null. */
  static String connectHost(String authority) {
    int colon = authority.lastIndexOf(':');
    String host = colon > 0 ? authority.substring(0, colon) : authority;
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return host;
  }

  /** How the client reached the listener, for the setup page: its Host header, else the local address. */
  private static String proxyAddress(ChannelHandlerContext ctx, HttpRequest req) {
    String host = req.headers().get(HttpHeaderNames.HOST);
    if (host != null && !host.isBlank()) {
      return host.trim();
    }
    return ctx.channel().localAddress() instanceof InetSocketAddress a ? ListenAddress.format(a) : null;
  }

}
