package dev.loupe.ca.trust;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The NSS installer against real NSS databases made by the real certutil (libnss3-tools). */
@Timeout(120)
class NssDatabaseTest {
  @TempDir Path tmp;
  private CaCertificate ca;
  private CaCertificate otherCa;
  private final ProcessCommandRunner runner = new ProcessCommandRunner();

  @BeforeEach
  void createCas() {
    ca = TestCas.create(tmp.resolve("ca"));
    otherCa = TestCas.create(tmp.resolve("other-ca"));
  }

  @Test
  void nicknameNamesThisCaByItsFingerprint() {
    assertThat(ca.nickname()).matches("Loupe CA [0-9A-F]{8}");
    assertThat(ca.sha256Fingerprint().replace(":", "")).startsWith(ca.nickname().substring(9));
    assertThat(ca.sha256Fingerprint()).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
    assertThat(otherCa.nickname()).isNotEqualTo(ca.nickname());
  }

  @Test
  void installsTrustedForTlsAndRemovesOnlyItsOwnEntry() throws Exception {
    Path db = Nss.createDatabase(tmp.resolve("nssdb"));
    // A CA the user trusts already, and another Loupe CA: removal must leave both alone.
    Path userPem = TestCas.opensslRoot("/CN=Corporate Root/O=Example", tmp.resolve("user"));
    X509Certificate userCa = CaCertificate.parseAll(Files.readAllBytes(userPem)).get(0);
    Nss.add(db, "Other CA", "C,,", userPem);
    NssDatabase secondLoupe = NssDatabase.of("second", "second", db, false, otherCa, runner);
    TrustResult second = secondLoupe.install();
    assertThat(second.success()).as(second.message()).isTrue();
    NssDatabase store = NssDatabase.of("nss-test", "test", db, false, ca, runner);
    assertThat(store.status().state()).isEqualTo(TrustStatus.State.NOT_TRUSTED);

    TrustResult installed = store.install();

    assertThat(installed.success()).as(installed.message()).isTrue();
    assertThat(installed.message()).contains(ca.nickname()).contains(db.toString());
    assertThat(Nss.certutil("-L", "-d", "sql:" + db, "-n", ca.nickname()).exitCode()).isZero();
    assertThat(Nss.flags(db, ca.nickname())).isEqualTo("C,,");
    // certutil -L -n NICK -a prints every certificate with that entry's subject, and both Loupe CAs
    // here are "CN=Loupe CA (user@host)": ours must be among them.
    assertThat(Nss.certificates(db, ca.nickname())).contains(ca.certificate());
    assertThat(store.status()).isEqualTo(TrustStatus.trusted("as \"" + ca.nickname() + "\" (trust C,,)"));

    TrustResult removed = store.remove();

    assertThat(removed.success()).as(removed.message()).isTrue();
    assertThat(Nss.certutil("-L", "-d", "sql:" + db, "-n", ca.nickname()).exitCode()).isNotZero();
    assertThat(Nss.flags(db, ca.nickname())).isNull();
    assertThat(store.status().state()).isEqualTo(TrustStatus.State.NOT_TRUSTED);
    assertThat(Nss.certificates(db, "Other CA")).containsExactly(userCa);
    assertThat(Nss.certificates(db, otherCa.nickname())).containsExactly(otherCa.certificate());
    assertThat(secondLoupe.status().state()).isEqualTo(TrustStatus.State.TRUSTED);

    TrustResult again = store.remove();
    assertThat(again.success()).isTrue();
    assertThat(again.message()).startsWith("Nothing to remove");
  }

  @Test
  void reinstallingReplacesTheEntryAndRepairsItsTrustFlags() throws Exception {
    Path db = Nss.createDatabase(tmp.resolve("nssdb"));
    // The CA is there under our nickname but not trusted for TLS (flags ",,").
    Nss.add(db, ca.nickname(), ",,", TestCas.pemFile(ca, tmp.resolve("ca.pem")));
    NssDatabase store = NssDatabase.of("nss-test", "test", db, false, ca, runner);
    TrustStatus before = store.status();
    assertThat(before.state()).isEqualTo(TrustStatus.State.NOT_TRUSTED);
    assertThat(before.detail()).contains("not trusted to identify websites");

    assertThat(store.install().success()).isTrue();
    assertThat(store.install().success()).isTrue();

    assertThat(Nss.flags(db, ca.nickname())).as("listed once, trusted").isEqualTo("C,,");
    assertThat(Nss.certificates(db, ca.nickname())).containsExactly(ca.certificate());
    assertThat(store.status().state()).isEqualTo(TrustStatus.State.TRUSTED);
  }

  @Test
  void aDifferentCertificateUnderTheNicknameIsNeitherTrustedNorTouched() throws Exception {
    Path db = Nss.createDatabase(tmp.resolve("nssdb"));
    Nss.add(db, ca.nickname(), "C,,", TestCas.pemFile(otherCa, tmp.resolve("other.pem")));
    NssDatabase store = NssDatabase.of("nss-test", "test", db, false, ca, runner);

    assertThat(store.status().state()).isEqualTo(TrustStatus.State.NOT_TRUSTED);
    assertThat(store.status().detail()).contains("holds a different certificate");
    TrustResult removed = store.remove();
    TrustResult installed = store.install();

    assertThat(removed.success()).isFalse();
    assertThat(installed.success()).isFalse();
    assertThat(removed.message()).contains("different certificate");
    assertThat(Nss.certificates(db, ca.nickname())).containsExactly(otherCa.certificate());
  }

  @Test
  void createsChromiumsDatabaseWhenMissing() throws Exception {
    Path db = tmp.resolve("home/.pki/nssdb");
    NssDatabase store = NssDatabase.of("nss-chromium", "Chromium", db, true, ca, runner);
    assertThat(store.status())
        .isEqualTo(TrustStatus.notTrusted("no NSS database yet; installing creates it"));

    TrustResult installed = store.install();

    assertThat(installed.success()).as(installed.message()).isTrue();
    assertThat(installed.message()).startsWith("Created the NSS database " + db);
    assertThat(db.resolve("cert9.db")).isRegularFile();
    assertThat(Nss.flags(db, ca.nickname())).isEqualTo("C,,");
    assertThat(Nss.certificates(db, ca.nickname())).containsExactly(ca.certificate());
  }

  @Test
  void aMissingFirefoxDatabaseIsUnavailableAndNotCreated() {
    Path profile = tmp.resolve("profile");
    NssDatabase store = NssDatabase.of("nss-firefox", "Firefox", profile, false, ca, runner);

    assertThat(store.status()).isEqualTo(TrustStatus.unavailable("no NSS database (cert9.db) in " + profile));
    assertThat(store.install().success()).isFalse();
    assertThat(profile).doesNotExist();
  }

  @Test
  void aPasswordProtectedDatabaseFailsWithCertutilsWordsInsteadOfPrompting() throws Exception {
    Path db = tmp.resolve("locked");
    Files.createDirectories(db);
    Path password = Files.writeString(tmp.resolve("pw"), "secret\n");
    assertThat(Nss.certutil("-N", "-f", password.toString(), "-d", "sql:" + db).exitCode()).isZero();
    NssDatabase store = NssDatabase.of("nss-locked", "locked", db, false, ca, runner);

    TrustResult installed = store.install();

    assertThat(installed.success()).isFalse();
    assertThat(installed.message())
        .startsWith("certutil -A -n " + ca.nickname() + " -t C,, -i ")
        .contains("exited with 255")
        .contains("SEC_ERROR_BAD_PASSWORD");
    assertThat(store.status().state()).isNotEqualTo(TrustStatus.State.TRUSTED);
  }

  @Test
  void theSameCertificateUnderAnotherNicknameIsReportedNotHidden() throws Exception {
    Path db = Nss.createDatabase(tmp.resolve("nssdb"));
    // As the README's manual command does: the CA imported as "loupe", without the TLS trust bit.
    Nss.add(db, "loupe", ",,", TestCas.pemFile(ca, tmp.resolve("ca.pem")));
    NssDatabase store = NssDatabase.of("nss-test", "test", db, false, ca, runner);

    TrustResult installed = store.install();

    assertThat(installed.success()).isFalse();
    assertThat(installed.message()).contains("certutil -A reported success").contains("another nickname");
    assertThat(Nss.flags(db, "loupe")).isNotNull();
  }

  @Test
  void withoutCertutilTheStoreSaysWhatToInstall() throws IOException {
    NssDatabase store =
        NssDatabase.of("nss-chromium", "Chromium", tmp.resolve("nssdb"), true, ca, new ScriptedRunner());

    assertThat(store.status()).isEqualTo(TrustStatus.unavailable(
        "certutil not found: install libnss3-tools (Debian, Ubuntu) or nss-tools (Fedora)"));
    assertThat(store.install().success()).isFalse();
  }

  @Test
  void parsesCertutilListings() {
    String listing = "\nCertificate Nickname                                         Trust Attributes\n"
        + "                                                             SSL,S/MIME,JAR/XPI\n\n"
        + "Loupe CA 1234ABCD                                            C,,  \n"
        + "DigiCert TLS RSA SHA256 2020 CA1 - DigiCert Inc              ,,   \n"
        + "my cert                                                      u,u,u\n";
    assertThat(NssDatabase.trustFlags(listing, "Loupe CA 1234ABCD")).hasValue("C,,");
    assertThat(NssDatabase.trustFlags(listing, "DigiCert TLS RSA SHA256 2020 CA1 - DigiCert Inc")).hasValue(",,");
    assertThat(NssDatabase.trustFlags(listing, "Loupe CA")).isEmpty();
    assertThat(NssDatabase.isTrustedForTls("C,,")).isTrue();
    assertThat(NssDatabase.isTrustedForTls("CT,C,C")).isTrue();
    assertThat(NssDatabase.isTrustedForTls(",C,")).isFalse();
    assertThat(NssDatabase.isTrustedForTls("u,u,u")).isFalse();
    assertThat(List.of(NssDatabase.trustFlags(listing, "my cert").orElseThrow())).containsExactly("u,u,u");
  }
}
