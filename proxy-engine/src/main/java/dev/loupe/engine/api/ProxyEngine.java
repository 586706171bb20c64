package dev.loupe.engine.api;

import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.relay.ClientInitializer;
import dev.loupe.engine.internal.relay.EngineContext;
import dev.loupe.engine.internal.tls.MitmContexts;
import dev.loupe.engine.internal.upstream.UpstreamTls;
import dev.loupe.engine.internal.transport.Transports;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A running Loupe proxy: one listener, its event loops, the upstream pool, and the
 * {@link FlowStore} it records into. Start with {@link #start}, stop with {@link #close()}.
 *
 * <p>Thread-safe.
 */
public final class ProxyEngine implements AutoCloseable {
  private final EngineConfig config;
  private final FlowStore store;
  private final EventLoopGroup boss;
  private final EventLoopGroup workers;
  private final ExecutorService blocking;
  private final UpstreamConnector connector;
  private final Channel listener;
  /** Reverse mode: the QUIC (HTTP/3) listener on the same port number, or null. */
  private final dev.loupe.engine.internal.http3.Http3Listener quic;
  private final String quicProblem;

  private final dev.loupe.engine.intercept.InterceptService intercept;
  private final AutoCloseable pluginObserver;
  private final EngineContext ctx;
  private final AccessLog accessLog = new AccessLog();
  /** Regular mode with {@code --socks}: the SOCKS5-only listener, or null. */
  private final Channel socksListener;
  /**
   * Every accepted client connection (all listeners) until it closes. {@link #close()} closes
   * them itself: shutting the event loops down is not enough — a connection left idle behind TLS
   * was seen to outlive its terminated loop, socket open (FaultInjectionTest's descriptor check).
   */
  private final io.netty.channel.group.ChannelGroup clients =
      new io.netty.channel.group.DefaultChannelGroup(io.netty.util.concurrent.GlobalEventExecutor.INSTANCE);
  /** Listeners opened for launched clients, closed with the engine. */
  private final java.util.Set<ClientListener> clientListeners = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private ProxyEngine(EngineConfig config, FlowStore store, dev.loupe.engine.intercept.InterceptService intercept)
      throws IOException {
    this.intercept = intercept;
    this.config = config;
    this.store = store;
    this.blocking = Executors.newCachedThreadPool(daemon("loupe-blocking"));
    this.connector = new UpstreamConnector(UpstreamTls.contexts(config.trustedCas(), config.insecure()),
        () -> dev.loupe.engine.internal.relay.Http2Codecs.forServerLeg(config), !config.insecure(), blocking,
        config.connectTimeout(),
        config.poolIdleTimeout(), config.maxIdlePerOrigin(), config.limits().maxInitialLineLength(),
        config.limits().maxHeaderSize(), config.limits().maxChunkSize(), config.upstreamProxy());
    if (config.upstreamProtocol() == EngineConfig.UpstreamProtocol.H3) {
      connector.http3(new dev.loupe.engine.internal.upstream.Http3Upstreams(
          UpstreamTls.quicClientContext(config.trustedCas(), config.insecure()), !config.insecure(), blocking,
          config.connectTimeout(), config.poolIdleTimeout()));
    } else if (config.upstreamProtocol() == EngineConfig.UpstreamProtocol.AUTO && config.upstreamProxy() == null) {
      // Alt-Svc discovery; the QUIC pool (native code) is made when an origin first advertises h3.
      connector.http3Discovery(() -> new dev.loupe.engine.internal.upstream.Http3Upstreams(
          UpstreamTls.quicClientContext(config.trustedCas(), config.insecure()), !config.insecure(), blocking,
          config.connectTimeout(), config.poolIdleTimeout()), config.http3HandshakeBudget());
    }
    MitmContexts mitm = new MitmContexts(config.certificates(), blocking);
    EngineContext ctx = new EngineContext(config, store, connector, mitm, blocking, intercept);
    this.ctx = ctx;
    this.boss = Transports.newGroup(1, "loupe-accept");
    this.workers = Transports.newGroup(config.ioThreads(), "loupe-io");
    try {
      this.listener = bind(config.listen(), config.reverse() == null
          ? new ClientInitializer(ctx, accessLog, false, false)
          : new dev.loupe.engine.internal.relay.ReverseInitializer(ctx));
    } catch (IOException e) {
      shutdownGroups();
      throw new IOException("cannot listen on " + config.listen() + ": " + e.getMessage(), e);
    }
    dev.loupe.engine.internal.http3.Http3Listener h3 = null;
    String problem = null;
    if (config.reverse() != null) {
      // UDP on the port the TCP listener got (the real one when 0 was asked for).
      InetSocketAddress udp = new InetSocketAddress(config.listen().getAddress(), address().getPort());
      try {
        h3 = dev.loupe.engine.internal.http3.Http3Listener.bind(workers, udp,
            new dev.loupe.engine.internal.http3.QuicServerContexts(config.certificates(),
                config.reverse().certificateHost()),
            dev.loupe.engine.internal.relay.Http3Streams.reverseConnections(ctx));
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

  private Channel bind(InetSocketAddress at, io.netty.channel.ChannelHandler initializer) throws IOException {
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

  /**
   * Opens a loopback listener for a client Loupe launches (a browser, a terminal): the explicit
   * proxy (HTTP and SOCKS5) without proxy authentication, whose flows are tagged {@code label}.
   * Regular mode only. Closed by {@link ClientListener#close()} or with this engine.
   *
   * @param port the port to take (0: any free one); an earlier client's port keeps a running
   *             client connected across a restart of the proxy
   */
  public ClientListener openClientListener(String label, int port) throws IOException {
    if (config.reverse() != null) {
      throw new IllegalStateException("launched clients need the regular (explicit proxy) mode");
    }
    Channel ch = bind(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port),
        new ClientInitializer(ctx, accessLog, true, false));
    InetSocketAddress at = (InetSocketAddress) ch.localAddress();
    dev.loupe.engine.flow.ClientLabels.put(at, label);
    ClientListener[] self = new ClientListener[1];
    self[0] = new ClientListener(label, at, () -> {
      clientListeners.remove(self[0]);
      ch.close().syncUninterruptibly();
      dev.loupe.engine.flow.ClientLabels.remove(at);
    });
    clientListeners.add(self[0]);
    return self[0];
  }

  /** The listeners open for launched clients. */
  public java.util.List<ClientListener> clientListeners() {
    return java.util.List.copyOf(clientListeners);
  }

  /** With {@code --socks}: where the SOCKS5-only listener is; else null. */
  public InetSocketAddress socksAddress() {
    return socksListener == null ? null : (InetSocketAddress) socksListener.localAddress();
  }

  /** Clients refused for failing proxy authentication. */
  public AccessLog accessLog() {
    return accessLog;
  }

  /** The session's plugins (loaded by the app; shared by the engines it restarts). */
  public Plugins plugins() {
    return intercept.plugins();
  }

  /** Binds the listener and starts serving. Throws if the address cannot be bound. */
  public static ProxyEngine start(EngineConfig config, FlowStore store) throws IOException {
    return new ProxyEngine(config, store, new dev.loupe.engine.intercept.InterceptService());
  }

  /**
   * Like {@link #start(EngineConfig, FlowStore)}, with the rules and breakpoints of {@code intercept}
   * (which outlives this engine: the desktop app restarts engines on a settings change).
   */
  public static ProxyEngine start(EngineConfig config, FlowStore store,
      dev.loupe.engine.intercept.InterceptService intercept) throws IOException {
    return new ProxyEngine(config, store, java.util.Objects.requireNonNull(intercept, "intercept"));
  }

  /**
   * Sends {@code request} from Loupe (replay, composer) over this engine's server leg and records it
   * as a new flow; see {@link dev.loupe.engine.intercept.Replayer}.
   */
  public java.util.concurrent.CompletionStage<dev.loupe.engine.flow.Flow> replay(
      dev.loupe.engine.intercept.RequestDraft request, dev.loupe.engine.intercept.Replayer.Protocol protocol,
      long replayOf) {
    return dev.loupe.engine.internal.replay.Replays.send(new dev.loupe.engine.internal.replay.Replays.Context(
        config, store, connector, workers.next(), blocking), request, protocol, replayOf);
  }

  /** The rules, breakpoints and paused flows this engine consults. */
  public dev.loupe.engine.intercept.InterceptService intercept() {
    return intercept;
  }

  /** The bound address (with the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** Reverse mode: the UDP address serving HTTP/3 (same port as {@link #address()}), or null. */
  public InetSocketAddress http3Address() {
    return quic == null ? null : quic.address();
  }

  /** Reverse mode: why there is no HTTP/3 listener (e.g. the UDP port is taken), or null. */
  public String http3Problem() {
    return quicProblem;
  }

  /** Open HTTP/3 client connections (reverse mode), for tests and diagnostics. */
  public int http3ClientConnections() {
    return quic == null ? 0 : quic.connections();
  }

  public EngineConfig config() {
    return config;
  }

  public FlowStore flows() {
    return store;
  }

  /** Idle pooled upstream connections, for tests and diagnostics. */
  public int idleUpstreamConnections() {
    return connector.idleCount();
  }

  /** Open HTTP/2 connections to origins, for tests and diagnostics. */
  public int http2UpstreamConnections() {
    return connector.http2Connections();
  }

  /** Open HTTP/3 connections to origins, for tests and diagnostics. */
  public int http3UpstreamConnections() {
    return connector.http3Connections();
  }

  /**
   * Origins the HTTP/3 pool holds an entry for (per I/O thread), for tests and diagnostics: an
   * entry leaves with its last connection.
   */
  public int http3UpstreamOrigins() {
    return connector.http3Origins();
  }

  /** Which I/O transport is in use ("epoll" or "nio"). */
  public static String transport() {
    return Transports.name();
  }

  /** Which TLS implementation is in use ("BoringSSL ..." or "JDK"). */
  public static String tlsProvider() {
    return dev.loupe.engine.internal.tls.TlsProviders.describe();
  }

  /** Stops listening, closes every connection and waits (up to a few seconds) for the loops to end. */
  @Override
  public void close() {
    if (quic != null) {
      quic.close(); // GOAWAY + CONNECTION_CLOSE (H3_NO_ERROR) to every HTTP/3 client
    }
    for (ClientListener c : clientListeners) {
      c.close();
    }
    if (socksListener != null) {
      socksListener.close().syncUninterruptibly();
    }
    listener.close().syncUninterruptibly();
    // No new connections now; close the open ones (their legs release what they hold upstream).
    clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
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
