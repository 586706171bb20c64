package dev.loupe.ca.export;

import java.security.cert.X509Certificate;
import java.util.Base64;

/**
 * The base64 SHA-256 of a certificate's SubjectPublicKeyInfo — the form Chromium's
 * {@code --ignore-certificate-errors-spki-list} takes. Given the Loupe CA's pin, a Chromium started
 * with its own {@code --user-data-dir} accepts every chain Loupe presents (the CA is in each chain),
 * and nothing is installed anywhere.
 */
public final class SpkiPin {
  private SpkiPin() {}

  /** {@code base64(sha256(SubjectPublicKeyInfo DER))}. */
  public static String of(X509Certificate cert) {
    // X509Certificate.getPublicKey().getEncoded() is the X.509 SubjectPublicKeyInfo encoding.
    return Base64.getEncoder().encodeToString(MobileConfig.sha256(cert.getPublicKey().getEncoded()));
  }
}
