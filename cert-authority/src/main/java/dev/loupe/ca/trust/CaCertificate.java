package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import dev.loupe.ca.CertificateAuthority;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;

/**
 * The CA certificate as the trust stores see it: its encodings, fingerprints and the nickname it
 * is installed under.
 *
 * <p>The nickname is {@code "Loupe CA <first 8 hex digits of the SHA-256 fingerprint>"}: it names
 * this CA and no other, so re-installing replaces this CA's entry, and removing never touches a
 * certificate that merely shares a name (another Loupe CA, a CA the user imported as "loupe").
 *
 * <p>Immutable; thread-safe.
 */
public final class CaCertificate {
  private final X509Certificate certificate;
  private final Path file;
  private final byte[] der;

  private CaCertificate(X509Certificate certificate, Path file) {
    this.certificate = requireNonNull(certificate, "certificate");
    this.file = requireNonNull(file, "file");
    try {
      this.der = certificate.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new IllegalArgumentException("cannot encode the CA certificate: " + e.getMessage(), e);
    }
  }

  /** The certificate of {@code ca}, kept in {@link CertificateAuthority#certificatePath()}. */
  public static CaCertificate of(CertificateAuthority ca) {
    return new CaCertificate(ca.certificate(), ca.certificatePath());
  }

  /** {@code certificate}, kept in {@code file} (shown to users and used in manual commands). */
  public static CaCertificate of(X509Certificate certificate, Path file) {
    return new CaCertificate(certificate, file);
  }

  /** The certificate. */
  public X509Certificate certificate() {
    return certificate;
  }

  /** The PEM file the CA keeps its certificate in. */
  public Path file() {
    return file;
  }

  /** The DER encoding. */
  public byte[] der() {
    return der.clone();
  }

  /** The PEM encoding: base64 in 64-character lines, {@code \n} line ends. */
  public byte[] pem() {
    String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    return ("-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** The SHA-256 fingerprint of the DER encoding, colon-separated upper-case hex. */
  public String sha256Fingerprint() {
    return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest("SHA-256"));
  }

  /** The SHA-1 fingerprint (thumbprint), upper-case hex without separators, as macOS and Windows name it. */
  public String sha1Hex() {
    return HexFormat.of().withUpperCase().formatHex(digest("SHA-1"));
  }

  /** The serial number in hex (lower case), as Windows' {@code certutil} prints it. */
  public String serialHex() {
    return certificate.getSerialNumber().toString(16);
  }

  /** The nickname in NSS databases: {@code "Loupe CA 1A2B3C4D"}. */
  public String nickname() {
    return "Loupe CA " + HexFormat.of().withUpperCase().formatHex(digest("SHA-256"), 0, 4);
  }

  /** The subject distinguished name (RFC 2253). */
  public String subject() {
    return certificate.getSubjectX500Principal().getName();
  }

  /** The subject's common name, or the whole subject when it has none. */
  public String commonName() {
    for (String rdn : certificate.getSubjectX500Principal().getName().split(",")) {
      if (rdn.startsWith("CN=")) {
        return rdn.substring(3).replace("\\", "");
      }
    }
    return subject();
  }

  /** True when {@code other} is this very certificate (same DER encoding). */
  public boolean sameAs(X509Certificate other) {
    try {
      return Arrays.equals(der, other.getEncoded());
    } catch (CertificateEncodingException e) {
      return false;
    }
  }

  /** True when {@code encoded} (PEM or DER, possibly several certificates) includes this one. */
  public boolean isIn(byte[] encoded) {
    for (X509Certificate parsed : parseAll(encoded)) {
      if (sameAs(parsed)) {
        return true;
      }
    }
    return false;
  }

  /** Every certificate in {@code encoded} (PEM, possibly concatenated, or DER); empty when none parse. */
  static List<X509Certificate> parseAll(byte[] encoded) {
    try {
      Collection<? extends java.security.cert.Certificate> parsed =
          CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(encoded));
      List<X509Certificate> result = new ArrayList<>();
      for (java.security.cert.Certificate c : parsed) {
        if (c instanceof X509Certificate) {
          result.add((X509Certificate) c);
        }
      }
      return result;
    } catch (CertificateException | RuntimeException e) {
      return List.of();
    }
  }

  private byte[] digest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm).digest(der);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(algorithm + " is missing from this JDK", e);
    }
  }

  @Override
  public String toString() {
    return "CaCertificate[" + nickname() + ", " + subject() + ", " + file + "]";
  }
}
