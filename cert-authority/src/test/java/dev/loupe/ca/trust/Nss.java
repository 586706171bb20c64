package dev.loupe.ca.trust;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real NSS certutil for the tests' own set-up and independent checks. */
final class Nss {
  private Nss() {}

  /** Exit code and combined output. */
  record Run(int exitCode, String output) {}

  static Run certutil(String... args) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>();
    argv.add("certutil");
    argv.addAll(List.of(args));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] out = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("certutil finished").isTrue();
    return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /** A new, empty, password-less database in {@code dir}. */
  static Path createDatabase(Path dir) throws Exception {
    Files.createDirectories(dir);
    Run created = certutil("-N", "--empty-password", "-d", "sql:" + dir);
    assertThat(created.exitCode()).as(created.output()).isZero();
    assertThat(dir.resolve("cert9.db")).isRegularFile();
    return dir;
  }

  /** Adds {@code pem} under {@code nickname} with {@code flags}, as a user would by hand. */
  static void add(Path dir, String nickname, String flags, Path pem) throws Exception {
    Run added = certutil("-A", "-n", nickname, "-t", flags, "-i", pem.toString(), "-d", "sql:" + dir);
    assertThat(added.exitCode()).as(added.output()).isZero();
  }

  /** The trust flags {@code certutil -L} lists for {@code nickname}, or null; fails if listed twice. */
  static String flags(Path dir, String nickname) throws Exception {
    Run listing = certutil("-L", "-d", "sql:" + dir);
    assertThat(listing.exitCode()).as(listing.output()).isZero();
    String found = null;
    for (String line : listing.output().split("\n")) {
      if (line.startsWith(nickname + "  ")) {
        assertThat(found).as("listed once: " + nickname).isNull();
        found = line.substring(nickname.length()).trim();
      }
    }
    return found;
  }

  /** The certificates {@code certutil -L -n nickname -a} prints, parsed; empty when it fails. */
  static List<X509Certificate> certificates(Path dir, String nickname) throws Exception {
    Run dump = certutil("-L", "-d", "sql:" + dir, "-n", nickname, "-a");
    if (dump.exitCode() != 0) {
      return List.of();
    }
    List<X509Certificate> parsed = new ArrayList<>();
    for (java.security.cert.Certificate c : CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(dump.output().getBytes(StandardCharsets.US_ASCII)))) {
      parsed.add((X509Certificate) c);
    }
    return parsed;
  }
}
