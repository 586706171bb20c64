package dev.loupe.ca.trust;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * macOS {@code security} and Windows {@code certutil} cannot run on Linux: these tests assert the
 * exact command lines and how their answers are read.
 */
@Timeout(60)
class MacAndWindowsStoresTest {
  @TempDir Path tmp;
  private CaCertificate ca;
  private final Path home = Path.of("/Users/ada");
  private final String keychain = "/Users/ada/Library/Keychains/login.keychain-db";

  @BeforeEach
  void createCa() {
    ca = TestCas.create(tmp.resolve("ca"));
  }

  @Test
  void macInstallsAsTrustedRootInTheLoginKeychain() {
    ScriptedRunner runner = new ScriptedRunner("security");
    TrustResult installed = new MacKeychainStore(home, ca, runner).install();

    assertThat(installed.success()).isTrue();
    List<String> argv = runner.commands.get(0);
    assertThat(argv.subList(0, 6)).containsExactly("security", "add-trusted-cert", "-r", "trustRoot", "-k", keychain);
    assertThat(argv).hasSize(7);
    assertThat(argv.get(6)).endsWith(".pem");
    assertThat(Path.of(argv.get(6))).as("the temporary PEM is deleted afterwards").doesNotExist();
  }

  @Test
  void macRemovesByShaOneHashOnly() {
    ScriptedRunner runner = new ScriptedRunner("security");
    assertThat(new MacKeychainStore(home, ca, runner).remove().success()).isTrue();
    assertThat(runner.commands).containsExactly(
        List.of("security", "delete-certificate", "-Z", ca.sha1Hex(), "-t", keychain));
    assertThat(ca.sha1Hex()).matches("[0-9A-F]{40}");
  }

  @Test
  void macStatusLooksForThisCasHash() {
    String listing = "SHA-256 hash: 00\nSHA-1 hash: " + ca.sha1Hex() + "\nkeychain: \"" + keychain + "\"\n";
    ScriptedRunner runner = new ScriptedRunner("security").answering(0, listing, "");
    MacKeychainStore store = new MacKeychainStore(home, ca, runner);

    assertThat(store.status().state()).isEqualTo(TrustStatus.State.TRUSTED);
    assertThat(runner.commands).containsExactly(
        List.of("security", "find-certificate", "-a", "-Z", "-c", ca.commonName(), keychain));
    runner.answering(0, "SHA-1 hash: 0123456789ABCDEF0123456789ABCDEF01234567\n", "");
    assertThat(store.status().state()).as("a look-alike by name").isEqualTo(TrustStatus.State.NOT_TRUSTED);
    runner.answering(44, "", "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.");
    assertThat(store.status()).isEqualTo(TrustStatus.notTrusted("not in the login keychain"));
    runner.answering(51, "", "security: SecKeychainOpen: denied");
    assertThat(store.status().state()).isEqualTo(TrustStatus.State.UNAVAILABLE);
    assertThat(store.status().detail()).endsWith("exited with 51:\nsecurity: SecKeychainOpen: denied");
  }

  @Test
  void macFailureIsVerbatim() {
    ScriptedRunner runner = new ScriptedRunner("security")
        .answering(1, "", "SecTrustSettingsSetTrustSettings: The authorization was canceled by the user.");
    TrustResult installed = new MacKeychainStore(home, ca, runner).install();
    assertThat(installed.success()).isFalse();
    assertThat(installed.message()).endsWith(
        "exited with 1:\nSecTrustSettingsSetTrustSettings: The authorization was canceled by the user.");
  }

  @Test
  void windowsUsesTheUserRootStoreAndTheThumbprint() {
    ScriptedRunner runner = new ScriptedRunner("certutil");
    WindowsRootStore store = new WindowsRootStore(ca, runner);

    assertThat(store.install().success()).isTrue();
    assertThat(store.status().state()).isEqualTo(TrustStatus.State.TRUSTED);
    assertThat(store.remove().success()).isTrue();

    List<String> add = runner.commands.get(0);
    assertThat(add.subList(0, 4)).containsExactly("certutil", "-addstore", "-user", "Root");
    assertThat(add.get(4)).endsWith(".cer");
    assertThat(runner.commands.subList(1, 3)).containsExactly(
        List.of("certutil", "-store", "-user", "Root", ca.sha1Hex()),
        List.of("certutil", "-delstore", "-user", "Root", ca.sha1Hex()));

    runner.answering(-2146885628, "", "CertUtil: -store command FAILED: 0x80092004 (-2146885628 CRYPT_E_NOT_FOUND)");
    assertThat(store.status()).isEqualTo(TrustStatus.notTrusted("not in the user Root store"));
    TrustResult removed = store.remove();
    assertThat(removed.success()).isFalse();
    assertThat(removed.message()).contains("CRYPT_E_NOT_FOUND");
  }

  @Test
  void privilegedMeansRunningAsRoot() throws Exception {
    Process id = new ProcessBuilder("id", "-u").start();
    String uid = new String(id.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim();
    assertThat(id.waitFor()).isZero();
    assertThat(TrustStores.Environment.current().privileged()).isEqualTo(uid.equals("0"));
    assertThat(TrustStores.Environment.current().home()).isEqualTo(Path.of(System.getProperty("user.home")));
  }

  @Test
  void theMachineDecidesWhichStoresAreOffered() {
    ScriptedRunner everything = new ScriptedRunner("certutil", "security", "update-ca-certificates");
    assertThat(TrustStores.find(ca, new TrustStores.Environment("Windows 11", tmp, false), everything))
        .extracting(TrustStore::id).containsExactly("windows-user-root");
    assertThat(TrustStores.find(ca, new TrustStores.Environment("Mac OS X", tmp, false), everything))
        .extracting(TrustStore::id).containsExactly("macos-login-keychain");
    assertThat(TrustStores.find(ca, new TrustStores.Environment("Linux", tmp, false), everything))
        .extracting(TrustStore::id).containsExactly("nss-chromium", "system-debian");
    assertThat(TrustStores.find(ca, new TrustStores.Environment("Linux", tmp, true),
            new ScriptedRunner("certutil", "update-ca-trust")))
        .extracting(TrustStore::id).containsExactly("nss-chromium", "system-fedora");
  }
}
