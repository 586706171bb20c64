package dev.loupe.ca.trust;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Profile discovery in a fake HOME whose profiles hold real NSS databases. */
@Timeout(120)
class FirefoxProfilesTest {
  @TempDir Path home;

  @Test
  void findsListedAndDefaultProfilesWithDatabasesUnderEveryPackaging() throws Exception {
    Path firefox = home.resolve(".mozilla/firefox");
    Path release = Nss.createDatabase(firefox.resolve("ab12cd34.default-release"));
    Path work = Nss.createDatabase(home.resolve("elsewhere/work-profile"));
    Path unlisted = Nss.createDatabase(firefox.resolve("zz99.default"));
    Files.createDirectories(firefox.resolve("qq11.default-esr")); // never started: no cert9.db
    Files.writeString(firefox.resolve("profiles.ini"), String.join("\n",
        "[Install4F96D1932A9F858E]", "Default=ab12cd34.default-release", "",
        "[Profile1]", "Name=work", "IsRelative=0", "Path=" + work, "",
        "[Profile0]", "Name=default-release", "IsRelative=1", "Path=ab12cd34.default-release", "Default=1", "",
        "[Profile2]", "Name=gone", "IsRelative=1", "Path=missing.profile", "",
        "[General]", "StartWithLastProfile=1", "Version=2", ""));
    Path snap = Nss.createDatabase(home.resolve("snap/firefox/common/.mozilla/firefox/x1.default"));
    Path flatpak = Nss.createDatabase(home.resolve(".var/app/org.mozilla.firefox/.mozilla/firefox/y2.default-release"));

    List<FirefoxProfiles.Profile> found = FirefoxProfiles.find(home);

    assertThat(found).containsExactly(
        new FirefoxProfiles.Profile("work", work, ""),
        new FirefoxProfiles.Profile("default-release", release, ""),
        new FirefoxProfiles.Profile("default", unlisted, ""),
        new FirefoxProfiles.Profile("default", snap, "snap"),
        new FirefoxProfiles.Profile("default-release", flatpak, "flatpak"));
    assertThat(found.get(3).displayName()).isEqualTo("Firefox (snap) — default");
  }

  @Test
  void installsIntoADiscoveredProfile() throws Exception {
    Path profile = Nss.createDatabase(home.resolve(".mozilla/firefox/ab12cd34.default-release"));
    Files.writeString(home.resolve(".mozilla/firefox/profiles.ini"),
        "[Profile0]\nName=default-release\nIsRelative=1\nPath=ab12cd34.default-release\n");
    CaCertificate ca = TestCas.create(home.resolve(".config/loupe"));

    List<NssDatabase> databases = TrustStores.nssDatabases(home, ca, new ProcessCommandRunner());

    assertThat(databases).extracting(TrustStore::id)
        .containsExactly("nss-chromium", "nss-firefox-ab12cd34-default-release");
    NssDatabase firefox = databases.get(1);
    assertThat(firefox.displayName()).isEqualTo("Firefox — default-release");
    assertThat(firefox.status().state()).isEqualTo(TrustStatus.State.NOT_TRUSTED);
    assertThat(firefox.install().success()).isTrue();
    assertThat(Nss.flags(profile, ca.nickname())).isEqualTo("C,,");
    assertThat(Nss.certificates(profile, ca.nickname())).containsExactly(ca.certificate());
    assertThat(home.resolve(".pki")).as("installing in Firefox leaves Chromium alone").doesNotExist();
  }
}
