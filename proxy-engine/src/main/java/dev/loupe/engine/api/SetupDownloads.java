package dev.loupe.engine.api;

import java.util.Objects;

/**
 * What Loupe's setup page ({@code http://loupe.setup/}, and {@code GET /} on the listener) offers
 * for download: the CA certificate in the formats devices install. The engine does not know the
 * certificate authority; the application hands these over.
 *
 * <p>Immutable: the arrays are copied in and out.
 *
 * @param caName            the CA's common name, shown on the page
 * @param sha256Fingerprint colon-separated upper-case hex, shown so a user can compare it
 * @param pem               the certificate as PEM
 * @param der               the certificate as DER (Android's {@code .crt}, Windows' {@code .cer})
 * @param mobileConfig      an iOS/iPadOS/macOS configuration profile installing it as a root
 */
public record SetupDownloads(String caName, String sha256Fingerprint, byte[] pem, byte[] der, byte[] mobileConfig) {
  public SetupDownloads {
    Objects.requireNonNull(caName, "caName");
    Objects.requireNonNull(sha256Fingerprint, "sha256Fingerprint");
    pem = pem.clone();
    der = der.clone();
    mobileConfig = mobileConfig.clone();
  }

  @Override
  public byte[] pem() {
    return pem.clone();
  }

  @Override
  public byte[] der() {
    return der.clone();
  }

  @Override
  public byte[] mobileConfig() {
    return mobileConfig.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SetupDownloads s && s.sha256Fingerprint.equals(sha256Fingerprint)
        && java.util.Arrays.equals(s.mobileConfig, mobileConfig);
  }

  @Override
  public int hashCode() {
    return sha256Fingerprint.hashCode();
  }

  @Override
  public String toString() {
    return "SetupDownloads[" + caName + ", " + sha256Fingerprint + "]";
  }
}
