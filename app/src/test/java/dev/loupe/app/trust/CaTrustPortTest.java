package dev.loupe.app.trust;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.trust.ProcessCommandRunner;
import dev.loupe.ca.trust.TrustStores;
import dev.loupe.ui.trust.CaSummary;
import dev.loupe.ui.trust.ExportFormat;
import dev.loupe.ui.trust.TrustOutcome;
import dev.loupe.ui.trust.TrustState;
import dev.loupe.ui.trust.TrustTarget;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The adapter on a temporary HOME with real NSS databases (certutil from libnss3-tools). */
@Timeout(120)
class CaTrustPortTest {
  @TempDir Path home;

  @Test
  void reportsAndChangesRealNssStatus() throws Exception {
    CertificateAuthority authority = CertificateAuthority.loadOrCreate(home.resolve(".config/loupe"));
    Path profile = home.resolve(".mozilla/firefox/ab12.default-release");
    Files.createDirectories(profile);
    assertThat(certutil("-N", "--empty-password", "-d", "sql:" + profile).exitCode).isZero();
    // Not privileged: the real system store is only read, never written.
    CaTrustPort port = CaTrustPort.create(authority, new TrustStores.Environment("Linux", home, false),
        new ProcessCommandRunner());

    CaSummary ca = port.ca();
    byte[] sha256 = MessageDigest.getInstance("SHA-256").digest(authority.certificate().getEncoded());
    assertThat(ca.sha256Fingerprint()).isEqualTo(HexFormat.ofDelimiter(":").withUpperCase().formatHex(sha256));
    assertThat(ca.file()).isEqualTo(home.resolve(".config/loupe/ca-cert.pem"));
    assertThat(ca.subject()).startsWith("CN=Loupe CA (");
    String nickname = "Loupe CA " + HexFormat.of().withUpperCase().formatHex(sha256, 0, 4);

    List<TrustTarget> targets = port.targets();

    assertThat(targets).extracting(TrustTarget::id)
        .containsExactly("nss-chromium", "nss-firefox-ab12-default-release", "system-debian");
    assertThat(targets.get(0).state()).isEqualTo(TrustState.NOT_TRUSTED);
    assertThat(targets.get(0).detail()).isEqualTo("no NSS database yet; installing creates it");
    assertThat(targets.get(1).state()).isEqualTo(TrustState.NOT_TRUSTED);
    assertThat(targets.get(1).location()).isEqualTo(profile.toString());
    assertThat(targets.get(2).manualInstallCommand()).hasValue(
        "sudo cp " + ca.file() + " /usr/local/share/ca-certificates/loupe-ca.crt && sudo update-ca-certificates");

    TrustOutcome installed = port.install("nss-firefox-ab12-default-release");
    assertThat(installed.success()).as(installed.message()).isTrue();
    assertThat(port.status("nss-firefox-ab12-default-release").state()).isEqualTo(TrustState.TRUSTED);
    Certutil listed = certutil("-L", "-d", "sql:" + profile, "-n", nickname, "-a");
    assertThat(listed.exitCode).isZero();
    List<java.security.cert.Certificate> dumped = new ArrayList<>(CertificateFactory.getInstance("X.509")
        .generateCertificates(new ByteArrayInputStream(listed.output.getBytes(StandardCharsets.US_ASCII))));
    assertThat(dumped).containsExactly(authority.certificate());
    assertThat(port.targets().get(1).state()).isEqualTo(TrustState.TRUSTED);

    assertThat(port.install("nss-chromium").success()).isTrue();
    assertThat(home.resolve(".pki/nssdb/cert9.db")).isRegularFile();
    assertThat(port.status("nss-chromium").state()).isEqualTo(TrustState.TRUSTED);

    TrustOutcome removed = port.remove("nss-firefox-ab12-default-release");
    assertThat(removed.success()).as(removed.message()).isTrue();
    assertThat(certutil("-L", "-d", "sql:" + profile, "-n", nickname).exitCode).isNotZero();
    assertThat(port.status("nss-firefox-ab12-default-release").state()).isEqualTo(TrustState.NOT_TRUSTED);
    assertThat(port.status("nss-chromium").state()).isEqualTo(TrustState.TRUSTED);
  }

  @Test
  void exportsPemAndDerOfTheCa() throws Exception {
    CertificateAuthority authority = CertificateAuthority.loadOrCreate(home.resolve("conf"));
    CaTrustPort port = CaTrustPort.create(authority, new TrustStores.Environment("Linux", home, false),
        new ProcessCommandRunner());

    assertThat(port.export(home.resolve("ca.pem"), ExportFormat.PEM).success()).isTrue();
    assertThat(port.export(home.resolve("ca.cer"), ExportFormat.DER).success()).isTrue();
    TrustOutcome refused = port.export(home.resolve("conf/ca-key.pem"), ExportFormat.PEM);

    assertThat(Files.readString(home.resolve("ca.pem"))).startsWith("-----BEGIN CERTIFICATE-----");
    for (String name : List.of("ca.pem", "ca.cer")) {
      X509Certificate parsed = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(home.resolve(name))));
      assertThat(parsed).isEqualTo(authority.certificate());
    }
    assertThat(refused.success()).isFalse();
    assertThat(refused.message()).contains("one of the CA's own files");
    assertThat(Files.readString(home.resolve("conf/ca-key.pem"))).contains("PRIVATE KEY");
  }

  private static final class Certutil {
    final int exitCode;
    final String output;

    Certutil(int exitCode, String output) {
      this.exitCode = exitCode;
      this.output = output;
    }
  }

  private static Certutil certutil(String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("certutil"));
    argv.addAll(List.of(args));
    Process process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Certutil(process.exitValue(), output);
  }
}
