package dev.loupe.engine.internal.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.util.Locale;

/**
 * Which TLS implementation the engine uses on both legs: BoringSSL (netty-tcnative) when its native
 * library loads on this platform, else the JDK's. BoringSSL takes about half the CPU per handshake
 * and much less per record (AES-GCM in assembly, no per-record SSLEngine locking); the JDK provider
 * is the fallback everywhere else. {@code -Dloupe.tls.provider=jdk} forces the JDK (troubleshooting).
 */
public final class TlsProviders {
  private static final SslProvider PREFERRED = choose();

  private TlsProviders() {}

  /** The provider for every context the engine builds. */
  public static SslProvider preferred() {
    return PREFERRED;
  }

  /** A short name for logs and the startup banner: {@code BoringSSL} or {@code JDK}. */
  public static String describe() {
    return PREFERRED == SslProvider.OPENSSL ? OpenSsl.versionString() : "JDK";
  }

  private static SslProvider choose() {
    String forced = System.getProperty("loupe.tls.provider", "").toLowerCase(Locale.ROOT);
    if (forced.equals("jdk")) {
      return SslProvider.JDK;
    }
    return OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL)
        ? SslProvider.OPENSSL : SslProvider.JDK;
  }
}
