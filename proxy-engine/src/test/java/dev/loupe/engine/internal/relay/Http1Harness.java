package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.internal.intercept.DefaultInterceptService;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.tls.MitmContexts;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import dev.loupe.engine.internal.upstream.UpstreamTls;
import dev.loupe.testing.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The HTTP/1 client side exactly as Loupe installs it ({@link Pipelines#serverCodec} then {@link
 * ClientLeg}) on an {@link EmbeddedChannel}, for fuzz targets and other socket-free tests.
 *
 * <p>Nothing leaves the process: every origin is reached "through" an upstream proxy whose host is
 * an unparseable IPv6 literal, so each attempt fails at once (DNS kind, no lookup is made) and the
 * client gets Loupe's 502. So everything up to the server leg runs for real: head and body
 * decoding, framing checks, request-target and CONNECT-target parsing, flow recording, error
 * pages, pipelining, close handling. Blocking work runs inline on the calling thread, which is the
 * embedded channel's event loop. Not thread-safe: one harness per thread.
 */
public final class Http1Harness implements AutoCloseable {
  /** Which client side the leg serves. */
  public enum Side {
    /** The explicit proxy's listener: absolute-form requests and CONNECT. */
    EXPLICIT_PROXY,
    /** Plain HTTP inside a CONNECT tunnel to {@code origin.test:80}: origin-form requests. */
    IN_TUNNEL,
    /** Decrypted HTTPS inside a CONNECT tunnel to {@code origin.test:443}. */
    IN_TLS_TUNNEL
  }

  private static final ExecutorService INLINE = new InlineExecutor();
  private static volatile Shared shared;

  private final RecordingStore store = new RecordingStore();
  private final EmbeddedChannel channel;

  private record Shared(EngineConfig config, UpstreamConnector connector, MitmContexts mitm,
      DefaultInterceptService intercept) {}

  /**
   * A fresh client connection on {@code side}. With {@code tunnelEverything} every CONNECT target
   * is an ignored host (tunnelled blind, recorded as a tunnel flow) instead of being intercepted.
   */
  public Http1Harness(Side side, boolean tunnelEverything) {
    Shared s = shared(tunnelEverything);
    EngineContext engine = new EngineContext(s.config(), store, s.connector(), s.mitm(), INLINE, s.intercept());
    ClientSide clientSide = switch (side) {
      case EXPLICIT_PROXY -> ClientSide.explicitProxy();
      case IN_TUNNEL -> new ClientSide("http", "origin.test", 80, null, "HTTP/1.1", false);
      case IN_TLS_TUNNEL -> new ClientSide("https", "origin.test", 443, null, "HTTP/1.1", false);
    };
    channel = new ClientConnection();
    channel.pipeline()
        .addLast(Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(s.config().limits()))
        .addLast(Pipelines.CLIENT_LEG, new ClientLeg(engine, clientSide));
    channel.runPendingTasks();
  }

  private static Shared shared(boolean tunnelEverything) {
    Shared s = shared;
    if (s == null || (s.config().ignoreHosts() != null) != tunnelEverything) {
      EngineConfig.Builder b = EngineConfig.builder(TestPki.shared().loupeSource())
          .upstreamProxy(new EngineConfig.UpstreamProxy("[unreachable", 1, null, null))
          .connectTimeout(Duration.ofSeconds(1));
      if (tunnelEverything) {
        b.ignoreHosts(Pattern.compile(".*", Pattern.DOTALL));
      }
      EngineConfig config = b.build();
      UpstreamConnector connector = new UpstreamConnector(
          UpstreamTls.contexts(config.trustedCas(), config.insecure()),
          () -> Http2Codecs.forServerLeg(config), true, INLINE, config.connectTimeout(), config.poolIdleTimeout(),
          config.maxIdlePerOrigin(), config.limits().maxInitialLineLength(), config.limits().maxHeaderSize(),
          config.limits().maxChunkSize(), config.upstreamProxy());
      s = new Shared(config, connector, new MitmContexts(config.certificates(), INLINE), new DefaultInterceptService());
      shared = s;
    }
    return s;
  }

  /** Client bytes arrive (one TCP read); runs what they set off. */
  public void clientSends(byte[] bytes, int offset, int length) {
    if (!channel.isOpen()) {
      return;
    }
    channel.writeInbound(Unpooled.copiedBuffer(bytes, offset, length));
    channel.runPendingTasks();
  }

  /** Everything the proxy wrote to the client so far. */
  public byte[] proxyWrote() {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    Object o;
    while ((o = channel.readOutbound()) != null) {
      if (o instanceof ByteBuf b) {
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        out.writeBytes(bytes);
      }
      io.netty.util.ReferenceCountUtil.release(o);
    }
    return out.toByteArray();
  }

  public boolean connectionOpen() {
    return channel.isOpen();
  }

  /** The flows this connection recorded. */
  public List<dev.loupe.engine.flow.Flow> flows() {
    return store.snapshot();
  }

  public EmbeddedChannel channel() {
    return channel;
  }

  /** The client goes away; everything still pending runs and every buffer is released. */
  @Override
  public void close() {
    channel.close();
    channel.runPendingTasks();
    channel.finishAndReleaseAll();
  }

  /** An embedded channel with the socket addresses the leg records. */
  private static final class ClientConnection extends EmbeddedChannel {
    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 8080);
    private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 50000);

    @Override
    protected SocketAddress localAddress0() {
      return LOCAL;
    }

    @Override
    protected SocketAddress remoteAddress0() {
      return REMOTE;
    }
  }

  /** Runs every task on the caller's thread at once. */
  private static final class InlineExecutor extends AbstractExecutorService {
    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return false;
    }

    @Override
    public boolean isTerminated() {
      return false;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }
}
