package dev.loupe.engine.internal.http3;

import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.ServerCertificate;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.util.Mapping;
import java.security.cert.X509Certificate;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Server-side QUIC TLS contexts by SNI name, from the same {@link CertificateSource} as the TCP
 * listener (the Loupe CA, or the user's own certificate). BoringSSL asks for the context inside the
 * handshake, synchronously, so contexts are cached per host (LRU) and the default host's is made
 * before the listener opens.
 *
 * <p>ALPN offers {@code h3} only: offering Netty's whole list ({@code h3-29} first) makes clients
 * that still know the draft versions negotiate {@code h3-29}.
 */
public final class QuicServerContexts implements Mapping<String, QuicSslContext> {
  private static final int CAPACITY = 512;
  /** RFC 9114's ALPN id. */
  public static final String ALPN = "h3";

  private final CertificateSource certificates;
  private final String defaultHost;
  private final Map<String, QuicSslContext> cache = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, QuicSslContext> eldest) {
      return size() > CAPACITY;
    }
  };

  /** {@code defaultHost}: the name whose certificate a client without SNI (an IP literal) gets. */
  public QuicServerContexts(CertificateSource certificates, String defaultHost) {
    this.certificates = certificates;
    this.defaultHost = normalise(defaultHost);
    map(this.defaultHost); // warm: the first handshake should not mint
  }

  /** The context to give the QUIC server codec: it asks {@link #map} per handshake. */
  public QuicSslContext sniContext() {
    return QuicSslContextBuilder.buildForServerWithSni(this);
  }

  @Override
  public QuicSslContext map(String sni) {
    String host = sni == null || sni.isEmpty() ? defaultHost : normalise(sni);
    synchronized (cache) {
      QuicSslContext c = cache.get(host);
      if (c != null) {
        return c;
      }
    }
    QuicSslContext built = build(host);
    synchronized (cache) {
      QuicSslContext raced = cache.putIfAbsent(host, built);
      return raced != null ? raced : built;
    }
  }

  private QuicSslContext build(String host) {
    ServerCertificate cert = certificates.certificateFor(host);
    return QuicSslContextBuilder.forServer(cert.privateKey(), null, cert.chain().toArray(new X509Certificate[0]))
        .applicationProtocols(ALPN)
        .build();
  }

  private static String normalise(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
  }
}
