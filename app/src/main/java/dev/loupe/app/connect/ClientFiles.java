package dev.loupe.app.connect;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.export.JavaTrustStore;
import dev.loupe.ca.trust.CaCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.util.Base64;
import java.util.Collections;
import java.util.List;

/**
 * The files terminal clients read to trust Loupe, kept in the configuration directory next to the
 * CA: {@code ca-cert.pem} (the CA itself, for tools that add to their roots, like
 * {@code NODE_EXTRA_CA_CERTS}), {@code ca-bundle.pem} (this system's roots plus the CA, for tools
 * whose setting replaces their roots — {@code SSL_CERT_FILE}, {@code CURL_CA_BUNDLE} — so hosts
 * Loupe tunnels without decrypting still verify) and {@code ca-truststore.p12} (the same for Java).
 *
 * @param caPem      the CA certificate (PEM)
 * @param bundle     system roots + the CA (PEM)
 * @param trustStore JDK roots + the CA (PKCS#12, password {@value JavaTrustStore#PASSWORD})
 */
public record ClientFiles(Path caPem, Path bundle, Path trustStore) {
  /** Where systems keep their root bundle, most common first. */
  private static final List<Path> SYSTEM_BUNDLES = List.of(
      Path.of("/etc/ssl/certs/ca-certificates.crt"), // Debian, Ubuntu, Arch
      Path.of("/etc/pki/tls/certs/ca-bundle.crt"), // Fedora, RHEL
      Path.of("/etc/ssl/ca-bundle.pem"), // openSUSE
      Path.of("/etc/ssl/cert.pem")); // macOS, Alpine, BSD

  /** Writes (or refreshes) the bundle and trust store for {@code ca} in {@code confdir}. */
  public static ClientFiles prepare(Path confdir, CertificateAuthority ca) throws IOException {
    Path bundle = confdir.resolve("ca-bundle.pem");
    String caPem = new String(CaCertificate.of(ca).pem(), StandardCharsets.US_ASCII);
    String roots = systemRoots();
    String wanted = roots + (roots.endsWith("\n") || roots.isEmpty() ? "" : "\n") + "# Loupe CA\n" + caPem;
    if (!Files.isRegularFile(bundle) || !Files.readString(bundle, StandardCharsets.US_ASCII).equals(wanted)) {
      Path tmp = Files.createTempFile(confdir, ".ca-bundle", ".tmp");
      Files.writeString(tmp, wanted, StandardCharsets.US_ASCII);
      Files.move(tmp, bundle, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    Path store = JavaTrustStore.write(confdir.resolve("ca-truststore.p12"), ca.certificate());
    return new ClientFiles(ca.certificatePath(), bundle, store);
  }

  /** This system's root bundle as PEM, or the JDK's roots when the system has no bundle file. */
  private static String systemRoots() throws IOException {
    for (Path p : SYSTEM_BUNDLES) {
      if (Files.isReadable(p)) {
        return Files.readString(p, StandardCharsets.ISO_8859_1);
      }
    }
    Path cacerts = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
    StringBuilder out = new StringBuilder();
    try (InputStream in = Files.newInputStream(cacerts)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(in, null);
      for (String alias : Collections.list(ks.aliases())) {
        Certificate c = ks.getCertificate(alias);
        if (c != null) {
          out.append("# ").append(alias).append('\n').append(pem(c));
        }
      }
    } catch (GeneralSecurityException | IOException e) {
      return ""; // the bundle then holds the Loupe CA alone
    }
    return out.toString();
  }

  private static String pem(Certificate c) throws CertificateEncodingException {
    return "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(c.getEncoded())
        + "\n-----END CERTIFICATE-----\n";
  }
}
