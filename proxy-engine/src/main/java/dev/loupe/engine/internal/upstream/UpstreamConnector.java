package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.internal.protocol.http1.CompactHttpHeaders;
import dev.loupe.engine.internal.protocol.http1.OriginCodec;
import dev.loupe.engine.internal.record.RecordedFlow;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Server-leg connections, whatever the protocol: {@link #acquire} gives an exchange a connection
 * (an HTTP/1.1 connection, an HTTP/2 or HTTP/3 stream) to its origin, {@link #release} takes it
 * back. A connection lives on the event loop of the client leg that asked for it (no thread hops
 * while relaying), so each loop has its own pools, touched only from that loop: {@link Http1Pool},
 * {@link Http2Upstreams}, {@link Http3Upstreams}. New connections come from the {@link Dialer}
 * (DNS, TCP, the upstream proxy, TLS); Alt-Svc discovery ({@link AltSvcCache}) may send an https
 * exchange over HTTP/3. Setup steps are timed on the flow; failures become {@link FlowError}s
 * naming the cause and the host ({@link UpstreamErrors}).
 */
public final class UpstreamConnector {
  /** The handler that currently owns a pooled channel's events; swapped per exchange. */
  public static final String LEG = "server-leg";
  public static final String CODEC = "http-client-codec";
  public static final String TLS = Dialer.TLS;

  /** Outcome of {@link #acquire}: a connection, or the error that prevented it. */
  public record Result(UpstreamConnection connection, FlowError error) {}

  /** The TLS client contexts by ALPN offer. */
  public record UpstreamTlsContexts(SslContext h1, SslContext h2OrH1, SslContext h2Only) {}

  /**
   * What the server leg may speak: HTTP/1.1 only, HTTP/2 only, HTTP/2 when the origin agrees, or
   * HTTP/3 (QUIC) only.
   */
  public enum Want { H1, H2, H2_OR_H1, H3 }

  private final SslContext tls;
  private final SslContext tlsOfferingH2;
  private final SslContext tlsH2Only;
  private final Supplier<Http2FrameCodec> h2Codec;
  private final int maxInitialLine;
  private final int maxHeaderSize;
  private final int maxChunkSize;
  private final PredialedConnections predialed = new PredialedConnections();
  private final Dialer dialer;
  private final Http1Pool h1;
  private final Http2Upstreams h2 = new Http2Upstreams();
  /** Origins that answered ALPN with http/1.1 (or nothing): not offered h2 again. Bounded. */
  private final Map<String, Boolean> h1Only = new ConcurrentHashMap<>();

  /** The HTTP/3 pool, when the engine has one (see {@link #http3(Http3Upstreams)}). */
  private volatile Http3Upstreams h3;
  /** Origins' advertised HTTP/3 alternatives and broken marks (discovery on). */
  private final AltSvcCache altSvc = new AltSvcCache();
  /** Discovery: the QUIC handshake budget before falling back to TCP; null when discovery is off. */
  private volatile Duration h3Budget;
  private Supplier<Http3Upstreams> h3Factory;
  /** Why the HTTP/3 pool could not be made (no native QUIC for this platform...), or null. */
  private volatile String h3Unavailable;

  public UpstreamConnector(UpstreamTlsContexts tls, Supplier<Http2FrameCodec> h2Codec, boolean verified,
      Executor dnsExecutor, Duration connectTimeout, Duration idleTimeout, int maxIdlePerOrigin, int maxInitialLine,
      int maxHeaderSize, int maxChunkSize, EngineConfig.UpstreamProxy upstreamProxy) {
    this.tls = tls.h1();
    this.tlsOfferingH2 = tls.h2OrH1();
    this.tlsH2Only = tls.h2Only();
    this.h2Codec = h2Codec;
    this.maxInitialLine = maxInitialLine;
    this.maxHeaderSize = maxHeaderSize;
    this.maxChunkSize = maxChunkSize;
    this.dialer = new Dialer(dnsExecutor, connectTimeout, verified, upstreamProxy, predialed);
    this.h1 = new Http1Pool(idleTimeout, maxIdlePerOrigin);
  }

  public static String key(String scheme, String host, int port) {
    LastKey last = LAST_KEY.get();
    if (last.port == port && host.equals(last.host) && scheme.equals(last.scheme)) {
      return last.key; // the same origin as this thread's last request: no new String
    }
    String key = scheme + "://" + host + ":" + port;
    last.scheme = scheme;
    last.host = host;
    last.port = port;
    last.key = key;
    return key;
  }

  /** The last pool key a thread made (an event loop relays to few origins, most often one). */
  private static final class LastKey {
    String scheme = "";
    String host = "";
    int port = -1;
    String key;
  }

  private static final FastThreadLocal<LastKey> LAST_KEY = new FastThreadLocal<>() {
    @Override
    protected LastKey initialValue() {
      return new LastKey();
    }
  };

  // ---- connections dialled ahead for an eager CONNECT ----------------------------------------

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
      if (h1.hasIdle(loop, k) || h2.hasConnection(loop, k)) {
        return true;
      }
    }
    return false;
  }

  // ---- HTTP/3 and Alt-Svc discovery ----------------------------------------------------------

  /** Enables {@link Want#H3}. Call once, before the first acquire. */
  public void http3(Http3Upstreams pool) {
    this.h3 = pool;
  }

  /**
   * Enables Alt-Svc discovery ({@code --upstream-protocol auto}): {@link #advertised} remembers
   * origins' {@code h3} alternatives and {@link #acquire(EventLoop, String, String, int, Flow, Want, boolean)}
   * tries HTTP/3 for them, falling back to TCP when QUIC is not up within {@code handshakeBudget}.
   * The pool is made on first use. Call once, before the first acquire.
   */
  public void http3Discovery(Supplier<Http3Upstreams> factory, Duration handshakeBudget) {
    this.h3Factory = factory;
    this.h3Budget = handshakeBudget;
  }

  private synchronized Http3Upstreams discoveryPool() {
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
  public synchronized Http3Upstreams http3Pool(Supplier<Http3Upstreams> fallback) {
    if (h3 == null && h3Unavailable == null) {
      Supplier<Http3Upstreams> make = h3Factory != null ? h3Factory : fallback;
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
    altSvc.advertised(key, AltSvc.parse(altSvcValues), ageSeconds, System.nanoTime());
  }

  /** Origins the Alt-Svc cache remembers, for tests. */
  public int altSvcOrigins() {
    return altSvc.size();
  }

  // ---- acquire and release -------------------------------------------------------------------

  /**
   * {@link #acquire(EventLoop, String, String, int, Flow, Want)}, first over HTTP/3 when
   * {@code discover}, discovery is on, and the https origin advertised {@code h3} (not marked
   * broken): its QUIC connection must be up within the handshake budget, else this request goes
   * to TCP ({@code want}) and the origin's HTTP/3 is marked broken for a while. The decision is made
   * before any request byte is sent. Records on the flow why HTTP/3 was or was not used
   * ({@link Flow#http3Status()}).
   */
  public Future<Result> acquire(EventLoop loop, String scheme, String host, int port, RecordedFlow flow, Want want,
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
    Http3Upstreams pool = discoveryPool();
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

  /** {@link #acquire(EventLoop, String, String, int, Flow, Want)} for HTTP/1.1. */
  public Future<Result> acquire(EventLoop loop, String scheme, String host, int port, RecordedFlow flow) {
    return acquire(loop, scheme, host, port, flow, Want.H1);
  }

  /**
   * A connection to {@code scheme://host:port} on {@code loop}, from the pool when one is idle.
   * Completes on {@code loop}.
   */
  public Future<Result> acquire(EventLoop loop, String scheme, String host, int port, RecordedFlow flow, Want want) {
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
    UpstreamConnection idle = h1.take(loop, key);
    if (idle != null) {
      return promise.setSuccess(new Result(idle, null));
    }
    dial(loop, key, host, port, scheme.equals("https"), Want.H1, flow, null).addListener(f -> {
      Connected c = (Connected) f.getNow();
      promise.trySuccess(new Result(c.h1(), c.error()));
    });
    return promise;
  }

  /**
   * Returns a connection after a complete exchange: parked in the pool when {@code reusable}, else
   * closed. Must run on the connection's event loop. The caller has already removed its own leg
   * handler; a parked connection gets an idle handler that closes it on any unexpected byte.
   */
  public void release(UpstreamConnection c, boolean reusable) {
    Channel ch = c.channel();
    if (ch instanceof QuicStreamChannel stream) {
      // An HTTP/3 stream: reset (H3_REQUEST_CANCELLED) unless its exchange completed.
      Http3Upstreams.release(stream, reusable);
      return;
    }
    if (c.multiplexed() || !reusable || !ch.isActive()) {
      ch.close(); // an HTTP/2 stream: closing it resets it if still open; the connection stays pooled
      return;
    }
    h1.park(c);
  }

  // ---- HTTP/2 ------------------------------------------------------------------------------

  /**
   * Serves the acquires waiting on {@code origin} in order: a free stream slot first; else a new
   * connection when {@link Http2Upstreams.Origin#shouldDial()}; else they keep waiting for a
   * connect in progress or a stream to end. A dial that fails while another connection stands or
   * is being dialled sends its acquire back to the head of the queue (see {@link Http2Upstreams}).
   * Waiters for "h2 or h1" go to the HTTP/1.1 pool once the origin declined h2.
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
        Connected c = (Connected) f.getNow();
        if (c.h2() != null) {
          openStream(origin, c.h2(), key, w.promise());
        } else if (c.error() != null && origin.connectedOrConnecting()) {
          // One more connection failed while others to the origin stand or are on their way: not
          // this request's failure. It waits for a stream on those, first in line.
          origin.holdDials();
          origin.waiters.addFirst(w);
        } else {
          w.promise().trySuccess(new Result(c.h1(), c.error()));
        }
        dispatchH2(loop, key, origin);
      });
    }
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

  // ---- a new connection --------------------------------------------------------------------

  /** What a new connection became: an HTTP/1.1 connection, a pooled HTTP/2 connection, or an error. */
  private record Connected(UpstreamConnection h1, Http2Upstreams.Parent h2, FlowError error) {}

  /**
   * Dials {@code host:port} with the ALPN offer {@code want} asks for, then makes the connection
   * what the origin agreed to: an HTTP/2 connection in {@code origin}'s pool (h2 by ALPN, or forced
   * h2c), an HTTP/1.1 connection with its codec, or (key {@code tcp:}) a raw one. Completes on
   * {@code loop}.
   */
  private Future<Connected> dial(EventLoop loop, String key, String host, int port, boolean https, Want want,
      RecordedFlow flow, Http2Upstreams.Origin origin) {
    Promise<Connected> promise = loop.newPromise();
    SslContext context = !https ? null : want == Want.H2 ? tlsH2Only : want == Want.H2_OR_H1 ? tlsOfferingH2 : tls;
    dialer.dial(loop, host, port, context, flow).addListener(f -> {
      Dialer.Dialed d = (Dialer.Dialed) f.getNow();
      if (d.error() != null) {
        promise.trySuccess(new Connected(null, null, d.error()));
        return;
      }
      Channel ch = d.channel();
      if (!https) {
        if (want == Want.H2) {
          // Forced HTTP/2 to a cleartext origin: h2c with prior knowledge (RFC 9113 §3.3).
          promise.trySuccess(new Connected(null, h2.register(origin, ch, d.info(), h2Codec), null));
          return;
        }
        if (!key.startsWith("tcp:")) {
          ch.pipeline().addLast(CODEC, codec());
        }
        promise.trySuccess(new Connected(new UpstreamConnection(ch, key, d.info()), null, null));
        return;
      }
      if ("h2".equals(d.alpn())) {
        if (h3Budget != null) {
          // ALTSVC frames (RFC 7838 §4) feed the Alt-Svc cache like the header field. One on
          // stream 0 names its origin: only this connection's own is taken (no coalescing here).
          ch.attr(AltSvcFrames.SINK).set((named, value) -> {
            if (named == null || AltSvcFrames.sameOrigin(named, host, port)) {
              advertised(key, List.of(value), null);
            }
          });
        }
        promise.trySuccess(new Connected(null, h2.register(origin, ch, d.info(), h2Codec), null));
        return;
      }
      if (want == Want.H2) {
        ch.close();
        promise.trySuccess(new Connected(null, null, new FlowError(FlowError.Kind.SERVER_PROTOCOL,
            host + ":" + port + " does not speak HTTP/2 (ALPN: " + d.alpn() + ")")));
        return;
      }
      if (want == Want.H2_OR_H1 && h1Only.size() < 10_000) {
        h1Only.put(key, Boolean.TRUE);
      }
      ch.pipeline().addLast(CODEC, codec());
      promise.trySuccess(new Connected(new UpstreamConnection(ch, key, d.info()), null, null));
    });
    return promise;
  }

  private OriginCodec codec() {
    return new OriginCodec(new HttpDecoderConfig()
        .setMaxInitialLineLength(maxInitialLine)
        .setMaxHeaderSize(maxHeaderSize)
        .setMaxChunkSize(maxChunkSize)
        .setHeadersFactory(CompactHttpHeaders.HEADERS)
        .setTrailersFactory(CompactHttpHeaders.TRAILERS));
  }

  // ---- metrics and shutdown ------------------------------------------------------------------

  /** Number of idle pooled connections (all loops), for tests and metrics. */
  public int idleCount() {
    return h1.idleCount();
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
    h1.closeAll();
  }
}
