package dev.loupe.ca;

import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;

/**
 * Key algorithm of the root CA, and therefore of the leaf key pair and of every leaf signature.
 *
 * <p>{@link #EC_P256} is the default: P-256 signatures are cheap to make and to verify, and every
 * TLS client of the last decade accepts them. {@link #RSA_2048} exists for clients that cannot do
 * ECDSA; generating its keys is slow (~100 ms each), which is why the leaf key is made only once per
 * {@link CertificateAuthority}.
 *
 * <p>Immutable and thread-safe.
 */
public enum KeyAlgorithm {
  /** ECDSA on NIST P-256 (secp256r1), signatures SHA256withECDSA. */
  EC_P256("EC", "SHA256withECDSA"),
  /** RSA with a 2048-bit modulus, signatures SHA256withRSA (PKCS#1 v1.5). */
  RSA_2048("RSA", "SHA256withRSA");

  private final String jcaKeyAlgorithm;
  private final String signatureAlgorithm;

  KeyAlgorithm(String jcaKeyAlgorithm, String signatureAlgorithm) {
    this.jcaKeyAlgorithm = jcaKeyAlgorithm;
    this.signatureAlgorithm = signatureAlgorithm;
  }

  /** JCA signature algorithm name used with keys of this kind. */
  String signatureAlgorithm() {
    return signatureAlgorithm;
  }

  KeyPair generateKeyPair(SecureRandom random) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance(jcaKeyAlgorithm);
      if (this == EC_P256) {
        generator.initialize(new ECGenParameterSpec("secp256r1"), random);
      } else {
        generator.initialize(2048, random);
      }
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new CaException("Cannot generate a " + this + " key pair: " + e.getMessage(), e);
    }
  }

  /**
   * The algorithm of an existing key (a loaded CA). An EC key on a curve other than P-256 maps to
   * {@link #EC_P256} too: signing works the same way, only the leaf key stays on P-256.
   *
   * @throws CaException for any other key type (Ed25519, DSA, ...)
   */
  static KeyAlgorithm of(PrivateKey key) {
    switch (key.getAlgorithm()) {
      case "EC":
      case "ECDSA":
        return EC_P256;
      case "RSA":
        return RSA_2048;
      default:
        throw new CaException("Unsupported CA key algorithm " + key.getAlgorithm() + " (EC or RSA expected)");
    }
  }
}
