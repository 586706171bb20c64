package dev.loupe.testing;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.LeafCertificate;
import dev.loupe.engine.api.CertificateSource;
import dev.loupe.engine.api.ServerCertificate;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Certificates for tests: Loupe's own CA (what clients trust), an origin CA (what Loupe trusts
 * for upstream verification) and an untrusted CA (an origin nobody should trust). All real, made
 * by the production {@link CertificateAuthority} in temp directories.
 */
public final class TestPki {
  private static volatile TestPki shared;

  private final Path dir;
  private final CertificateAuthority loupeCa;
  private final CertificateAuthority originCa;
  private final CertificateAuthority untrustedCa;
  private final Map<String, SslContext> originContexts = new ConcurrentHashMap<>();

  private TestPki(Path dir) {
    this.dir = dir;
    this.loupeCa = CertificateAuthority.loadOrCreate(dir.resolve("loupe"));
    this.originCa = CertificateAuthority.loadOrCreate(dir.resolve("origin"));
    this.untrustedCa = CertificateAuthority.loadOrCreate(dir.resolve("untrusted"));
  }

  /** One PKI per test JVM (creating CAs costs a little; sharing them costs nothing). */
  public static TestPki shared() {
    if (shared == null) {
      synchronized (TestPki.class) {
        if (shared == null) {
          try {
            Path d = Files.createTempDirectory("loupe-test-pki");
            d.toFile().deleteOnExit();
            shared = new TestPki(d);
          } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
          }
        }
      }
    }
    return shared;
  }

  public CertificateAuthority loupeCa() { return loupeCa; }

  public CertificateAuthority originCa() { return originCa; }

  public CertificateAuthority untrustedCa() { return untrustedCa; }

  public Path dir() { return dir; }

  /** Loupe's certificate source, backed by the Loupe test CA. */
  public CertificateSource loupeSource() {
    return host -> {
      LeafCertificate leaf = loupeCa.leafFor(host);
      return new ServerCertificate(leaf.privateKey(), leaf.chain());
    };
  }

  /** A server context for an origin presenting a certificate for {@code host} from {@code ca}. */
  public SslContext originContext(CertificateAuthority ca, String host) {
    return originContexts.computeIfAbsent(ca.certificatePath() + "|" + host, k -> {
      try {
        LeafCertificate leaf = ca.leafFor(host);
        return SslContextBuilder.forServer(leaf.privateKey(), leaf.chain().toArray(new X509Certificate[0])).build();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /** A JDK client context trusting only Loupe's CA (what a user's client does after trusting Loupe). */
  public SSLContext clientTrustingLoupe() {
    return trusting(loupeCa.certificate());
  }

  public static SSLContext trusting(X509Certificate... cas) {
    try {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(null, null);
      int i = 0;
      for (X509Certificate ca : cas) {
        ks.setCertificateEntry("ca" + i++, ca);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
