/**
 * Loupe's certificate authority: the root CA that users trust (created once, persisted in the
 * configuration directory) and the per-host leaf certificates the proxy presents when it
 * intercepts TLS.
 *
 * <p>Entry point: {@link dev.loupe.ca.CertificateAuthority#loadOrCreate(java.nio.file.Path)} with
 * {@link dev.loupe.ca.ConfigDirectory#defaultDirectory()}; then {@link
 * dev.loupe.ca.CertificateAuthority#leafFor(String)} per TLS handshake. The public API exposes
 * only JDK types ({@code X509Certificate}, {@code PrivateKey}, {@code Path}); Bouncy Castle stays in
 * {@code dev.loupe.ca.internal.bc}, which no other module may use.
 *
 * <p>Failures are {@link dev.loupe.ca.CaException}s naming the file involved, or {@code
 * IllegalArgumentException} for a host that is not a DNS name or IP literal. Parameters and return
 * values are never null unless documented otherwise.
 */
package dev.loupe.ca;
