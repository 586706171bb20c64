package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.internal.http3.Http3ResetGuard;
import dev.loupe.engine.internal.http3.Http3StreamEnd;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.ConnectionIds;
import dev.loupe.engine.internal.transport.Transports;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ClientConnectionHandler;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.http3.Http3FrameToHttpObjectCodec;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicException;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamResetException;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The HTTP/3 side of the server-leg pool: one QUIC connection per origin and event loop (each on
 * its own UDP socket), every exchange a new request stream on it, behind Netty's
 * {@link Http3FrameToHttpObjectCodec} so the existing server leg reads HTTP messages as it does
 * for HTTP/2. Acquires made while the connection is being set up wait for it (one handshake per
 * origin, not one per request). Streams beyond the origin's MAX_STREAMS credit wait for it (QUIC
 * grants more as streams end). A connection that closed, failed or received GOAWAY leaves the
 * pool; an origin that vanishes is cleaned up by QUIC's idle timeout (the pool idle timeout): the
 * connection closes, its UDP socket with it, and the origin's entry leaves the pool once nothing
 * waits on it (no entry outlives its connection, so the pool is bounded by the origins in use).
 *
 * <p>A handshake that misses an acquire's budget goes on; when it completes after all, the
 * acquire's {@code onLateConnect} runs (discovery clears the origin's broken mark) and the
 * connection serves the next requests.
 *
 * <p>The origin's certificate is verified like TCP TLS (JDK trust plus the configured CAs, host
 * name checked) unless {@code --insecure}.
 *
 * <p>Event-loop confined per loop.
 */
public final class Http3Upstreams {
  private static final long CONNECTION_WINDOW = 16L << 20;
  private static final long STREAM_WINDOW = 2L << 20;

  private final QuicSslContext tls;
  private final boolean verified;
  private final Executor dnsExecutor;
  private final Duration connectTimeout;
  private final Duration idleTimeout;
  private final Map<EventLoop, Map<String, Origin>> origins = new ConcurrentHashMap<>();

  public Http3Upstreams(QuicSslContext tls, boolean verified, Executor dnsExecutor, Duration connectTimeout,
      Duration idleTimeout) {
    this.tls = tls;
    this.verified = verified;
    this.dnsExecutor = dnsExecutor;
    this.connectTimeout = connectTimeout;
    this.idleTimeout = idleTimeout;
  }

  /** One origin's connection on one loop, and the acquires waiting for it to be set up. */
  private static final class Origin {
    final EventLoop loop;
    final String poolKey;
    QuicChannel quic;
    Http3ClientConnectionHandler http3;
    ConnectionInfo info;
    int opened;
    /** A DNS lookup and handshake in progress (it goes on when every waiter gave up). */
    boolean dialing;
    final List<Promise<QuicChannel>> waiting = new ArrayList<>();
    /** Stream opens waiting for the origin's stream credit (MAX_STREAMS). */
    final java.util.ArrayDeque<Runnable> waitingForStream = new java.util.ArrayDeque<>();
    /** Run when the dial in progress succeeds: acquires that gave up on it within their budget. */
    final List<Runnable> onLateConnect = new ArrayList<>();

    Origin(EventLoop loop, String poolKey) {
      this.loop = loop;
      this.poolKey = poolKey;
    }

    /** Opens waiting streams while the origin allows more. */
    void drainStreamWaiters() {
      while (!waitingForStream.isEmpty()
          && (quic == null || quic.peerAllowedStreams(io.netty.handler.codec.quic.QuicStreamType.BIDIRECTIONAL) > 0)) {
        waitingForStream.poll().run(); // with no connection left, each fails with the reason
      }
    }

    boolean usable() {
      return quic != null && quic.isActive() && !http3.isGoAwayReceived();
    }

    /** Nothing left on it: no connection, no dial, nobody waiting. */
    boolean unused() {
      return quic == null && !dialing && waiting.isEmpty() && waitingForStream.isEmpty();
    }
  }

  /** Drops {@code origin}'s pool entry when nothing is left on it. On its loop. */
  private void evictIfUnused(Origin origin) {
    if (!origin.unused()) {
      return;
    }
    Map<String, Origin> m = origins.get(origin.loop);
    if (m != null) {
      m.remove(origin.poolKey, origin);
    }
  }

  /** A request stream to {@code https://host:port} over HTTP/3. Completes on {@code loop}. */
  public Future<UpstreamConnector.Result> acquire(EventLoop loop, String host, int port, RecordedFlow flow) {
    return acquire(loop, host, port, host, port, flow, null, null);
  }

  /**
   * A request stream for the origin {@code https://host:port} over HTTP/3 at {@code altHost:altPort}
   * (its Alt-Svc alternative, or the origin itself), the certificate verified for {@code host}.
   * With a {@code handshakeBudget}, an acquire whose QUIC connection is not up within it fails
   * (CONNECT_TIMEOUT) while the handshake goes on for later ones; nothing has been sent for it then.
   * If that handshake completes after all, {@code onLateConnect} (may be null) runs on {@code loop}.
   * Completes on {@code loop}.
   */
  public Future<UpstreamConnector.Result> acquire(EventLoop loop, String host, int port, String altHost, int altPort,
      RecordedFlow flow, Duration handshakeBudget, Runnable onLateConnect) {
    Promise<UpstreamConnector.Result> result = loop.newPromise();
    String key = UpstreamConnector.key("https", host, port);
    String poolKey = altHost.equals(host) && altPort == port ? key : key + " via " + altHost + ":" + altPort;
    Origin origin = origins.computeIfAbsent(loop, l -> new ConcurrentHashMap<>()).computeIfAbsent(poolKey,
        k -> new Origin(loop, k));
    Promise<QuicChannel> connection = loop.newPromise();
    if (origin.usable()) {
      connection.setSuccess(origin.quic);
    } else {
      origin.waiting.add(connection);
      if (!origin.dialing) {
        origin.dialing = true;
        dial(loop, origin, host, altHost, altPort, flow, connection);
      }
      if (handshakeBudget != null) {
        String where = altHost + ":" + altPort;
        var timer = loop.schedule(() -> {
          if (origin.waiting.remove(connection)) {
            if (onLateConnect != null) {
              origin.onLateConnect.add(onLateConnect);
            }
            connection.tryFailure(new FlowErrorException(new FlowError(FlowError.Kind.CONNECT_TIMEOUT,
                "no QUIC handshake with " + where + " within " + handshakeBudget.toMillis() + " ms")));
          }
        }, handshakeBudget.toMillis(), TimeUnit.MILLISECONDS);
        connection.addListener(f -> timer.cancel(false));
      }
    }
    connection.addListener(f -> {
      if (!f.isSuccess()) {
        result.trySuccess(new UpstreamConnector.Result(null, f.cause() instanceof FlowErrorException e ? e.error
            : new FlowError(FlowError.Kind.CONNECT, "HTTP/3 to " + altHost + ":" + altPort + " failed: "
                + f.cause().getMessage())));
        return;
      }
      QuicChannel quic = (QuicChannel) f.getNow();
      flow.serverQuicConnectionId(ConnectionIds.quicHex(quic));
      if (quic.peerAllowedStreams(io.netty.handler.codec.quic.QuicStreamType.BIDIRECTIONAL) > 0
          && origin.waitingForStream.isEmpty()) {
        openStream(origin, quic, key, result, host, port);
      } else {
        origin.waitingForStream.add(() -> openStream(origin, quic, key, result, host, port));
      }
    });
    return result;
  }

  private void openStream(Origin origin, QuicChannel quic, String key, Promise<UpstreamConnector.Result> result,
      String host, int port) {
    boolean reused = origin.opened++ > 0;
    ConnectionInfo i = origin.info;
    Http3.newRequestStream(quic, new ChannelInitializer<QuicStreamChannel>() {
      @Override
      protected void initChannel(QuicStreamChannel stream) {
        stream.config().setAutoRead(false);
        stream.pipeline()
            .addLast("h3-up-guard", new UpstreamStreamGuard())
            .addLast(UpstreamConnector.CODEC, new Http3FrameToHttpObjectCodec(false));
        Http3StreamEnd.install(stream.pipeline(), UpstreamConnector.CODEC);
      }
    }).addListener(f -> {
      if (!f.isSuccess()) {
        result.trySuccess(new UpstreamConnector.Result(null, new FlowError(FlowError.Kind.SERVER_RESET,
            "cannot open an HTTP/3 stream to " + host + ":" + port + ": " + f.cause().getMessage())));
        return;
      }
      QuicStreamChannel stream = (QuicStreamChannel) f.getNow();
      result.trySuccess(new UpstreamConnector.Result(new UpstreamConnection(stream, key,
          new ConnectionInfo(i.id(), i.remoteAddress(), i.localAddress(), i.tls(), reused), "HTTP/3", true), null));
    });
  }

  /**
   * DNS (blocking executor), then a UDP socket and the QUIC handshake; completes the waiters. The
   * steps are timed on {@code flow} while {@code first} (its acquire) still waits: one that gave
   * up went to TCP, whose timings these must not overwrite.
   */
  private void dial(EventLoop loop, Origin origin, String host, String dialHost, int port, RecordedFlow flow,
      Promise<QuicChannel> first) {
    Timed timed = new Timed(flow, first);
    timed.mark(t -> t.dnsStart(System.nanoTime()));
    dnsExecutor.execute(() -> {
      InetAddress address;
      try {
        address = InetAddress.getByName(dialHost);
      } catch (UnknownHostException e) {
        loop.execute(() -> {
          timed.mark(t -> t.dnsEnd(System.nanoTime()));
          origin.dialing = false;
          fail(origin, new FlowError(FlowError.Kind.DNS, "DNS lookup failed for " + dialHost));
          evictIfUnused(origin);
        });
        return;
      }
      loop.execute(() -> {
        timed.mark(t -> t.dnsEnd(System.nanoTime()));
        handshake(loop, origin, host, new InetSocketAddress(address, port), timed);
      });
    });
  }

  /** Timings for the flow whose acquire started a dial, while that acquire waits for it. */
  private record Timed(RecordedFlow flow, Promise<QuicChannel> first) {
    void mark(java.util.function.Consumer<dev.loupe.engine.internal.record.RecordedTimings> step) {
      if (!first.isDone()) {
        step.accept(flow.timings());
      }
    }
  }

  private void handshake(EventLoop loop, Origin origin, String host, InetSocketAddress target, Timed timed) {
    timed.mark(t -> t.connectStart(System.nanoTime()));
    timed.mark(t -> t.tlsStart(System.nanoTime()));
    String where = (host.equals(target.getHostString()) ? host : host + " at " + target.getHostString())
        + ":" + target.getPort();
    var codec = Http3.newQuicClientCodecBuilder()
        .sslEngineProvider(q -> tls.newEngine(q.alloc(), host, target.getPort()))
        .maxIdleTimeout(idleTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .initialMaxData(CONNECTION_WINDOW)
        .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
        .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
        .initialMaxStreamsBidirectional(0) // no server-initiated request streams in HTTP/3
        .build();
    new Bootstrap().group(loop).channel(Transports.datagramChannel())
        .option(ChannelOption.SO_RCVBUF, 4 << 20)
        .option(ChannelOption.SO_SNDBUF, 4 << 20)
        .handler(codec)
        .bind(new InetSocketAddress(0))
        .addListener(bf -> {
          if (!bf.isSuccess()) {
            origin.dialing = false;
            fail(origin, new FlowError(FlowError.Kind.CONNECT, "cannot open a UDP socket for HTTP/3 to " + where
                + ": " + bf.cause().getMessage()));
            evictIfUnused(origin);
            return;
          }
          Channel udp = ((io.netty.channel.ChannelFuture) bf).channel();
          Http3ClientConnectionHandler http3 = new Http3ClientConnectionHandler();
          Future<QuicChannel> connect = QuicChannel.newBootstrap(udp)
              .handler(http3)
              .remoteAddress(target)
              .connect();
          // Out of time: closing the socket fails the pending connect (cancelling it instead makes
          // QUIC's own failure of the promise later throw "complete already").
          boolean[] timedOut = new boolean[1];
          var timeout = loop.schedule(() -> {
            timedOut[0] = true;
            udp.close();
          }, Math.max(connectTimeout.toMillis(), 10_000), TimeUnit.MILLISECONDS);
          connect.addListener(cf -> {
            timeout.cancel(false);
            origin.dialing = false;
            long now = System.nanoTime();
            timed.mark(t -> t.connectEnd(now));
            timed.mark(t -> t.tlsEnd(now));
            if (!cf.isSuccess()) {
              udp.close();
              origin.onLateConnect.clear();
              fail(origin, handshakeError(timedOut[0] || cf.isCancelled() ? null : cf.cause(), where));
              evictIfUnused(origin);
              return;
            }
            QuicChannel quic = (QuicChannel) cf.getNow();
            quic.closeFuture().addListener(c -> {
              udp.close();
              if (origin.quic == quic) {
                origin.quic = null;
              }
              origin.drainStreamWaiters();
              evictIfUnused(origin); // e.g. closed by QUIC's idle timer: the origin vanished or went unused
            });
            quic.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
              @Override
              public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                if (evt instanceof io.netty.handler.codec.quic.QuicStreamLimitChangedEvent) {
                  origin.drainStreamWaiters(); // the origin granted more streams
                }
                ctx.fireUserEventTriggered(evt);
              }
            });
            origin.quic = quic;
            origin.http3 = http3;
            origin.opened = 0;
            origin.info = new ConnectionInfo(ConnectionIds.next(), target,
                (InetSocketAddress) udp.localAddress(), tlsInfo(quic, host), false);
            List<Promise<QuicChannel>> ready = new ArrayList<>(origin.waiting);
            origin.waiting.clear();
            for (Promise<QuicChannel> p : ready) {
              p.trySuccess(quic);
            }
            List<Runnable> late = new ArrayList<>(origin.onLateConnect);
            origin.onLateConnect.clear();
            late.forEach(Runnable::run);
          });
        });
  }

  private void fail(Origin origin, FlowError error) {
    List<Promise<QuicChannel>> failed = new ArrayList<>(origin.waiting);
    origin.waiting.clear();
    for (Promise<QuicChannel> p : failed) {
      p.tryFailure(new FlowErrorException(error));
    }
  }

  private static FlowError handshakeError(Throwable cause, String where) {
    if (cause == null) {
      return new FlowError(FlowError.Kind.CONNECT_TIMEOUT, "no QUIC handshake with " + where
          + " in time (UDP blocked, or no HTTP/3 there?)");
    }
    for (Throwable t = cause; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (m.contains("CERTIFICATE_VERIFY_FAILED") || t instanceof java.security.cert.CertificateException) {
        return new FlowError(FlowError.Kind.TLS_VERIFY, "the certificate of " + where + " is not trusted: " + m);
      }
    }
    return new FlowError(FlowError.Kind.TLS_HANDSHAKE, "QUIC handshake with " + where + " failed: "
        + (cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName()));
  }

  private TlsInfo tlsInfo(QuicChannel quic, String host) {
    SSLSession s = quic.sslEngine() == null ? null : quic.sslEngine().getSession();
    List<X509Certificate> chain = new ArrayList<>();
    if (s != null) {
      try {
        for (Certificate c : s.getPeerCertificates()) {
          if (c instanceof X509Certificate x) {
            chain.add(x);
          }
        }
      } catch (SSLPeerUnverifiedException ignored) {
        // no chain
      }
    }
    return new TlsInfo(Dialer.isIpLiteral(host) ? null : host, s == null ? "TLSv1.3" : s.getProtocol(),
        s == null ? null : s.getCipherSuite(), "h3", chain, verified);
  }

  /** Open HTTP/3 origin connections (all loops), for tests and metrics. */
  public int connections() {
    int n = 0;
    for (Map<String, Origin> m : origins.values()) {
      for (Origin o : m.values()) {
        n += o.quic != null && o.quic.isActive() ? 1 : 0;
      }
    }
    return n;
  }

  /** Pool entries (origin and event loop) held, with or without a connection, for tests. */
  public int origins() {
    int n = 0;
    for (Map<String, Origin> m : origins.values()) {
      n += m.size();
    }
    return n;
  }

  /** Closes every origin connection (CONNECTION_CLOSE, H3_NO_ERROR). */
  public void closeAll() {
    for (Map.Entry<EventLoop, Map<String, Origin>> e : origins.entrySet()) {
      e.getKey().execute(() -> {
        for (Origin o : e.getValue().values()) {
          if (o.quic != null) {
            o.quic.close(true, Http3ErrorCode.H3_NO_ERROR.code(), io.netty.buffer.Unpooled.EMPTY_BUFFER);
          }
        }
      });
    }
  }

  /**
   * Resets an upstream request stream (the exchange ended early): H3_REQUEST_CANCELLED both ways.
   * A stream whose exchange completed is just closed.
   */
  public static void release(QuicStreamChannel stream, boolean complete) {
    if (!complete && stream.isActive()) {
      stream.shutdown(Http3ErrorCode.H3_REQUEST_CANCELLED.code()).addListener(f -> stream.close());
    } else {
      stream.close();
    }
  }

  private static final class FlowErrorException extends IOException {
    final FlowError error;

    FlowErrorException(FlowError error) {
      super(error.message());
      this.error = error;
    }
  }

  /**
   * In front of the HTTP/3 adapter on an origin stream: the adapter swallows QUIC exceptions and
   * then reports the response as ended at the input shutdown that follows — a reset stream would
   * pass for a complete, shorter body. Here a reset becomes an error the server leg sees (the
   * exchange fails with the origin's reset), and nothing more goes in.
   */
  private static final class UpstreamStreamGuard extends Http3ResetGuard {
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (failed) {
        return;
      }
      failed = true;
      String what = cause instanceof QuicStreamResetException r
          ? "the origin reset the HTTP/3 stream (" + codeName(r.applicationProtocolCode()) + ")"
          : cause instanceof QuicException ? "QUIC error: " + cause.getMessage()
          : cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
      // Past the adapter (it forwards what is not a QUIC/HTTP/3 exception) to the server leg.
      ctx.fireExceptionCaught(new IOException(what));
    }

    private static String codeName(long code) {
      for (Http3ErrorCode c : Http3ErrorCode.values()) {
        if (c.code() == code) {
          return c.name();
        }
      }
      return "0x" + Long.toHexString(code);
    }
  }
}
