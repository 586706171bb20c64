package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.internal.tls.TlsProviders;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.Socket;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The TLS client context for the server leg: verifies origins against the JDK trust store plus the
 * user's extra CAs ({@code --trust-ca}), with host name checking, unless {@code --insecure}.
 */
public final class UpstreamTls {
  private UpstreamTls() {}

  /** Contexts offering http/1.1, h2 then http/1.1, and h2 only. */
  public static dev.loupe.engine.internal.upstream.UpstreamConnector.UpstreamTlsContexts contexts(
      List<X509Certificate> extraCas, boolean insecure) {
    return new dev.loupe.engine.internal.upstream.UpstreamConnector.UpstreamTlsContexts(
        clientContext(extraCas, insecure, ApplicationProtocolNames.HTTP_1_1),
        clientContext(extraCas, insecure, ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1),
        clientContext(extraCas, insecure, ApplicationProtocolNames.HTTP_2));
  }

  public static SslContext clientContext(List<X509Certificate> extraCas, boolean insecure) {
    return clientContext(extraCas, insecure, ApplicationProtocolNames.HTTP_1_1);
  }

  static SslContext clientContext(List<X509Certificate> extraCas, boolean insecure, String... alpn) {
    try {
      SslContextBuilder b = SslContextBuilder.forClient()
          .sslProvider(TlsProviders.preferred())
          .protocols("TLSv1.3", "TLSv1.2")
          .endpointIdentificationAlgorithm(insecure ? null : "HTTPS")
          .applicationProtocolConfig(new ApplicationProtocolConfig(
              ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
              alpn));
      if (insecure) {
        b.trustManager(InsecureTrustManagerFactory.INSTANCE);
      } else {
        b.trustManager(trustManager(extraCas));
      }
      return b.build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot build the upstream TLS context", e);
    }
  }

  /**
   * The QUIC (HTTP/3) client context: same trust as the TCP contexts (JDK default plus the extra
   * CAs, or none when insecure), host name checking on unless insecure, ALPN {@code h3}.
   */
  public static io.netty.handler.codec.quic.QuicSslContext quicClientContext(List<X509Certificate> extraCas,
      boolean insecure) {
    var b = io.netty.handler.codec.quic.QuicSslContextBuilder.forClient()
        .applicationProtocols("h3")
        // Netty's QUIC client checks host names only when told to (and its default has varied).
        .endpointIdentificationAlgorithm(insecure ? null : "HTTPS");
    if (insecure) {
      b.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else {
      b.trustManager(trustManager(extraCas));
    }
    return b.build();
  }

  /** JDK default trust, then the extra CAs. Host name checks are done by the delegates. */
  static X509ExtendedTrustManager trustManager(List<X509Certificate> extraCas) {
    try {
      List<X509ExtendedTrustManager> delegates = new ArrayList<>();
      delegates.add(firstExtended(null));
      if (!extraCas.isEmpty()) {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        int i = 0;
        for (X509Certificate ca : extraCas) {
          ks.setCertificateEntry("extra-" + i++, ca);
        }
        delegates.add(firstExtended(ks));
      }
      return new Composite(delegates);
    } catch (Exception e) {
      throw new IllegalStateException("cannot build the upstream trust store", e);
    }
  }

  private static X509ExtendedTrustManager firstExtended(KeyStore ks) throws Exception {
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    for (TrustManager tm : tmf.getTrustManagers()) {
      if (tm instanceof X509ExtendedTrustManager x) {
        return x;
      }
    }
    throw new IllegalStateException("no X509ExtendedTrustManager available");
  }

  private static final class Composite extends X509ExtendedTrustManager {
    private final List<X509ExtendedTrustManager> delegates;

    Composite(List<X509ExtendedTrustManager> delegates) {
      this.delegates = List.copyOf(delegates);
    }

    private interface Check {
      void run(X509ExtendedTrustManager tm) throws CertificateException;
    }

    private void anyOf(Check check) throws CertificateException {
      CertificateException best = null;
      for (X509ExtendedTrustManager tm : delegates) {
        try {
          check.run(tm);
          return;
        } catch (CertificateException e) {
          // A delegate that anchored the chain but rejected it for another reason (the name) knows more.
          if (best == null || isPathFailure(best) && !isPathFailure(e)) {
            best = e;
          }
        }
      }
      throw best;
    }

    private static boolean isPathFailure(CertificateException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof java.security.cert.CertPathBuilderException
            || t instanceof java.security.cert.CertPathValidatorException) {
          return true;
        }
      }
      return false;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      anyOf(tm -> tm.checkServerTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      anyOf(tm -> tm.checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      anyOf(tm -> tm.checkServerTrusted(chain, authType));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      throw new CertificateException("client certificates are not accepted here");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      throw new CertificateException("client certificates are not accepted here");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
      throw new CertificateException("client certificates are not accepted here");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      List<X509Certificate> all = new ArrayList<>();
      for (X509ExtendedTrustManager tm : delegates) {
        all.addAll(List.of(tm.getAcceptedIssuers()));
      }
      return all.toArray(new X509Certificate[0]);
    }
  }
}
