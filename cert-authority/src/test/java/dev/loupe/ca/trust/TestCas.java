package dev.loupe.ca.trust;

import dev.loupe.ca.CertificateAuthority;
import java.nio.file.Files;
import java.nio.file.Path;

/** Real Loupe CAs (created by {@link CertificateAuthority}) in temporary directories. */
final class TestCas {
  private TestCas() {}

  static CaCertificate create(Path dir) {
    return CaCertificate.of(CertificateAuthority.loadOrCreate(dir));
  }

  /** A self-signed CA certificate made by openssl with {@code subject} ("/CN=.../O=..."); returns its PEM. */
  static Path opensslRoot(String subject, Path dir) throws Exception {
    Files.createDirectories(dir);
    Path pem = dir.resolve("cert.pem");
    Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
        "ec_paramgen_curve:P-256", "-nodes", "-keyout", dir.resolve("key.pem").toString(), "-out", pem.toString(),
        "-subj", subject, "-days", "30").redirectErrorStream(true).start();
    openssl.getOutputStream().close();
    String output = new String(openssl.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (!openssl.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || openssl.exitValue() != 0) {
      throw new IllegalStateException("openssl req failed: " + output);
    }
    return pem;
  }

  /** Writes {@code ca}'s PEM to {@code file} and returns it. */
  static Path pemFile(CaCertificate ca, Path file) throws Exception {
    Files.write(file, ca.pem());
    return file;
  }
}
