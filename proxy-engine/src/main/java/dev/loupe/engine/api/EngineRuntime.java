package dev.loupe.engine.api;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletionStage;

/**
 * The running parts of a {@link ProxyEngine}: listeners, event loops, the upstream pools. The engine
 * makes them in its internal bootstrap, which {@link ProxyEngine} finds through {@link
 * java.util.ServiceLoader} ({@code META-INF/services/dev.loupe.engine.api.EngineRuntime$Factory}), so
 * that this package depends on no internal one. Callers use {@link ProxyEngine}; this interface is
 * the seam between the public surface and the wiring.
 *
 * <p>Thread-safe.
 */
public interface EngineRuntime extends AutoCloseable {
  /** Makes runtimes; the engine's bootstrap is the one implementation. */
  interface Factory {
    /**
     * Binds the listeners of {@code config} and starts serving, recording into {@code store} and
     * consulting {@code intercept}; clients refused by proxy authentication go to {@code accessLog}.
     *
     * @throws IOException when an address cannot be bound (the message names it)
     */
    EngineRuntime start(EngineConfig config, FlowStore store, InterceptService intercept, AccessLog accessLog)
        throws IOException;

    /** Which I/O transport is in use ("epoll" or "nio"). */
    String transport();

    /** Which TLS implementation is in use ("BoringSSL ..." or "JDK"). */
    String tlsProvider();
  }

  /** A loopback listener bound for a launched client: where it listens, and how it stops. */
  record Bound(InetSocketAddress address, Runnable close) {}

  /** The bound address (with the real port when 0 was asked for). */
  InetSocketAddress address();

  /** With {@code --socks}: where the SOCKS5-only listener is; else null. */
  InetSocketAddress socksAddress();

  /** Reverse mode: the UDP address serving HTTP/3, or null. */
  InetSocketAddress http3Address();

  /** Reverse mode: why there is no HTTP/3 listener, or null. */
  String http3Problem();

  /** Open HTTP/3 client connections (reverse mode). */
  int http3ClientConnections();

  /**
   * Binds a loopback listener on {@code port} (0: any) serving the explicit proxy (HTTP and SOCKS5)
   * without proxy authentication; closed by its {@link Bound#close()} or with the runtime.
   */
  Bound bindClientListener(int port) throws IOException;

  /** Sends {@code request} from Loupe over the server leg and records it as a new flow. */
  CompletionStage<Flow> replay(RequestDraft request, Replayer.Protocol protocol, long replayOf);

  int idleUpstreamConnections();

  int http2UpstreamConnections();

  int http3UpstreamConnections();

  int http3UpstreamOrigins();

  /** Stops listening, closes every connection and waits (up to a few seconds) for the loops to end. */
  @Override
  void close();
}
