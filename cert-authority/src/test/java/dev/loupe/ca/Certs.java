package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXCertPathValidatorResult;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.AuthorityKeyIdentifier;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;

/** Test helpers that parse certificate fields; assertions are made on these, never on bytes. */
final class Certs {
  static final String BASIC_CONSTRAINTS = Extension.basicConstraints.getId();
  static final String KEY_USAGE = Extension.keyUsage.getId();
  static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  static final int SAN_DNS = 2;
  static final int SAN_IP = 7;

  // java.security.cert.X509Certificate#getKeyUsage indexes (RFC 5280 4.2.1.3)
  static final int DIGITAL_SIGNATURE = 0;
  static final int KEY_ENCIPHERMENT = 2;
  static final int KEY_CERT_SIGN = 5;
  static final int CRL_SIGN = 6;

  private Certs() {}

  static byte[] subjectKeyId(X509Certificate cert) {
    byte[] ext = cert.getExtensionValue(Extension.subjectKeyIdentifier.getId());
    if (ext == null) {
      return null;
    }
    try {
      return ASN1OctetString.getInstance(JcaX509ExtensionUtils.parseExtensionValue(ext)).getOctets();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] authorityKeyId(X509Certificate cert) {
    byte[] ext = cert.getExtensionValue(Extension.authorityKeyIdentifier.getId());
    if (ext == null) {
      return null;
    }
    try {
      return AuthorityKeyIdentifier.getInstance(JcaX509ExtensionUtils.parseExtensionValue(ext))
          .getKeyIdentifierOctets();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> dnsNames(X509Certificate cert) throws GeneralSecurityException {
    List<String> names = new ArrayList<>();
    Collection<List<?>> sans = cert.getSubjectAlternativeNames();
    if (sans != null) {
      for (List<?> san : sans) {
        if ((Integer) san.get(0) == SAN_DNS) {
          names.add((String) san.get(1));
        }
      }
    }
    return names;
  }

  static List<InetAddress> ipAddresses(X509Certificate cert) throws Exception {
    List<InetAddress> addresses = new ArrayList<>();
    Collection<List<?>> sans = cert.getSubjectAlternativeNames();
    if (sans != null) {
      for (List<?> san : sans) {
        if ((Integer) san.get(0) == SAN_IP) {
          addresses.add(InetAddress.getByName((String) san.get(1)));
        }
      }
    }
    return addresses;
  }

  static String commonName(X509Certificate cert) {
    String dn = cert.getSubjectX500Principal().getName();
    for (String rdn : dn.split(",")) {
      if (rdn.startsWith("CN=")) {
        return rdn.substring(3);
      }
    }
    return null;
  }

  /** Validates [leaf] against the CA as the only trust anchor, PKIX, no revocation. */
  static PKIXCertPathValidatorResult validatePkix(X509Certificate leaf, X509Certificate ca)
      throws GeneralSecurityException {
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca, null)));
    parameters.setRevocationEnabled(false);
    return (PKIXCertPathValidatorResult)
        CertPathValidator.getInstance("PKIX")
            .validate(factory.generateCertPath(List.of(leaf)), parameters);
  }

  static X509Certificate parse(byte[] encoded) throws GeneralSecurityException {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(encoded));
  }

  static X509Certificate read(Path file) throws Exception {
    return parse(Files.readAllBytes(file));
  }

  static void writePem(X509Certificate cert, Path file) throws Exception {
    Files.write(file, CaFiles.pem("CERTIFICATE", cert.getEncoded()));
  }

  static void assertPem(Path file, String type) throws IOException {
    String text = Files.readString(file, StandardCharsets.US_ASCII);
    assertThat(text).startsWith("-----BEGIN " + type + "-----\n").endsWith("-----END " + type + "-----\n");
  }
}
