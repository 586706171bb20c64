package dev.loupe.ca;

import static java.util.Objects.requireNonNull;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A minted server certificate for one host, with everything a TLS server needs to present it.
 *
 * <p>{@link #privateKey()} is the leaf key shared by every leaf of the same {@link
 * CertificateAuthority} (see there). {@link #issuer()} is the root CA certificate; clients must
 * already trust it, but sending it in the chain is harmless and helps tools that show the chain.
 *
 * <p>Immutable and thread-safe; instances come from a cache and are shared, so callers must not
 * mutate the certificates' encodings.
 *
 * @param host the normalised host it was minted for: lowercase, ASCII (IDN in punycode), without
 *     IPv6 brackets or a trailing dot
 * @param privateKey the leaf private key
 * @param certificate the leaf certificate
 * @param issuer the CA certificate that signed {@code certificate}
 */
public record LeafCertificate(
    String host, PrivateKey privateKey, X509Certificate certificate, X509Certificate issuer) {

  /** Validates that no component is null. */
  public LeafCertificate {
    requireNonNull(host, "host");
    requireNonNull(privateKey, "privateKey");
    requireNonNull(certificate, "certificate");
    requireNonNull(issuer, "issuer");
  }

  /** The chain to send in the TLS handshake: {@code [leaf, ca]}. */
  public List<X509Certificate> chain() {
    return List.of(certificate, issuer);
  }
}
