package dev.loupe.app.connect;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.export.MobileConfig;
import dev.loupe.ca.trust.CaCertificate;
import dev.loupe.engine.api.SetupDownloads;

/** The setup page's downloads for a certificate authority: PEM, DER and an Apple profile. */
public final class CaDownloads {
  private CaDownloads() {}

  public static SetupDownloads of(CertificateAuthority ca) {
    CaCertificate cert = CaCertificate.of(ca);
    return new SetupDownloads(cert.commonName(), cert.sha256Fingerprint(), cert.pem(), cert.der(),
        MobileConfig.of(ca.certificate()));
  }
}
