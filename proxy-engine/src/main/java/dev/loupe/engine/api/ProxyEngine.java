package dev.loupe.engine.api;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.engine.flow.ClientLabels;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A running Loupe proxy: one listener, its event loops, the upstream pool, and the
 * {@link FlowStore} it records into. Start with {@link #start}, stop with {@link #close()}. The
 * running parts are the engine's ({@link EngineRuntime}, made by its internal bootstrap); this
 * class is what callers hold.
 *
 * <p>Thread-safe.
 */
public final class ProxyEngine implements AutoCloseable {
  private final AtomicBoolean closed = new AtomicBoolean();
  private final EngineConfig config;
  private final FlowStore store;
  private final InterceptService intercept;
  private final AccessLog accessLog;
  private final EngineRuntime runtime;
  /** Listeners opened for launched clients, closed with the engine. */
  private final Set<ClientListener> clientListeners = ConcurrentHashMap.newKeySet();

  private ProxyEngine(EngineConfig config, FlowStore store, InterceptService intercept) throws IOException {
    this.config = config;
    this.store = store;
    this.intercept = intercept;
    this.accessLog = new AccessLog();
    this.runtime = factory().start(config, store, intercept, accessLog);
  }

  /** The engine's bootstrap, registered as a service of {@code proxy-engine}; loaded once. */
  private static EngineRuntime.Factory factory() {
    return Bootstrap.FACTORY;
  }

  private static final class Bootstrap {
    static final EngineRuntime.Factory FACTORY = ServiceLoader.load(EngineRuntime.Factory.class,
        ProxyEngine.class.getClassLoader()).findFirst().orElseThrow(() -> new IllegalStateException(
            "the engine's bootstrap is missing from the class path (META-INF/services/"
                + EngineRuntime.Factory.class.getName() + ")"));
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
    EngineRuntime.Bound bound = runtime.bindClientListener(port);
    InetSocketAddress at = bound.address();
    ClientLabels.put(at, label);
    ClientListener[] self = new ClientListener[1];
    self[0] = new ClientListener(label, at, () -> {
      clientListeners.remove(self[0]);
      bound.close().run();
      ClientLabels.remove(at);
    });
    clientListeners.add(self[0]);
    return self[0];
  }

  /** The listeners open for launched clients. */
  public List<ClientListener> clientListeners() {
    return List.copyOf(clientListeners);
  }

  /** With {@code --socks}: where the SOCKS5-only listener is; else null. */
  public InetSocketAddress socksAddress() {
    return runtime.socksAddress();
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
    return new ProxyEngine(config, store, InterceptService.create());
  }

  /**
   * Like {@link #start(EngineConfig, FlowStore)}, with the rules and breakpoints of {@code intercept}
   * (which outlives this engine: the desktop app restarts engines on a settings change).
   */
  public static ProxyEngine start(EngineConfig config, FlowStore store, InterceptService intercept)
      throws IOException {
    return new ProxyEngine(config, store, Objects.requireNonNull(intercept, "intercept"));
  }

  /**
   * Sends {@code request} from Loupe (replay, composer) over this engine's server leg and records it
   * as a new flow; see {@link Replayer}.
   */
  public CompletionStage<Flow> replay(RequestDraft request, Replayer.Protocol protocol, long replayOf) {
    return runtime.replay(request, protocol, replayOf);
  }

  /** The rules, breakpoints and paused flows this engine consults. */
  public InterceptService intercept() {
    return intercept;
  }

  /** The bound address (with the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return runtime.address();
  }

  /** Reverse mode: the UDP address serving HTTP/3 (same port as {@link #address()}), or null. */
  public InetSocketAddress http3Address() {
    return runtime.http3Address();
  }

  /** Reverse mode: why there is no HTTP/3 listener (e.g. the UDP port is taken), or null. */
  public String http3Problem() {
    return runtime.http3Problem();
  }

  /** Open HTTP/3 client connections (reverse mode), for tests and diagnostics. */
  public int http3ClientConnections() {
    return runtime.http3ClientConnections();
  }

  public EngineConfig config() {
    return config;
  }

  public FlowStore flows() {
    return store;
  }

  /** Idle pooled upstream connections, for tests and diagnostics. */
  public int idleUpstreamConnections() {
    return runtime.idleUpstreamConnections();
  }

  /** Open HTTP/2 connections to origins, for tests and diagnostics. */
  public int http2UpstreamConnections() {
    return runtime.http2UpstreamConnections();
  }

  /** Open HTTP/3 connections to origins, for tests and diagnostics. */
  public int http3UpstreamConnections() {
    return runtime.http3UpstreamConnections();
  }

  /**
   * Origins the HTTP/3 pool holds an entry for (per I/O thread), for tests and diagnostics: an
   * entry leaves with its last connection.
   */
  public int http3UpstreamOrigins() {
    return runtime.http3UpstreamOrigins();
  }

  /** Which I/O transport is in use ("epoll" or "nio"). */
  public static String transport() {
    return factory().transport();
  }

  /** Which TLS implementation is in use ("BoringSSL ..." or "JDK"). */
  public static String tlsProvider() {
    return factory().tlsProvider();
  }

  /**
   * Stops listening, closes every connection and waits (up to a few seconds) for the loops to end.
   * A second call does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (ClientListener c : clientListeners) {
      c.close();
    }
    runtime.close();
  }
}
