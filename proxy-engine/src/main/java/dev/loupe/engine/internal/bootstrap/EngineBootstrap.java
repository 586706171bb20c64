package dev.loupe.engine.internal.bootstrap;

import dev.loupe.engine.api.AccessLog;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.EngineRuntime;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.http3.Http3Listener;
import dev.loupe.engine.internal.http3.QuicServerContexts;
import dev.loupe.engine.internal.intercept.DefaultInterceptService;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.relay.ClientInitializer;
import dev.loupe.engine.internal.relay.EngineContext;
import dev.loupe.engine.internal.relay.Http2Codecs;
import dev.loupe.engine.internal.relay.Http3Streams;
import dev.loupe.engine.internal.relay.ReverseInitializer;
import dev.loupe.engine.internal.replay.Replays;
import dev.loupe.engine.internal.tls.MitmContexts;
import dev.loupe.engine.internal.tls.TlsProviders;
import dev.loupe.engine.internal.transport.Transports;
import dev.loupe.engine.internal.upstream.Http3Upstreams;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import dev.loupe.engine.internal.upstream.UpstreamTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The engine's composition root: from an {@link EngineConfig} it makes the event loops, the
 * blocking executor, the {@link UpstreamConnector} (with HTTP/3 forced or discovered), the TLS
 * contexts, and binds the listeners (the explicit proxy or reverse mode, QUIC beside reverse mode,
 * SOCKS5, loopback listeners for launched clients); it closes them in order. {@link
 * dev.loupe.engine.api.ProxyEngine} reaches it through {@link EngineRuntime.Factory} (a {@code
 * ServiceLoader} service), so the public {@code api} package imports nothing internal.
 *
 * <p>Thread-safe.
 */
public final class EngineBootstrap implements EngineRuntime {
  /** The service {@code ProxyEngine} loads. */
  public static final class Factory implements EngineRuntime.Factory {
    @Override
    public EngineRuntime start(EngineConfig config, FlowStore store, InterceptService intercept, AccessLog accessLog)
        throws IOException {
      return new EngineBootstrap(config, store, DefaultInterceptService.of(intercept), accessLog);
    }

    @Override
    public String transport() {
      return Transports.name();
    }

    @Override
    public String tlsProvider() {
      return TlsProviders.describe();
    }
  }

  private final AtomicBoolean closed = new AtomicBoolean();
  private final EngineConfig config;
  private final RecordingStore store;
  private final AccessLog accessLog;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ExecutorService blocking;
  private final UpstreamConnector connector;
  private final EngineContext ctx;
  private final Channel listener;
  /** Reverse mode: the QUIC (HTTP/3) listener on the same port number, or null. */
  private final Http3Listener quic;
  private final String quicProblem;
  /** Regular mode with {@code --socks}: the SOCKS5-only listener, or null. */
  private final Channel socksListener;
  /**
   * Every accepted client connection (all listeners) until it closes. {@link #close()} closes
   * them itself: shutting the event loops down is not enough — a connection left idle behind TLS
   * was seen to outlive its terminated loop, socket open (FaultInjectionTest's descriptor check).
   */
  private final io.netty.channel.group.ChannelGroup clients =
      new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
  /** Loopback listeners bound for launched clients, closed with the engine. */
  private final Set<Channel> clientListeners = ConcurrentHashMap.newKeySet();
  private final AutoCloseable pluginObserver;
  private final MitmContexts mitm;

  private EngineBootstrap(EngineConfig config, FlowStore store, DefaultInterceptService intercept, AccessLog accessLog)
      throws IOException {
    this.config = config;
    this.store = RecordingStore.of(store);
    this.accessLog = accessLog;
    this.blocking = Executors.newCachedThreadPool(daemon("loupe-blocking"));
    this.connector = connector(config, blocking);
    this.mitm = new MitmContexts(config.certificates(), blocking);
    if (config.reverse() != null) {
      // Every TLS client without SNI (an IP literal) gets this host's certificate: make its context
      // while the listeners open, not behind the first client's handshake.
      mitm.prepare(config.reverse().certificateHost());
    }
    this.ctx = new EngineContext(config, this.store, connector, mitm, blocking, intercept);
    this.boss = Transports.newGroup(1, "loupe-accept");
    this.workers = Transports.newGroup(config.ioThreads(), "loupe-io");
    try {
      this.listener = bind(config.listen(), config.reverse() == null
          ? new ClientInitializer(ctx, accessLog, false, false)
          : new ReverseInitializer(ctx));
    } catch (IOException e) {
      shutdownGroups();
      throw new IOException("cannot listen on " + config.listen() + ": " + e.getMessage(), e);
    }
    Http3Listener h3 = null;
    String problem = null;
    if (config.reverse() != null) {
      // UDP on the port the TCP listener got (the real one when 0 was asked for).
      InetSocketAddress udp = new InetSocketAddress(config.listen().getAddress(), address().getPort());
      try {
        h3 = Http3Listener.bind(workers, udp,
            new QuicServerContexts(config.certificates(), config.reverse().certificateHost()),
            Http3Streams.reverseConnections(ctx));
        ctx.altSvc().set("h3=\":" + udp.getPort() + "\"; ma=86400");
      } catch (IOException | RuntimeException | LinkageError e) {
        // HTTP/3 is an extra: without it reverse mode still serves TCP, without Alt-Svc.
        problem = e.getMessage() != null ? e.getMessage() : e.toString();
      }
    }
    this.quic = h3;
    this.quicProblem = problem;
    Channel socks = null;
    if (config.socks() != null && config.reverse() == null) {
      try {
        socks = bind(config.socks(), new ClientInitializer(ctx, accessLog, false, true));
      } catch (IOException e) {
        close();
        throw new IOException("cannot listen for SOCKS5 on " + ListenAddress.format(config.socks()) + ": "
            + e.getMessage(), e);
      }
    }
    this.socksListener = socks;
    // Observing plugin hooks are fed from the store; the plugins themselves outlive this engine.
    this.pluginObserver = intercept.plugins().observe(store);
    intercept.plugins().running();
  }

  /** The server-leg pools of {@code config}: HTTP/3 forced, discovered by Alt-Svc, or off. */
  private static UpstreamConnector connector(EngineConfig config, ExecutorService blocking) {
    UpstreamConnector connector = new UpstreamConnector(UpstreamTls.contexts(config.trustedCas(), config.insecure()),
        () -> Http2Codecs.forServerLeg(config), !config.insecure(), blocking, config.connectTimeout(),
        config.poolIdleTimeout(), config.maxIdlePerOrigin(), config.limits().maxInitialLineLength(),
        config.limits().maxHeaderSize(), config.limits().maxChunkSize(), config.upstreamProxy());
    Supplier<Http3Upstreams> http3 = () -> new Http3Upstreams(
        UpstreamTls.quicClientContext(config.trustedCas(), config.insecure()), !config.insecure(), blocking,
        config.connectTimeout(), config.poolIdleTimeout());
    if (config.upstreamProtocol() == EngineConfig.UpstreamProtocol.H3) {
      connector.http3(http3.get());
    } else if (config.upstreamProtocol() == EngineConfig.UpstreamProtocol.AUTO && config.upstreamProxy() == null) {
      // Alt-Svc discovery; the QUIC pool (native code) is made when an origin first advertises h3.
      connector.http3Discovery(http3, config.http3HandshakeBudget());
    }
    return connector;
  }

  private Channel bind(InetSocketAddress at, ChannelHandler initializer) throws IOException {
    try {
      return new ServerBootstrap()
          .group(boss, workers)
          .channel(Transports.serverChannel())
          .handler(new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext c, Object accepted) {
              clients.add((Channel) accepted); // leaves the group when it closes
              c.fireChannelRead(accepted);
            }
          })
          .option(ChannelOption.SO_BACKLOG, 1024)
          .option(ChannelOption.SO_REUSEADDR, true)
          .childOption(ChannelOption.AUTO_READ, false)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024))
          .childHandler(initializer)
          .bind(at)
          .sync()
          .channel();
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IOException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
    }
  }

  @Override
  public Bound bindClientListener(int port) throws IOException {
    if (config.reverse() != null) {
      throw new IllegalStateException("launched clients need the regular (explicit proxy) mode");
    }
    Channel ch = bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
        new ClientInitializer(ctx, accessLog, true, false));
    clientListeners.add(ch);
    return new Bound((InetSocketAddress) ch.localAddress(), () -> {
      clientListeners.remove(ch);
      ch.close().syncUninterruptibly();
    });
  }

  @Override
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  @Override
  public InetSocketAddress socksAddress() {
    return socksListener == null ? null : (InetSocketAddress) socksListener.localAddress();
  }

  @Override
  public InetSocketAddress http3Address() {
    return quic == null ? null : quic.address();
  }

  @Override
  public String http3Problem() {
    return quicProblem;
  }

  @Override
  public int http3ClientConnections() {
    return quic == null ? 0 : quic.connections();
  }

  @Override
  public CompletionStage<Flow> replay(RequestDraft request, Replayer.Protocol protocol, long replayOf) {
    return Replays.send(new Replays.Context(config, store, connector, workers.next(), blocking), request, protocol,
        replayOf);
  }

  @Override
  public int idleUpstreamConnections() {
    return connector.idleCount();
  }

  @Override
  public int http2UpstreamConnections() {
    return connector.http2Connections();
  }

  @Override
  public int http3UpstreamConnections() {
    return connector.http3Connections();
  }

  @Override
  public int http3UpstreamOrigins() {
    return connector.http3Origins();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return; // closed already (a shutdown hook after an explicit close): the loops are gone
    }
    if (quic != null) {
      quic.close(); // GOAWAY + CONNECTION_CLOSE (H3_NO_ERROR) to every HTTP/3 client
    }
    for (Channel ch : clientListeners) {
      ch.close().syncUninterruptibly();
    }
    if (socksListener != null) {
      socksListener.close().syncUninterruptibly();
    }
    listener.close().syncUninterruptibly();
    // No new connections now; close the open ones (their legs release what they hold upstream).
    clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    mitm.close(); // lookups still minting release their ClientHello now, while the loops run
    connector.closeAll();
    shutdownGroups();
    try {
      if (pluginObserver != null) {
        pluginObserver.close();
      }
    } catch (Exception ignored) {
      // a subscription's close does not fail
    }
  }

  private void shutdownGroups() {
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    boss.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
    workers.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
    blocking.shutdownNow();
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
