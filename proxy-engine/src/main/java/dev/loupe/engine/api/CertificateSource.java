package dev.loupe.engine.api;

/**
 * Where TLS interception gets its certificates. The engine never imports the certificate
 * authority; the application wires one in. Implementations must be thread-safe and may block
 * (they are called off the event loop) — minting should still be fast (≈2 ms) and cached.
 */
@FunctionalInterface
public interface CertificateSource {
  /**
   * The certificate to present for {@code host}: a DNS name or an IP literal (IPv6 without
   * brackets), taken from the client's SNI, or from the CONNECT target when there is no SNI.
   */
  ServerCertificate certificateFor(String host);
}
