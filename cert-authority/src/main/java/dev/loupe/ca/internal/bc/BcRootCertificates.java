package dev.loupe.ca.internal.bc;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;

/**
 * Builds self-signed root CA certificates. Pure: no I/O, no global state; thread-safe.
 *
 * <p>Profile (see TECH-NOTES §7): basicConstraints critical CA:TRUE pathLen 0 (the CA signs only
 * leaves); keyUsage critical keyCertSign | cRLSign | digitalSignature; subjectKeyIdentifier and an
 * authorityKeyIdentifier naming its own key; a random positive 127-bit serial; no name constraints.
 */
public final class BcRootCertificates {
  private BcRootCertificates() {}

  /**
   * A self-signed CA certificate for {@code keyPair}.
   *
   * @param signatureAlgorithm JCA name, "SHA256withECDSA" or "SHA256withRSA"
   * @param commonName subject CN, at most 64 characters
   * @param organization subject O
   */
  public static X509Certificate createRoot(
      KeyPair keyPair,
      String signatureAlgorithm,
      String commonName,
      String organization,
      Instant notBefore,
      Instant notAfter,
      SecureRandom random) {
    try {
      // Sequence order O, CN: shown as "CN=..., O=..." by X500Principal (RFC 2253 reverses it).
      X500Name name =
          new X500NameBuilder(BCStyle.INSTANCE)
              .addRDN(BCStyle.O, organization)
              .addRDN(BCStyle.CN, commonName)
              .build();
      JcaX509ExtensionUtils extensionUtils = new JcaX509ExtensionUtils();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              name,
              randomSerial(random),
              Date.from(notBefore),
              Date.from(notAfter),
              name,
              keyPair.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign | KeyUsage.digitalSignature));
      builder.addExtension(
          Extension.subjectKeyIdentifier,
          false,
          extensionUtils.createSubjectKeyIdentifier(keyPair.getPublic()));
      builder.addExtension(
          Extension.authorityKeyIdentifier,
          false,
          extensionUtils.createAuthorityKeyIdentifier(keyPair.getPublic()));
      return Signing.sign(builder, keyPair.getPrivate(), signatureAlgorithm);
    } catch (Exception e) {
      throw new IllegalStateException("Cannot build the CA certificate: " + e.getMessage(), e);
    }
  }

  /** A random positive serial of at most 127 bits (16 bytes DER, well under RFC 5280's 20). */
  static BigInteger randomSerial(SecureRandom random) {
    BigInteger serial;
    do {
      serial = new BigInteger(127, random);
    } while (serial.signum() == 0);
    return serial;
  }
}
