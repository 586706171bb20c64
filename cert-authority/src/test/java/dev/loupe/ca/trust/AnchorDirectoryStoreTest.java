package dev.loupe.ca.trust;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The system store's file logic against temporary directories (the real
 * /usr/local/share/ca-certificates is never touched); only the final update-ca-certificates /
 * update-ca-trust invocation is a recorded command line.
 */
@Timeout(60)
class AnchorDirectoryStoreTest {
  @TempDir Path tmp;
  private CaCertificate ca;
  private CaCertificate otherCa;
  private Path anchors;
  private Path bundle;
  private ScriptedRunner runner;

  @BeforeEach
  void setUp() throws Exception {
    ca = TestCas.create(tmp.resolve("ca"));
    otherCa = TestCas.create(tmp.resolve("other-ca"));
    anchors = tmp.resolve("usr/local/share/ca-certificates");
    bundle = tmp.resolve("etc/ssl/certs/ca-certificates.crt");
    Files.createDirectories(bundle.getParent());
    runner = new ScriptedRunner("update-ca-certificates");
  }

  private AnchorDirectoryStore debian(boolean privileged) {
    return AnchorDirectoryStore.debian(ca, runner, privileged, anchors, bundle);
  }

  @Test
  void installWritesTheAnchorAndRunsUpdateCaCertificates() throws Exception {
    AnchorDirectoryStore store = debian(true);
    assertThat(store.status()).isEqualTo(TrustStatus.notTrusted("no " + anchors.resolve("loupe-ca.crt")));

    TrustResult installed = store.install();

    assertThat(installed.success()).as(installed.message()).isTrue();
    Path anchor = anchors.resolve("loupe-ca.crt");
    assertThat(anchor).hasBinaryContent(ca.pem());
    assertThat(CaCertificate.parseAll(Files.readAllBytes(anchor))).containsExactly(ca.certificate());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(anchor))).isEqualTo("rw-r--r--");
    assertThat(runner.commands).containsExactly(List.of("update-ca-certificates"));
    assertThat(installed.message()).isEqualTo("Wrote " + anchor + ".\nRan update-ca-certificates.");
    assertThat(store.status().state()).as("no bundle file: the anchor decides").isEqualTo(TrustStatus.State.TRUSTED);
  }

  @Test
  void statusChecksTheBundleTheToolBuilds() throws Exception {
    AnchorDirectoryStore store = debian(true);
    Files.write(bundle, otherCa.pem());
    assertThat(store.install().success()).isTrue();

    assertThat(store.status().state()).as("the tool has not put it in the bundle")
        .isEqualTo(TrustStatus.State.NOT_TRUSTED);
    assertThat(store.status().detail()).contains("update-ca-certificates has not run since");

    Files.write(bundle, concat(otherCa.pem(), ca.pem()));
    assertThat(store.status()).isEqualTo(TrustStatus.trusted("via " + anchors.resolve("loupe-ca.crt")));
  }

  @Test
  void reinstallingIsIdempotentAndReplacesAnEarlierLoupeCa() throws Exception {
    AnchorDirectoryStore store = debian(true);
    Files.createDirectories(anchors);
    Path anchor = anchors.resolve("loupe-ca.crt");
    Files.write(anchor, otherCa.pem());
    assertThat(store.status().detail()).endsWith("holds a different certificate");

    TrustResult replaced = store.install();
    TrustResult again = store.install();

    assertThat(replaced.message()).startsWith("Replaced " + anchor + ", which held a different certificate");
    assertThat(again.success()).isTrue();
    assertThat(again.message()).startsWith(anchor + " already holds this CA.");
    assertThat(anchor).hasBinaryContent(ca.pem());
    assertThat(runner.commands).containsExactly(List.of("update-ca-certificates"), List.of("update-ca-certificates"));
    try (var files = Files.list(anchors)) {
      assertThat(files).as("no temporary files left").containsExactly(anchor);
    }
  }

  @Test
  void removeDeletesOnlyItsAnchorAndRunsFresh() throws Exception {
    AnchorDirectoryStore store = debian(true);
    Files.createDirectories(anchors);
    Path neighbour = Files.write(anchors.resolve("corporate.crt"), otherCa.pem());
    assertThat(store.install().success()).isTrue();
    runner.commands.clear();

    TrustResult removed = store.remove();

    assertThat(removed.success()).as(removed.message()).isTrue();
    assertThat(anchors.resolve("loupe-ca.crt")).doesNotExist();
    assertThat(neighbour).hasBinaryContent(otherCa.pem());
    assertThat(runner.commands).containsExactly(List.of("update-ca-certificates", "--fresh"));
    assertThat(store.status().state()).isEqualTo(TrustStatus.State.NOT_TRUSTED);

    runner.commands.clear();
    TrustResult nothing = store.remove();
    assertThat(nothing.success()).isTrue();
    assertThat(nothing.message()).startsWith("Nothing to remove");
    assertThat(runner.commands).isEmpty();
  }

  @Test
  void removeRefusesAnAnchorHoldingAnotherCertificate() throws Exception {
    Files.createDirectories(anchors);
    Path anchor = Files.write(anchors.resolve("loupe-ca.crt"), otherCa.pem());

    TrustResult removed = debian(true).remove();

    assertThat(removed.success()).isFalse();
    assertThat(removed.message()).contains("holds a different certificate");
    assertThat(anchor).hasBinaryContent(otherCa.pem());
    assertThat(runner.commands).isEmpty();
  }

  @Test
  void withoutRootItChangesNothingAndGivesTheSudoCommand() throws Exception {
    Path caFile = tmp.resolve("my config/ca-cert.pem");
    ca = CaCertificate.of(ca.certificate(), caFile);
    AnchorDirectoryStore store = debian(false);
    Path anchor = anchors.resolve("loupe-ca.crt");

    assertThat(store.manualInstallCommand()).hasValue(
        "sudo cp '" + caFile + "' " + anchor + " && sudo update-ca-certificates");
    assertThat(store.manualRemoveCommand()).hasValue(
        "sudo rm " + anchor + " && sudo update-ca-certificates --fresh");
    TrustResult installed = store.install();
    assertThat(installed.success()).isFalse();
    assertThat(installed.message()).endsWith(store.manualInstallCommand().orElseThrow());
    assertThat(store.remove().success()).isFalse();
    assertThat(anchors).doesNotExist();
    assertThat(runner.commands).isEmpty();
    assertThat(debian(true).manualInstallCommand()).isEmpty();
  }

  @Test
  void theToolsErrorOutputIsReportedVerbatim() {
    runner.answering(1, "", "Updating certificates in /etc/ssl/certs...\nrehash: error: disk full");

    TrustResult installed = debian(true).install();

    assertThat(installed.success()).isFalse();
    assertThat(installed.message()).endsWith(
        "update-ca-certificates exited with 1:\nUpdating certificates in /etc/ssl/certs...\nrehash: error: disk full");
  }

  @Test
  void withoutTheToolTheStoreIsUnavailable() {
    AnchorDirectoryStore store = AnchorDirectoryStore.debian(ca, new ScriptedRunner(), true, anchors, bundle);

    assertThat(store.status()).isEqualTo(TrustStatus.unavailable("update-ca-certificates not found"));
    assertThat(store.install().success()).isFalse();
    assertThat(anchors).doesNotExist();
  }

  @Test
  void fedoraUsesItsAnchorsDirectoryAndUpdateCaTrust() throws Exception {
    ScriptedRunner fedoraRunner = new ScriptedRunner("update-ca-trust");
    Path fedoraAnchors = tmp.resolve("etc/pki/ca-trust/source/anchors");
    AnchorDirectoryStore store = AnchorDirectoryStore.fedora(ca, fedoraRunner, true, fedoraAnchors,
        tmp.resolve("etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"));

    assertThat(store.install().success()).isTrue();
    assertThat(fedoraAnchors.resolve("loupe-ca.crt")).hasBinaryContent(ca.pem());
    assertThat(store.remove().success()).isTrue();
    assertThat(fedoraAnchors.resolve("loupe-ca.crt")).doesNotExist();
    assertThat(fedoraRunner.commands)
        .containsExactly(List.of("update-ca-trust", "extract"), List.of("update-ca-trust", "extract"));
    assertThat(AnchorDirectoryStore.fedora(ca, fedoraRunner, false).manualInstallCommand()).hasValue(
        "sudo cp " + ca.file() + " /etc/pki/ca-trust/source/anchors/loupe-ca.crt && sudo update-ca-trust extract");
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
