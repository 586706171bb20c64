package dev.loupe.ca.export;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Collections;

/**
 * A PKCS#12 trust store for Java programs run through Loupe ({@code -Djavax.net.ssl.trustStore=...}
 * in {@code JAVA_TOOL_OPTIONS}): the JDK's own trusted roots plus the Loupe CA, so a program keeps
 * trusting the real roots for hosts Loupe tunnels without interception.
 *
 * <p>The password only protects the file's integrity (a trust store holds no secret); it is
 * {@value #PASSWORD}, as for the JDK's {@code cacerts}.
 */
public final class JavaTrustStore {
  /** The store's password (integrity only). */
  public static final String PASSWORD = "changeit";
  /** The alias of the Loupe CA in the store. */
  public static final String ALIAS = "loupe-ca";

  private JavaTrustStore() {}

  /**
   * Writes the store to {@code file} atomically (replacing it) when it is missing or does not yet
   * hold {@code ca}; returns {@code file}.
   *
   * @throws IOException when it cannot be written
   */
  public static Path write(Path file, X509Certificate ca) throws IOException {
    try {
      if (Files.isRegularFile(file) && holds(file, ca)) {
        return file;
      }
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      KeyStore jdk = jdkRoots();
      if (jdk != null) {
        for (String alias : Collections.list(jdk.aliases())) {
          if (jdk.isCertificateEntry(alias)) {
            store.setCertificateEntry("jdk-" + alias, jdk.getCertificate(alias));
          }
        }
      }
      store.setCertificateEntry(ALIAS, ca);
      Path dir = file.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path tmp = Files.createTempFile(dir, ".truststore", ".tmp");
      try (OutputStream out = Files.newOutputStream(tmp)) {
        store.store(out, PASSWORD.toCharArray());
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write the Java trust store " + file + ": " + e.getMessage(), e);
    }
  }

  private static boolean holds(Path file, X509Certificate ca) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, PASSWORD.toCharArray());
      return ca.equals(ks.getCertificate(ALIAS));
    } catch (IOException | GeneralSecurityException e) {
      return false;
    }
  }

  /** The running JDK's {@code lib/security/cacerts}, or null when it cannot be read. */
  private static KeyStore jdkRoots() {
    Path cacerts = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
    try (InputStream in = Files.newInputStream(cacerts)) {
      KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
      ks.load(in, null);
      return ks;
    } catch (IOException | GeneralSecurityException e) {
      return null;
    }
  }
}
