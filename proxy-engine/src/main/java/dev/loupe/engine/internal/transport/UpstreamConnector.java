package dev.loupe.engine.internal.transport;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.TlsInfo;
import io.netty.bootstrap.Bootstrap;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Opens and pools server-leg connections. A connection lives on the event loop of the client leg
 * that asked for it (no thread hops while relaying), so each event loop has its own pool, touched
 * only from that loop. Idle pooled connections keep a read pending so a close by the origin is
 * noticed, and are closed after the idle timeout.
 *
 * <p>Setup steps are timed on the flow: DNS (on a blocking executor), TCP connect, TLS handshake.
 * Failures become {@link FlowError}s naming the cause and the host.
 */
public final class UpstreamConnector {
  /** The handler that currently owns a pooled channel's events; swapped per exchange. */
  public static final String LEG = "server-leg";
  public static final String CODEC = "http-client-codec";
  public static final String TLS = "tls";
  /** When a pooled connection was parked (System.nanoTime()). */
  private static final AttributeKey<Long> IDLE_SINCE = AttributeKey.valueOf("loupe.idle-since");

  private final SslContext tls;
  private final SslContext tlsOfferingH2;
  private final SslContext tlsH2Only;
  private final java.util.function.Supplier<io.netty.handler.codec.http2.Http2FrameCodec> h2Codec;
  private final Http2Upstreams h2 = new Http2Upstreams();
  /** Origins that answered ALPN with http/1.1 (or nothing): not offered h2 again. Bounded. */
  private final Map<String, Boolean> h1Only = new ConcurrentHashMap<>();
  private final Executor dnsExecutor;
  private final Duration connectTimeout;
  private final Duration idleTimeout;
  private final int maxIdlePerOrigin;
  private final int maxInitialLine;
  private final int maxHeaderSize;
  private final int maxChunkSize;
  private final boolean verified;
  private final Map<EventLoop, Map<String, ArrayDeque<UpstreamConnection>>> pools = new ConcurrentHashMap<>();
  /** Event loops whose idle sweep is scheduled. */
  private final java.util.Set<EventLoop> sweeping = ConcurrentHashMap.newKeySet();

  /** Every origin connection tunnels through this HTTP proxy (CONNECT), or null. */
  private final dev.loupe.engine.api.EngineConfig.UpstreamProxy upstreamProxy;

  public UpstreamConnector(UpstreamTlsContexts tls, java.util.function.Supplier<io.netty.handler.codec.http2.Http2FrameCodec> h2Codec,
      boolean verified, Executor dnsExecutor, Duration connectTimeout,
      Duration idleTimeout, int maxIdlePerOrigin, int maxInitialLine, int maxHeaderSize, int maxChunkSize,
      dev.loupe.engine.api.EngineConfig.UpstreamProxy upstreamProxy) {
    this.upstreamProxy = upstreamProxy;
    this.tls = tls.h1();
    this.tlsOfferingH2 = tls.h2OrH1();
    this.tlsH2Only = tls.h2Only();
    this.h2Codec = h2Codec;
    this.verified = verified;
    this.dnsExecutor = dnsExecutor;
    this.connectTimeout = connectTimeout;
    this.idleTimeout = idleTimeout;
    this.maxIdlePerOrigin = maxIdlePerOrigin;
    this.maxInitialLine = maxInitialLine;
    this.maxHeaderSize = maxHeaderSize;
    this.maxChunkSize = maxChunkSize;
  }

  private final PredialedConnections predialed = new PredialedConnections();

  /**
   * Parks a raw connection dialled for an intercepted CONNECT (eager strategy): the next dial to
   * {@code host:port} on its event loop uses it. Runs on the connection's loop.
   */
  public void parkPredialed(UpstreamConnection raw, String host, int port) {
    predialed.park(raw.channel(), host, port);
  }

  /** Connections dialled for a CONNECT and not yet used. */
  public int predialedCount() {
    return predialed.size();
  }

  /**
   * Whether {@code loop} already holds a usable connection to {@code host:port} (HTTP/1.1 idle or
   * HTTP/2), so an eager CONNECT need not dial to learn that the origin is reachable.
   */
  public boolean hasPooled(EventLoop loop, String host, int port) {
    for (String scheme : new String[] {"https", "http"}) {
      String k = key(scheme, host, port);
      ArrayDeque<UpstreamConnection> idle = pool(loop).get(k);
      if (idle != null && !idle.isEmpty() || h2.hasConnection(loop, k)) {
        return true;
      }
    }
    return false;
  }

  public static String key(String scheme, String host, int port) {
    return scheme + "://" + host + ":" + port;
  }

  /** Outcome of {@link #acquire}: a connection, or the error that prevented it. */
  public record Result(UpstreamConnection connection, FlowError error) {}

  /** The TLS client contexts by ALPN offer. */
  public record UpstreamTlsContexts(SslContext h1, SslContext h2OrH1, SslContext h2Only) {}

  /**
   * What the server leg may speak: HTTP/1.1 only, HTTP/2 only, HTTP/2 when the origin agrees, or
   * HTTP/3 (QUIC) only.
   */
  public enum Want { H1, H2, H2_OR_H1, H3 }

  /** The HTTP/3 pool, when the engine has one (see {@link #http3(dev.loupe.engine.internal.http3.Http3Upstreams)}). */
  private volatile dev.loupe.engine.internal.http3.Http3Upstreams h3;

  /** Enables {@link Want#H3}. Call once, before the first acquire. */
  public void http3(dev.loupe.engine.internal.http3.Http3Upstreams pool) {
    this.h3 = pool;
  }

  /** Origins' advertised HTTP/3 alternatives and broken marks (discovery on). */
  private final dev.loupe.engine.internal.http3.AltSvcCache altSvc = new dev.loupe.engine.internal.http3.AltSvcCache();
  /** Discovery: the QUIC handshake budget before falling back to TCP; null when discovery is off. */
  private volatile Duration h3Budget;
  private java.util.function.Supplier<dev.loupe.engine.internal.http3.Http3Upstreams> h3Factory;
  /** Why the HTTP/3 pool could not be made (no native QUIC for this platform...), or null. */
  private volatile String h3Unavailable;

  /**
   * Enables Alt-Svc discovery ({@code --upstream-protocol auto}): {@link #advertised} remembers
   * origins' {@code h3} alternatives and {@link #acquire(EventLoop, String, String, int, Flow, Want, boolean)}
   * tries HTTP/3 for them, falling back to TCP when QUIC is not up within {@code handshakeBudget}.
   * The pool is made on first use. Call once, before the first acquire.
   */
  public void http3Discovery(java.util.function.Supplier<dev.loupe.engine.internal.http3.Http3Upstreams> factory,
      Duration handshakeBudget) {
    this.h3Factory = factory;
    this.h3Budget = handshakeBudget;
  }

  private synchronized dev.loupe.engine.internal.http3.Http3Upstreams discoveryPool() {
    if (h3 == null && h3Unavailable == null) {
      try {
        h3 = h3Factory.get();
      } catch (RuntimeException | LinkageError e) {
        h3Unavailable = e.getMessage() != null ? e.getMessage() : e.toString();
      }
    }
    return h3;
  }

  /**
   * The HTTP/3 pool for a request that must go over HTTP/3 whatever the engine's mode (a replay
   * the user asked to send over HTTP/3): the forced-h3 pool, else the discovery pool (made now),
   * else one made by {@code fallback} and kept (so {@link #closeAll()} closes it). Null when QUIC
   * cannot be used on this platform; {@link #http3Unavailable()} says why.
   */
  public synchronized dev.loupe.engine.internal.http3.Http3Upstreams http3Pool(
      java.util.function.Supplier<dev.loupe.engine.internal.http3.Http3Upstreams> fallback) {
    if (h3 == null && h3Unavailable == null) {
      java.util.function.Supplier<dev.loupe.engine.internal.http3.Http3Upstreams> make =
          h3Factory != null ? h3Factory : fallback;
      try {
        h3 = make.get();
      } catch (RuntimeException | LinkageError e) {
        h3Unavailable = e.getMessage() != null ? e.getMessage() : e.toString();
      }
    }
    return h3;
  }

  /** Why no HTTP/3 pool could be made (no native QUIC for this platform...), or null. */
  public String http3Unavailable() {
    return h3Unavailable;
  }

  /**
   * A final response from the origin {@code key} ({@link #key}) carried these {@code Alt-Svc}
   * values (and this {@code Age}, or null): remembers or forgets its HTTP/3 alternative. No-op
   * unless discovery is on and the origin is https.
   */
  public void advertised(String key, List<String> altSvcValues, String age) {
    if (h3Budget == null || altSvcValues.isEmpty() || !key.startsWith("https://")) {
      return;
    }
    long ageSeconds = 0;
    if (age != null) {
      try {
        ageSeconds = Long.parseLong(age.strip());
      } catch (NumberFormatException ignored) {
        // RFC 9111 §5.1: an invalid Age is ignored
      }
    }
    altSvc.advertised(key, dev.loupe.engine.internal.http3.AltSvc.parse(altSvcValues), ageSeconds, System.nanoTime());
  }

  /**
   * {@link #acquire(EventLoop, String, String, int, Flow, Want)}, first over HTTP/3 when
   * {@code discover}, discovery is on, and the https origin advertised {@code h3} (not marked
   * broken): its QUIC connection must be up within the handshake budget, else this request goes
   * to TCP ({@code want}) and the origin's HTTP/3 is marked broken for a while. The decision is made
   * before any request byte is sent. Records on the flow why HTTP/3 was or was not used
   * ({@link Flow#http3Status()}).
   */
  public Future<Result> acquire(EventLoop loop, String scheme, String host, int port, Flow flow, Want want,
      boolean discover) {
    Duration budget = h3Budget;
    if (!discover || budget == null || !scheme.equals("https") || want == Want.H3) {
      return acquire(loop, scheme, host, port, flow, want);
    }
    String key = key(scheme, host, port);
    var choice = altSvc.choose(key, System.nanoTime());
    if (choice.endpoint() == null) {
      flow.http3Status(choice.reason());
      return acquire(loop, scheme, host, port, flow, want);
    }
    dev.loupe.engine.internal.http3.Http3Upstreams pool = discoveryPool();
    if (pool == null) {
      flow.http3Status("QUIC unavailable: " + h3Unavailable);
      return acquire(loop, scheme, host, port, flow, want);
    }
    String altHost = choice.endpoint().host() == null ? host : choice.endpoint().host();
    Promise<Result> promise = loop.newPromise();
    // A handshake that misses the budget goes on; if it completes after all, the origin's HTTP/3
    // works: the broken mark goes and the next request uses that connection.
    pool.acquire(loop, host, port, altHost, choice.endpoint().port(), flow, budget,
        () -> altSvc.recovered(key)).addListener(f -> {
      Result r = (Result) f.getNow();
      if (r.connection() != null) {
        flow.http3Status("Alt-Svc h3=\"" + choice.endpoint() + "\"");
        promise.trySuccess(r);
        return;
      }
      String cause = r.error().message();
      if (r.error().kind() != FlowError.Kind.SERVER_RESET) {
        altSvc.broken(key, "QUIC failed: " + cause, System.nanoTime());
      }
      flow.http3Status("QUIC failed: " + cause + "; fell back to TCP");
      acquire(loop, scheme, host, port, flow, want).addListener(t -> promise.trySuccess((Result) t.getNow()));
    });
    return promise;
  }

  /** Origins the Alt-Svc cache remembers, for tests. */
  public int altSvcOrigins() {
    return altSvc.size();
  }

  /** {@link #acquire(EventLoop, String, String, int, Flow, Want)} for HTTP/1.1. */
  public Future<Result> acquire(EventLoop loop, String scheme, String host, int port, Flow flow) {
    return acquire(loop, scheme, host, port, flow, Want.H1);
  }

  /**
   * A connection to {@code scheme://host:port} on {@code loop}, from the pool when one is idle.
   * Completes on {@code loop}.
   */
  public Future<Result> acquire(EventLoop loop, String scheme, String host, int port, Flow flow, Want want) {
    Promise<Result> promise = loop.newPromise();
    String key = key(scheme, host, port);
    boolean tcp = scheme.equals("tcp");
    if (tcp || (want == Want.H2_OR_H1 && (!scheme.equals("https") || h1Only.containsKey(key)))
        || (want == Want.H3 && !scheme.equals("https"))) {
      // h2 only by ALPN (or forced h2c); an origin that declined keeps HTTP/1.1; HTTP/3 has no
      // cleartext form.
      want = Want.H1;
    }
    if (want == Want.H3) {
      if (h3 == null) {
        return promise.setSuccess(new Result(null, new FlowError(FlowError.Kind.SERVER_PROTOCOL,
            "HTTP/3 to origins is not available")));
      }
      return h3.acquire(loop, host, port, flow);
    }
    if (want != Want.H1) {
      Http2Upstreams.Origin origin = h2.origin(loop, key);
      if (origin.onSlotFreed == null) {
        origin.onSlotFreed = () -> dispatchH2(loop, key, origin);
      }
      origin.waiters.add(new Http2Upstreams.Waiter(scheme, host, port, flow, want, promise));
      dispatchH2(loop, key, origin);
      return promise;
    }
    ArrayDeque<UpstreamConnection> idle = pool(loop).get(key);
    while (idle != null && !idle.isEmpty()) {
      UpstreamConnection c = idle.pollLast();
      if (c.channel().isActive()) {
        ConnectionInfo i = c.info();
        UpstreamConnection reused = new UpstreamConnection(c.channel(), key,
            new ConnectionInfo(i.id(), i.remoteAddress(), i.localAddress(), i.tls(), true));
        return promise.setSuccess(new Result(reused, null));
      }
    }
    dial(loop, key, host, port, scheme.equals("https"), Want.H1, flow, null).addListener(f -> {
      Dialed d = (Dialed) f.getNow();
      promise.trySuccess(new Result(d.h1(), d.error()));
    });
    return promise;
  }

  /** What a dial produced: an HTTP/1.1 connection, a pooled HTTP/2 connection, or an error. */
  private record Dialed(UpstreamConnection h1, Http2Upstreams.Parent h2, FlowError error) {}

  /**
   * Serves the acquires waiting on {@code origin} in order: a free stream slot first; else a new
   * connection when {@link Http2Upstreams.Origin#shouldDial()}; else they keep waiting for a
   * connect in progress or a stream to end. Waiters for "h2 or h1" go to the HTTP/1.1 pool once
   * the origin declined h2.
   */
  private void dispatchH2(EventLoop loop, String key, Http2Upstreams.Origin origin) {
    while (!origin.waiters.isEmpty()) {
      Http2Upstreams.Waiter w = origin.waiters.peek();
      if (w.promise().isDone()) {
        origin.waiters.poll();
        continue;
      }
      if (w.want() == Want.H2_OR_H1 && h1Only.containsKey(key)) {
        origin.waiters.poll();
        acquire(loop, w.scheme(), w.host(), w.port(), w.flow(), Want.H1)
            .addListener(r -> w.promise().trySuccess((Result) r.getNow()));
        continue;
      }
      Http2Upstreams.Parent parent = origin.withFreeSlot();
      if (parent != null) {
        origin.waiters.poll();
        openStream(origin, parent, key, w.promise());
        continue;
      }
      if (!origin.shouldDial()) {
        return; // a connect in progress or a stream ending calls again
      }
      origin.waiters.poll();
      origin.connecting++;
      dial(loop, key, w.host(), w.port(), w.scheme().equals("https"), w.want(), w.flow(), origin).addListener(f -> {
        origin.connecting--;
        Dialed d = (Dialed) f.getNow();
        if (d.h2() != null) {
          openStream(origin, d.h2(), key, w.promise());
        } else {
          w.promise().trySuccess(new Result(d.h1(), d.error()));
        }
        dispatchH2(loop, key, origin);
      });
    }
  }

  /** DNS (on the blocking executor), then {@link #connect}. Completes on {@code loop}. */
  private Future<Dialed> dial(EventLoop loop, String key, String host, int port, boolean https, Want want,
      Flow flow, Http2Upstreams.Origin origin) {
    Promise<Dialed> promise = loop.newPromise();
    Channel pre = predialed.take(loop, host, port);
    if (pre != null) {
      // Dialled already, for the CONNECT that opened this tunnel: no second TCP handshake.
      flow.timings().connectStart(System.nanoTime());
      connected(pre, key, host, port, https, want, flow, origin, promise);
      return promise;
    }
    flow.timings().dnsStart(System.nanoTime());
    // Through an upstream proxy Loupe resolves the proxy; the proxy resolves the origin.
    String lookup = upstreamProxy != null ? upstreamProxy.host() : host;
    dnsExecutor.execute(() -> {
      InetAddress[] addresses;
      try {
        addresses = InetAddress.getAllByName(lookup);
      } catch (UnknownHostException e) {
        loop.execute(() -> {
          flow.timings().dnsEnd(System.nanoTime());
          promise.trySuccess(new Dialed(null, null, new FlowError(FlowError.Kind.DNS, "DNS lookup failed for " + lookup
              + (upstreamProxy != null ? " (the upstream proxy)" : ""))));
        });
        return;
      }
      loop.execute(() -> {
        flow.timings().dnsEnd(System.nanoTime());
        connect(loop, key, host, port, https, want, addresses, 0, flow, origin, promise);
      });
    });
    return promise;
  }

  private void openStream(Http2Upstreams.Origin origin, Http2Upstreams.Parent parent, String key,
      Promise<Result> promise) {
    h2.openStream(origin, parent, key).addListener(f -> {
      if (f.isSuccess()) {
        promise.trySuccess(new Result((UpstreamConnection) f.getNow(), null));
      } else {
        promise.trySuccess(new Result(null, new FlowError(FlowError.Kind.SERVER_RESET,
            "cannot open an HTTP/2 stream to " + key + ": " + f.cause().getMessage())));
      }
    });
  }

  private void connect(EventLoop loop, String key, String host, int port, boolean https, Want want,
      InetAddress[] addresses, int index, Flow flow, Http2Upstreams.Origin origin, Promise<Dialed> promise) {
    InetSocketAddress target = new InetSocketAddress(addresses[index], upstreamProxy != null ? upstreamProxy.port() : port);
    flow.timings().connectStart(System.nanoTime());
    HttpProxyHandler tunnel = upstreamProxy == null ? null : upstreamProxy.username() == null
        ? new HttpProxyHandler(target)
        : new HttpProxyHandler(target, upstreamProxy.username(), upstreamProxy.password());
    if (tunnel != null) {
      tunnel.setConnectTimeoutMillis(connectTimeout.toMillis());
    }
    Bootstrap b = new Bootstrap()
        .group(loop)
        .channel(Transports.socketChannel())
        .resolver(NoopAddressResolverGroup.INSTANCE)
        .option(ChannelOption.AUTO_READ, false)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
        .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024))
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            // Filled once connected; nothing may run before the leg is attached (but the CONNECT
            // exchange with an upstream proxy, which removes itself once the tunnel stands).
            if (tunnel != null) {
              ch.pipeline().addLast("upstream-proxy", tunnel);
              ch.pipeline().addLast("upstream-proxy-guard", new ChannelInboundHandlerAdapter() {
                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                  // reported through the tunnel's connect future
                }
              });
            }
          }
        });
    // With an upstream proxy the handler connects to the proxy and asks it for host:port.
    ChannelFuture cf = b.connect(tunnel != null ? InetSocketAddress.createUnresolved(host, port) : target);
    cf.addListener(f -> {
      if (!f.isSuccess()) {
        Throwable cause = f.cause();
        if (index + 1 < addresses.length && !(cause instanceof ConnectTimeoutException)) {
          connect(loop, key, host, port, https, want, addresses, index + 1, flow, origin, promise);
          return;
        }
        flow.timings().connectEnd(System.nanoTime());
        promise.trySuccess(new Dialed(null, null, upstreamProxy != null
            ? proxyError(cause, host, port) : connectError(cause, host, port)));
        return;
      }
      if (tunnel == null) {
        connected(cf.channel(), key, host, port, https, want, flow, origin, promise);
        return;
      }
      tunnel.connectFuture().addListener(t -> {
        if (!t.isSuccess()) {
          flow.timings().connectEnd(System.nanoTime());
          cf.channel().close();
          promise.trySuccess(new Dialed(null, null, proxyError(t.cause(), host, port)));
          return;
        }
        cf.channel().pipeline().remove(tunnel);
        cf.channel().pipeline().remove("upstream-proxy-guard");
        connected(cf.channel(), key, host, port, https, want, flow, origin, promise);
      });
    });
  }

  /** TCP (through the upstream proxy's tunnel, if any) stands: TLS and the codec, or h2c. */
  private void connected(Channel ch, String key, String host, int port, boolean https, Want want, Flow flow,
      Http2Upstreams.Origin origin, Promise<Dialed> promise) {
    {
      flow.timings().connectEnd(System.nanoTime());
      long id = ConnectionIds.next();
      if (!https) {
        ConnectionInfo info = new ConnectionInfo(id,
            (InetSocketAddress) ch.remoteAddress(), (InetSocketAddress) ch.localAddress(), null, false);
        if (want == Want.H2) {
          // Forced HTTP/2 to a cleartext origin: h2c with prior knowledge (RFC 9113 §3.3).
          promise.trySuccess(new Dialed(null, h2.register(origin, ch, info, h2Codec), null));
          return;
        }
        if (!key.startsWith("tcp:")) {
          ch.pipeline().addLast(CODEC, codec());
        }
        promise.trySuccess(new Dialed(new UpstreamConnection(ch, key, info), null, null));
        return;
      }
      flow.timings().tlsStart(System.nanoTime());
      SslContext context = want == Want.H2 ? tlsH2Only : want == Want.H2_OR_H1 ? tlsOfferingH2 : tls;
      SslHandler ssl = context.newHandler(ch.alloc(), host, port);
      if (!isIpLiteral(host)) {
        // The JDK sends no SNI for a name without a dot (localhost, intranet names): set it explicitly.
        javax.net.ssl.SSLParameters params = ssl.engine().getSSLParameters();
        params.setServerNames(List.of(new javax.net.ssl.SNIHostName(host)));
        ssl.engine().setSSLParameters(params);
      }
      // The handshake has its own budget: a short connect timeout must not cut a cold TLS handshake.
      ssl.setHandshakeTimeout(Math.max(connectTimeout.toMillis(), 10_000), TimeUnit.MILLISECONDS);
      ch.pipeline().addLast(TLS, ssl);
      // Swallow reads/exceptions during the handshake; the handshake future reports failures.
      ch.pipeline().addLast("handshake-guard", new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          ReferenceCountUtil.release(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
          ctx.close();
        }
      });
      ssl.handshakeFuture().addListener(hf -> {
        flow.timings().tlsEnd(System.nanoTime());
        if (!hf.isSuccess()) {
          ch.close();
          promise.trySuccess(new Dialed(null, null, tlsError(hf.cause(), host, port)));
          return;
        }
        ch.pipeline().remove("handshake-guard");
        SSLSession s = ssl.engine().getSession();
        TlsInfo tlsInfo = new TlsInfo(isIpLiteral(host) ? null : host, s.getProtocol(), s.getCipherSuite(),
            ssl.applicationProtocol(), peerChain(s), verified);
        ConnectionInfo info = new ConnectionInfo(id,
            (InetSocketAddress) ch.remoteAddress(), (InetSocketAddress) ch.localAddress(), tlsInfo, false);
        if ("h2".equals(ssl.applicationProtocol())) {
          if (h3Budget != null) {
            // ALTSVC frames (RFC 7838 §4) feed the Alt-Svc cache like the header field. One on
            // stream 0 names its origin: only this connection's own is taken (no coalescing here).
            ch.attr(dev.loupe.engine.internal.http3.AltSvcFrames.SINK).set((named, value) -> {
              if (named == null || dev.loupe.engine.internal.http3.AltSvcFrames.sameOrigin(named, host, port)) {
                advertised(key, List.of(value), null);
              }
            });
          }
          promise.trySuccess(new Dialed(null, h2.register(origin, ch, info, h2Codec), null));
          return;
        }
        if (want == Want.H2) {
          ch.close();
          promise.trySuccess(new Dialed(null, null, new FlowError(FlowError.Kind.SERVER_PROTOCOL,
              host + ":" + port + " does not speak HTTP/2 (ALPN: " + ssl.applicationProtocol() + ")")));
          return;
        }
        if (want == Want.H2_OR_H1 && h1Only.size() < 10_000) {
          h1Only.put(key, Boolean.TRUE);
        }
        ch.pipeline().addLast(CODEC, codec());
        promise.trySuccess(new Dialed(new UpstreamConnection(ch, key, info), null, null));
      });
      ch.read();
    }
  }

  private HttpClientCodec codec() {
    return new HttpClientCodec(new io.netty.handler.codec.http.HttpDecoderConfig()
        .setMaxInitialLineLength(maxInitialLine)
        .setMaxHeaderSize(maxHeaderSize)
        .setMaxChunkSize(maxChunkSize), false, false);
  }

  /**
   * Returns a connection after a complete exchange: parked in the pool when {@code reusable}, else
   * closed. Must run on the connection's event loop. The caller has already removed its own leg
   * handler; a parked connection gets an idle handler that closes it on any unexpected byte.
   */
  public void release(UpstreamConnection c, boolean reusable) {
    Channel ch = c.channel();
    if (ch instanceof io.netty.handler.codec.quic.QuicStreamChannel stream) {
      // An HTTP/3 stream: reset (H3_REQUEST_CANCELLED) unless its exchange completed.
      dev.loupe.engine.internal.http3.Http3Upstreams.release(stream, reusable);
      return;
    }
    if (c.multiplexed() || !reusable || !ch.isActive()) {
      ch.close(); // an HTTP/2 stream: closing it resets it if still open; the connection stays pooled
      return;
    }
    EventLoop loop = ch.eventLoop();
    Map<String, ArrayDeque<UpstreamConnection>> pool = pool(loop);
    ArrayDeque<UpstreamConnection> idle = pool.computeIfAbsent(c.key(), k -> new ArrayDeque<>());
    if (idle.size() >= maxIdlePerOrigin) {
      ch.close();
      return;
    }
    idle.addLast(c);
    LegSlot.attach(ch, new IdleHandler(idle, c));
    ch.attr(IDLE_SINCE).set(System.nanoTime());
    if (sweeping.add(loop)) {
      loop.schedule(() -> sweepIdle(loop), sweepPeriodNanos(), TimeUnit.NANOSECONDS);
    }
    ch.read();
  }

  /**
   * Closes pooled connections idle for longer than the idle timeout. One sweep task per event loop
   * while its pool holds connections, instead of a timer scheduled and cancelled per request; a
   * connection closes between idleTimeout and idleTimeout + {@link #sweepPeriodNanos()} after
   * its last use. The oldest are at the head of each queue (reuse takes the newest).
   */
  private void sweepIdle(EventLoop loop) {
    long now = System.nanoTime();
    long limit = idleTimeout.toNanos();
    boolean any = false;
    for (ArrayDeque<UpstreamConnection> q : pool(loop).values()) {
      while (!q.isEmpty()) {
        Long since = q.peekFirst().channel().attr(IDLE_SINCE).get();
        if (since != null && now - since < limit) {
          break;
        }
        q.pollFirst().channel().close();
      }
      any |= !q.isEmpty();
    }
    if (any) {
      loop.schedule(() -> sweepIdle(loop), sweepPeriodNanos(), TimeUnit.NANOSECONDS);
    } else {
      sweeping.remove(loop);
    }
  }

  private long sweepPeriodNanos() {
    return Math.min(Math.max(idleTimeout.toNanos() / 4, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.SECONDS.toNanos(5));
  }

  /** Number of idle pooled connections (all loops), for tests and metrics. */
  public int idleCount() {
    int n = 0;
    for (Map<String, ArrayDeque<UpstreamConnection>> p : pools.values()) {
      for (ArrayDeque<UpstreamConnection> q : p.values()) {
        n += q.size();
      }
    }
    return n;
  }

  /** Open HTTP/2 origin connections (all loops), for tests and metrics. */
  public int http2Connections() {
    return h2.connections();
  }

  /** Open HTTP/3 origin connections (all loops), for tests and metrics. */
  public int http3Connections() {
    return h3 == null ? 0 : h3.connections();
  }

  /** HTTP/3 pool entries (origin and event loop), for tests: none outlives its connection. */
  public int http3Origins() {
    return h3 == null ? 0 : h3.origins();
  }

  /** Closes every pooled connection. */
  public void closeAll() {
    predialed.closeAll();
    h2.closeAll();
    if (h3 != null) {
      h3.closeAll();
    }
    for (Map.Entry<EventLoop, Map<String, ArrayDeque<UpstreamConnection>>> e : pools.entrySet()) {
      e.getKey().execute(() -> {
        for (ArrayDeque<UpstreamConnection> q : e.getValue().values()) {
          for (UpstreamConnection c : q) {
            c.channel().close();
          }
          q.clear();
        }
      });
    }
  }

  private Map<String, ArrayDeque<UpstreamConnection>> pool(EventLoop loop) {
    return pools.computeIfAbsent(loop, l -> new HashMap<>());
  }

  /** Sits on a parked connection: an origin that closes or speaks unasked is dropped from the pool. */
  private static final class IdleHandler extends ChannelInboundHandlerAdapter {
    private final ArrayDeque<UpstreamConnection> idle;
    private final UpstreamConnection connection;

    IdleHandler(ArrayDeque<UpstreamConnection> idle, UpstreamConnection connection) {
      this.idle = idle;
      this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
      drop(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      drop(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      drop(ctx);
    }

    private void drop(ChannelHandlerContext ctx) {
      idle.remove(connection);
      ctx.close();
    }
  }

  /** What went wrong reaching {@code host:port} through the upstream proxy, naming the proxy. */
  private FlowError proxyError(Throwable cause, String host, int port) {
    String via = " via upstream proxy " + upstreamProxy;
    if (cause instanceof HttpProxyHandler.HttpProxyConnectException e) {
      // "http, none, proxy:3128 => host:443, status: 403 Forbidden"
      String m = String.valueOf(e.getMessage());
      int status = m.indexOf("status: ");
      return new FlowError(FlowError.Kind.CONNECT, "upstream proxy " + upstreamProxy + " refused CONNECT " + host + ":" + port
          + (status >= 0 ? " (" + m.substring(status + 8) + ")" : ": " + m));
    }
    if (cause instanceof io.netty.handler.proxy.ProxyConnectException e && e.getMessage() != null
        && e.getMessage().contains("timeout")) {
      return new FlowError(FlowError.Kind.CONNECT_TIMEOUT, "timed out connecting to " + host + ":" + port + via);
    }
    FlowError direct = connectError(cause, upstreamProxy.host(), upstreamProxy.port());
    return new FlowError(direct.kind(), direct.message() + " (the upstream proxy, for " + host + ":" + port + ")");
  }

  static FlowError connectError(Throwable cause, String host, int port) {
    String where = host + ":" + port;
    if (cause instanceof ConnectTimeoutException) {
      return new FlowError(FlowError.Kind.CONNECT_TIMEOUT, "timed out connecting to " + where);
    }
    if (cause instanceof ConnectException && String.valueOf(cause.getMessage()).contains("refused")) {
      return new FlowError(FlowError.Kind.CONNECT_REFUSED, "connection refused by " + where);
    }
    if (cause instanceof NoRouteToHostException) {
      return new FlowError(FlowError.Kind.CONNECT, "no route to " + where);
    }
    return new FlowError(FlowError.Kind.CONNECT, "cannot connect to " + where + ": " + cause.getMessage());
  }

  static FlowError tlsError(Throwable cause, String host, int port) {
    String where = host + ":" + port;
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof CertificateException || t instanceof SSLPeerUnverifiedException
          || String.valueOf(t.getMessage()).contains("PKIX")
          || String.valueOf(t.getMessage()).contains("subject alternative")) {
        return new FlowError(FlowError.Kind.TLS_VERIFY,
            "the certificate of " + where + " is not trusted: " + rootMessage(cause));
      }
    }
    if (cause instanceof SSLHandshakeException || cause instanceof SSLException) {
      return new FlowError(FlowError.Kind.TLS_HANDSHAKE, "TLS handshake with " + where + " failed: " + rootMessage(cause));
    }
    return new FlowError(FlowError.Kind.TLS_HANDSHAKE, "TLS with " + where + " failed: " + rootMessage(cause));
  }

  private static String rootMessage(Throwable t) {
    Throwable r = t;
    while (r.getCause() != null && r.getCause() != r) {
      r = r.getCause();
    }
    String m = r.getMessage();
    return m == null ? r.getClass().getSimpleName() : m;
  }

  private static List<X509Certificate> peerChain(SSLSession s) {
    List<X509Certificate> out = new ArrayList<>();
    try {
      for (Certificate c : s.getPeerCertificates()) {
        if (c instanceof X509Certificate x) {
          out.add(x);
        }
      }
    } catch (SSLPeerUnverifiedException ignored) {
      // no chain
    }
    return out;
  }

  public static boolean isIpLiteral(String host) {
    return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
  }
}
