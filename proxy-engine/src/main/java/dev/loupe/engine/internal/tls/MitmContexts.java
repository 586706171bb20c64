package dev.loupe.engine.internal.tls;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.ServerCertificate;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

/**
 * Server-side TLS contexts for intercepted hosts: one per host, built from the
 * {@link CertificateSource} off the event loop, cached (LRU) and single-flight, so a burst of
 * connections to a new host builds one context.
 *
 * <h3>Closing</h3>
 * A connection waiting for its context holds its ClientHello until the lookup's promise completes
 * (Netty's SNI handler releases it in the promise's listener, which runs on the connection's event
 * loop). A context still being built when the engine closes would complete after the event loops
 * have ended, so that listener would never run and the ClientHello would leak. {@link #close} fails
 * every waiting promise first, while the loops still run; later lookups fail at once.
 */
public final class MitmContexts {
  private static final int CAPACITY = 512;

  private final CertificateSource certificates;
  private final ExecutorService executor;
  private final Map<String, CompletableFuture<SslContext>> cache =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<SslContext>> eldest) {
          return size() > CAPACITY;
        }
      };

  /** Promises handed out and not yet completed. */
  private final Set<Promise<SslContext>> waiting = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  public MitmContexts(CertificateSource certificates, ExecutorService executor) {
    this.certificates = certificates;
    this.executor = executor;
  }

  /**
   * Starts building the context for {@code host} now, off the calling thread, unless it is cached or
   * being built: for a host every client is known to ask for (reverse mode's default certificate
   * host), so the first connections find it made or in progress instead of each waiting for a
   * context build (and the first use of the TLS provider) behind their handshake.
   */
  public void prepare(String host) {
    if (closed) {
      return;
    }
    String key = normalise(host);
    synchronized (cache) {
      CompletableFuture<SslContext> f = cache.get(key);
      if (f == null || f.isCompletedExceptionally()) {
        cache.put(key, CompletableFuture.supplyAsync(() -> build(key), executor));
      }
    }
  }

  /** Completes {@code promise} with the context for {@code host} (normalised, no brackets). */
  public Future<SslContext> contextFor(String host, Promise<SslContext> promise) {
    if (closed) {
      return promise.setFailure(new IllegalStateException("Loupe is shutting down"));
    }
    waiting.add(promise);
    promise.addListener(done -> waiting.remove(promise));
    if (closed) { // closed between the look and the add: close() may not have seen it
      promise.tryFailure(new IllegalStateException("Loupe is shutting down"));
      return promise;
    }
    String key = normalise(host);
    CompletableFuture<SslContext> f;
    synchronized (cache) {
      f = cache.get(key);
      if (f == null || f.isCompletedExceptionally()) {
        f = CompletableFuture.supplyAsync(() -> build(key), executor);
        cache.put(key, f);
      }
    }
    f.whenComplete((ctx, err) -> {
      if (err != null) {
        promise.tryFailure(err instanceof java.util.concurrent.CompletionException && err.getCause() != null
            ? err.getCause() : err);
      } else {
        promise.trySuccess(ctx);
      }
    });
    return promise;
  }

  /**
   * Fails every lookup still waiting for its context (see the class comment), and every later one.
   * Call it before the event loops shut down.
   */
  public void close() {
    closed = true;
    for (Promise<SslContext> p : waiting) {
      p.tryFailure(new IllegalStateException("Loupe is shutting down"));
    }
  }

  private SslContext build(String host) {
    ServerCertificate cert = certificates.certificateFor(host);
    try {
      return SslContextBuilder.forServer(cert.privateKey(), cert.chain().toArray(new X509Certificate[0]))
          .sslProvider(TlsProviders.preferred())
          .protocols("TLSv1.3", "TLSv1.2")
          .applicationProtocolConfig(new ApplicationProtocolConfig(
              ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
              ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1))
          .build();
    } catch (Exception e) {
      throw new IllegalStateException("cannot build a TLS context for " + host + ": " + e.getMessage(), e);
    }
  }

  static String normalise(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.endsWith(".")) {
      h = h.substring(0, h.length() - 1);
    }
    return h;
  }
}
