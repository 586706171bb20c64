package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.FlowError;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.proxy.ProxyConnectException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * How a failure to reach an origin reads on its flow: a {@link FlowError} of the right kind naming
 * the cause and where it happened (the origin, or the upstream proxy on its way). Pure.
 */
final class UpstreamErrors {
  private UpstreamErrors() {}

  /** DNS found nothing for {@code lookup} (the origin, or the upstream proxy when {@code viaProxy}). */
  static FlowError dns(String lookup, boolean viaProxy) {
    return new FlowError(FlowError.Kind.DNS, "DNS lookup failed for " + lookup + (viaProxy ? " (the upstream proxy)" : ""));
  }

  /** TCP to {@code host:port} failed. */
  static FlowError connect(Throwable cause, String host, int port) {
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

  /** What went wrong reaching {@code host:port} through {@code proxy}, naming the proxy. */
  static FlowError proxy(Throwable cause, String host, int port, EngineConfig.UpstreamProxy proxy) {
    String via = " via upstream proxy " + proxy;
    if (cause instanceof HttpProxyHandler.HttpProxyConnectException e) {
      // "http, none, proxy:3128 => host:443, status: 403 Forbidden"
      String m = String.valueOf(e.getMessage());
      int status = m.indexOf("status: ");
      return new FlowError(FlowError.Kind.CONNECT, "upstream proxy " + proxy + " refused CONNECT " + host + ":" + port
          + (status >= 0 ? " (" + m.substring(status + 8) + ")" : ": " + m));
    }
    if (cause instanceof ProxyConnectException e && e.getMessage() != null && e.getMessage().contains("timeout")) {
      return new FlowError(FlowError.Kind.CONNECT_TIMEOUT, "timed out connecting to " + host + ":" + port + via);
    }
    FlowError direct = connect(cause, proxy.host(), proxy.port());
    return new FlowError(direct.kind(), direct.message() + " (the upstream proxy, for " + host + ":" + port + ")");
  }

  /** The TLS handshake with {@code host:port} failed: an untrusted certificate, or another cause. */
  static FlowError tls(Throwable cause, String host, int port) {
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

  /** The deepest cause's message (or its class name). */
  static String rootMessage(Throwable t) {
    Throwable r = t;
    while (r.getCause() != null && r.getCause() != r) {
      r = r.getCause();
    }
    String m = r.getMessage();
    return m == null ? r.getClass().getSimpleName() : m;
  }
}
