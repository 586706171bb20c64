package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.ConnectionIds;
import dev.loupe.engine.internal.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Dials origins for the server-leg pools: DNS on a blocking executor (through an upstream proxy,
 * the proxy's name: the proxy resolves the origin), TCP to each address in turn (or to the upstream
 * proxy, asked to CONNECT to the origin), or a connection dialled ahead for an eager CONNECT; then,
 * for https, the TLS handshake with the ALPN offer the pool asks for. Each step is timed on the
 * flow; a failure becomes a {@link FlowError} naming the cause ({@link UpstreamErrors}). What the
 * connection then carries (an HTTP/1.1 codec, an HTTP/2 connection) is the pool's business.
 *
 * <p>Thread-safe; each dial completes on the event loop it was made for.
 */
final class Dialer {
  /** The TLS handler's name in an origin connection's pipeline. */
  static final String TLS = "tls";
  private static final String HANDSHAKE_GUARD = "handshake-guard";

  /**
   * A dial's outcome: a connected channel (TLS done for https, its read not pending) with what the
   * flow records of it and the protocol ALPN chose (null for cleartext), or the error.
   */
  record Dialed(Channel channel, ConnectionInfo info, String alpn, FlowError error) {
    static Dialed failed(FlowError error) {
      return new Dialed(null, null, null, error);
    }
  }

  private final Executor dnsExecutor;
  private final Duration connectTimeout;
  private final boolean verified;
  /** Every origin connection tunnels through this HTTP proxy (CONNECT), or null. */
  private final EngineConfig.UpstreamProxy upstreamProxy;
  private final PredialedConnections predialed;

  Dialer(Executor dnsExecutor, Duration connectTimeout, boolean verified, EngineConfig.UpstreamProxy upstreamProxy,
      PredialedConnections predialed) {
    this.dnsExecutor = dnsExecutor;
    this.connectTimeout = connectTimeout;
    this.verified = verified;
    this.upstreamProxy = upstreamProxy;
    this.predialed = predialed;
  }

  /**
   * A connection to {@code host:port} on {@code loop}: TCP, then TLS with {@code tls} when it is
   * not null (https). Completes on {@code loop}.
   */
  Future<Dialed> dial(EventLoop loop, String host, int port, SslContext tls, RecordedFlow flow) {
    Promise<Dialed> promise = loop.newPromise();
    Channel pre = predialed.take(loop, host, port);
    if (pre == null) {
      dialAfresh(loop, host, port, tls, flow, promise);
      return promise;
    }
    // Dialled already, for the CONNECT that opened this tunnel: no second TCP handshake. While it
    // waited, the origin may have given up on it (a TLS server closes a connection that sends no
    // ClientHello within its handshake timeout, 10 s for Netty's), possibly just as this handshake
    // starts: a failed handshake on it says nothing about the origin now, so the dial starts afresh.
    flow.timings().connectStart(System.nanoTime());
    Promise<Dialed> onPredialed = loop.newPromise();
    connected(pre, host, port, tls, flow, onPredialed);
    onPredialed.addListener(f -> {
      Dialed d = (Dialed) f.getNow();
      if (d.error() == null) {
        promise.trySuccess(d);
      } else {
        dialAfresh(loop, host, port, tls, flow, promise);
      }
    });
    return promise;
  }

  /** {@link #dial} without a connection dialled ahead: DNS, TCP (through any upstream proxy), TLS. */
  private void dialAfresh(EventLoop loop, String host, int port, SslContext tls, RecordedFlow flow,
      Promise<Dialed> promise) {
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
          promise.trySuccess(Dialed.failed(UpstreamErrors.dns(lookup, upstreamProxy != null)));
        });
        return;
      }
      loop.execute(() -> {
        flow.timings().dnsEnd(System.nanoTime());
        connect(loop, host, port, tls, addresses, 0, flow, promise);
      });
    });
  }

  private void connect(EventLoop loop, String host, int port, SslContext tls, InetAddress[] addresses, int index,
      RecordedFlow flow, Promise<Dialed> promise) {
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
          connect(loop, host, port, tls, addresses, index + 1, flow, promise);
          return;
        }
        flow.timings().connectEnd(System.nanoTime());
        promise.trySuccess(Dialed.failed(upstreamProxy != null
            ? UpstreamErrors.proxy(cause, host, port, upstreamProxy) : UpstreamErrors.connect(cause, host, port)));
        return;
      }
      if (tunnel == null) {
        connected(cf.channel(), host, port, tls, flow, promise);
        return;
      }
      tunnel.connectFuture().addListener(t -> {
        if (!t.isSuccess()) {
          flow.timings().connectEnd(System.nanoTime());
          cf.channel().close();
          promise.trySuccess(Dialed.failed(UpstreamErrors.proxy(t.cause(), host, port, upstreamProxy)));
          return;
        }
        cf.channel().pipeline().remove(tunnel);
        cf.channel().pipeline().remove("upstream-proxy-guard");
        connected(cf.channel(), host, port, tls, flow, promise);
      });
    });
  }

  /** TCP (through the upstream proxy's tunnel, if any) stands: done for cleartext, else TLS. */
  private void connected(Channel ch, String host, int port, SslContext tls, RecordedFlow flow, Promise<Dialed> promise) {
    flow.timings().connectEnd(System.nanoTime());
    long id = ConnectionIds.next();
    if (tls == null) {
      promise.trySuccess(new Dialed(ch, new ConnectionInfo(id, (InetSocketAddress) ch.remoteAddress(),
          (InetSocketAddress) ch.localAddress(), null, false), null, null));
      return;
    }
    flow.timings().tlsStart(System.nanoTime());
    SslHandler ssl = tls.newHandler(ch.alloc(), host, port);
    if (!isIpLiteral(host)) {
      // The JDK sends no SNI for a name without a dot (localhost, intranet names): set it explicitly.
      SSLParameters params = ssl.engine().getSSLParameters();
      params.setServerNames(List.of(new SNIHostName(host)));
      ssl.engine().setSSLParameters(params);
    }
    // The handshake has its own budget: a short connect timeout must not cut a cold TLS handshake.
    ssl.setHandshakeTimeout(Math.max(connectTimeout.toMillis(), 10_000), TimeUnit.MILLISECONDS);
    ch.pipeline().addLast(TLS, ssl);
    // Swallow reads/exceptions during the handshake; the handshake future reports failures.
    ch.pipeline().addLast(HANDSHAKE_GUARD, new ChannelInboundHandlerAdapter() {
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
        promise.trySuccess(Dialed.failed(UpstreamErrors.tls(hf.cause(), host, port)));
        return;
      }
      ch.pipeline().remove(HANDSHAKE_GUARD);
      SSLSession s = ssl.engine().getSession();
      TlsInfo tlsInfo = new TlsInfo(isIpLiteral(host) ? null : host, s.getProtocol(), s.getCipherSuite(),
          ssl.applicationProtocol(), peerChain(s), verified);
      promise.trySuccess(new Dialed(ch, new ConnectionInfo(id, (InetSocketAddress) ch.remoteAddress(),
          (InetSocketAddress) ch.localAddress(), tlsInfo, false), ssl.applicationProtocol(), null));
    });
    ch.read();
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

  /** Whether {@code host} is an IP literal (no SNI for it). */
  static boolean isIpLiteral(String host) {
    return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || Character.isDigit(c));
  }
}
