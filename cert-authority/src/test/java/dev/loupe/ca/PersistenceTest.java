package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Creating, persisting, reloading and exporting the CA; every broken on-disk state is refused
 * with a {@link CaException} naming the file and leaves the files exactly as they were.
 */
@Timeout(60)
class PersistenceTest {
  @TempDir Path tmp;
  private Path dir;

  @BeforeEach
  void setUp() {
    dir = tmp.resolve("config").resolve("loupe");
  }

  private Path cert() {
    return dir.resolve("ca-cert.pem");
  }

  private Path key() {
    return dir.resolve("ca-key.pem");
  }

  // ------------------------------------------------------------------ creating and loading

  @Test
  void createsDirectoryAndBothFilesWithTightPermissions() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    assertThat(ca.certificatePath()).isEqualTo(cert());
    assertThat(ca.privateKeyPath()).isEqualTo(key());
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("no temporary files left behind")
          .containsExactlyInAnyOrder("ca-cert.pem", "ca-key.pem");
    }
    assumeTrue(CaFiles.supportsPosix(dir), "POSIX permissions not supported here");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key()))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cert()))).isEqualTo("rw-r--r--");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
  }

  @Test
  void writesPemCertificateAndPkcs8Key() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Certs.assertPem(cert(), "CERTIFICATE");
    Certs.assertPem(key(), "PRIVATE KEY");
    X509Certificate onDisk = Certs.read(cert());
    assertThat(onDisk.getSerialNumber()).isEqualTo(ca.certificate().getSerialNumber());
    assertThat(onDisk.getPublicKey()).isEqualTo(ca.certificate().getPublicKey());
  }

  @Test
  void leavesAnExistingDirectoryItsPermissions() throws Exception {
    Files.createDirectories(dir);
    assumeTrue(CaFiles.supportsPosix(dir));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    CertificateAuthority.loadOrCreate(dir);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwxr-xr-x");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key()))).isEqualTo("rw-------");
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void secondLoadReturnsTheSameCa(KeyAlgorithm algorithm) throws Exception {
    CertificateAuthority first = CertificateAuthority.loadOrCreate(dir, algorithm);
    Map<String, String> before = snapshot(dir);
    CertificateAuthority second = CertificateAuthority.loadOrCreate(dir, algorithm);
    assertThat(second.certificate().getSerialNumber()).isEqualTo(first.certificate().getSerialNumber());
    assertThat(second.certificate().getPublicKey()).isEqualTo(first.certificate().getPublicKey());
    assertThat(second.certificate().getSubjectX500Principal())
        .isEqualTo(first.certificate().getSubjectX500Principal());
    assertThat(second.keyAlgorithm()).isEqualTo(algorithm);
    assertThat(snapshot(dir)).as("loading changes nothing on disk").isEqualTo(before);
    // the reloaded key signs leaves the first CA's certificate validates
    X509Certificate leaf = second.leafFor("reload.example.com").certificate();
    leaf.verify(first.certificate().getPublicKey());
  }

  @Test
  void loadedCaKeepsItsOwnAlgorithmWhateverIsAsked() {
    CertificateAuthority.loadOrCreate(dir, KeyAlgorithm.EC_P256);
    CertificateAuthority again = CertificateAuthority.loadOrCreate(dir, KeyAlgorithm.RSA_2048);
    assertThat(again.keyAlgorithm()).isEqualTo(KeyAlgorithm.EC_P256);
    assertThat(again.certificate().getPublicKey().getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void loadsAKeyInTraditionalOpenSslFormat() throws Exception {
    Path opensslBinary = Path.of("/usr/bin/openssl");
    assumeTrue(Files.isExecutable(opensslBinary), "openssl not installed");
    Files.createDirectories(dir);
    // An externally made CA: PKCS#8 key from req, then rewritten as SEC1 "EC PRIVATE KEY".
    run(opensslBinary.toString(), "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
        "-nodes", "-keyout", dir.resolve("pkcs8.pem").toString(), "-out", cert().toString(),
        "-subj", "/CN=Imported Test CA", "-days", "30",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    run(opensslBinary.toString(), "ec", "-in", dir.resolve("pkcs8.pem").toString(), "-out", key().toString());
    assertThat(Files.readString(key())).contains("BEGIN EC PRIVATE KEY");

    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    assertThat(Certs.commonName(ca.certificate())).isEqualTo("Imported Test CA");
    X509Certificate leaf = ca.leafFor("imported.example.com").certificate();
    Certs.validatePkix(leaf, ca.certificate());
    assertThat(Certs.authorityKeyId(leaf)).isEqualTo(Certs.subjectKeyId(ca.certificate()));
    assertThat(leaf.getNotAfter()).isBeforeOrEqualTo(ca.certificate().getNotAfter());
  }

  // ------------------------------------------------------------------ refusals

  @Test
  void corruptCertificateIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.writeString(cert(), "this is not a certificate\n");
    assertRefusedUnchanged(cert(), "Corrupt CA certificate");
  }

  @Test
  void emptyCertificateIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.write(cert(), new byte[0]);
    assertRefusedUnchanged(cert(), "Corrupt CA certificate");
  }

  @Test
  void truncatedCertificateIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    String pem = Files.readString(cert());
    Files.writeString(cert(), pem.substring(0, pem.length() / 2));
    assertRefusedUnchanged(cert(), "Corrupt CA certificate");
  }

  @Test
  void certificateWithDamagedSignatureIsRefused() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    byte[] der = ca.certificate().getEncoded();
    der[der.length - 3] ^= 0x55; // inside the signature value: still parses, no longer verifies
    Files.write(cert(), CaFiles.pem("CERTIFICATE", der));
    assertRefusedUnchanged(cert(), "self-signature");
  }

  @Test
  void corruptKeyIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.writeString(key(), "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n");
    assertRefusedUnchanged(key(), "Corrupt CA private key");
  }

  @Test
  void garbageKeyIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.writeString(key(), "garbage");
    assertRefusedUnchanged(key(), "Corrupt CA private key");
  }

  @Test
  void truncatedKeyIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    String pem = Files.readString(key());
    Files.writeString(key(), pem.substring(0, pem.length() / 2));
    assertRefusedUnchanged(key(), "Corrupt CA private key");
  }

  @Test
  void emptyKeyIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.write(key(), new byte[0]);
    assertRefusedUnchanged(key(), "Corrupt CA private key");
  }

  @Test
  void keyOfAnotherCaIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Path other = tmp.resolve("other");
    CertificateAuthority.loadOrCreate(other);
    Files.copy(other.resolve("ca-key.pem"), key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertRefusedUnchanged(key(), "does not match");
  }

  @Test
  void keyOfAnotherAlgorithmIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir, KeyAlgorithm.EC_P256);
    Path other = tmp.resolve("other");
    CertificateAuthority.loadOrCreate(other, KeyAlgorithm.RSA_2048);
    Files.copy(other.resolve("ca-key.pem"), key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    assertRefusedUnchanged(key(), "does not match");
  }

  @Test
  void certificateWithoutKeyIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(key());
    CaException e = assertRefusedUnchanged(key(), "Missing CA file");
    assertThat(e.getMessage()).contains(cert().toString());
    assertThat(key()).doesNotExist();
  }

  @Test
  void keyWithoutCertificateIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(cert());
    CaException e = assertRefusedUnchanged(cert(), "Missing CA file");
    assertThat(e.getMessage()).contains(key().toString());
    assertThat(cert()).doesNotExist();
  }

  @Test
  void danglingSymlinkCountsAsPresent() throws Exception {
    Files.createDirectories(dir);
    Files.createSymbolicLink(key(), tmp.resolve("nowhere.pem"));
    assertRefusedUnchanged(cert(), "Missing CA file");
    assertThat(tmp.resolve("nowhere.pem")).doesNotExist();
  }

  @Test
  void certificateThatIsADirectoryIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(cert());
    Files.createDirectory(cert());
    assertRefusedUnchanged(cert(), "Cannot read CA certificate");
  }

  @Test
  void keyThatIsADirectoryIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(key());
    Files.createDirectory(key());
    assertRefusedUnchanged(key(), "Cannot read CA private key");
  }

  /** Root-proof "unreadable": reading /proc/self/mem at offset 0 fails with EIO. */
  @Test
  void keyFileFailingWithAnIoErrorIsRefused() throws Exception {
    Path failing = Path.of("/proc/self/mem");
    assumeTrue(Files.exists(failing), "needs Linux /proc");
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(key());
    Files.createSymbolicLink(key(), failing);
    assertRefusedUnchanged(key(), "Cannot read CA private key");
  }

  @Test
  void certificateFileFailingWithAnIoErrorIsRefused() throws Exception {
    Path failing = Path.of("/proc/self/mem");
    assumeTrue(Files.exists(failing), "needs Linux /proc");
    CertificateAuthority.loadOrCreate(dir);
    Files.delete(cert());
    Files.createSymbolicLink(cert(), failing);
    assertRefusedUnchanged(cert(), "Cannot read CA certificate");
  }

  @Test
  void unreadableKeyIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    assumeTrue(CaFiles.supportsPosix(dir));
    Files.setPosixFilePermissions(key(), PosixFilePermissions.fromString("---------"));
    try {
      assumeFalse(Files.isReadable(key()), "running as root: permissions do not stop reads");
      assertRefusedUnchanged(key(), "Cannot read CA private key");
    } finally {
      Files.setPosixFilePermissions(key(), PosixFilePermissions.fromString("rw-------"));
    }
  }

  @Test
  void unreadableCertificateIsRefused() throws Exception {
    CertificateAuthority.loadOrCreate(dir);
    assumeTrue(CaFiles.supportsPosix(dir));
    Files.setPosixFilePermissions(cert(), PosixFilePermissions.fromString("---------"));
    try {
      assumeFalse(Files.isReadable(cert()), "running as root: permissions do not stop reads");
      assertRefusedUnchanged(cert(), "Cannot read CA certificate");
    } finally {
      Files.setPosixFilePermissions(cert(), PosixFilePermissions.fromString("rw-r--r--"));
    }
  }

  @Test
  void leafCertificateInPlaceOfTheCaIsRefused() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    LeafCertificate leaf = ca.leafFor("not-a-ca.example.com");
    Files.write(cert(), CaFiles.pem("CERTIFICATE", leaf.certificate().getEncoded()));
    Files.write(key(), CaFiles.pem("PRIVATE KEY", leaf.privateKey().getEncoded()));
    assertRefusedUnchanged(cert(), "Not a CA certificate");
  }

  @Test
  void expiredCaIsRefused() throws Exception {
    FakeClock elevenYearsAgo = new FakeClock(Instant.now().minus(Duration.ofDays(11 * 365)));
    CertificateAuthority.loadOrCreate(dir, KeyAlgorithm.EC_P256, 10, elevenYearsAgo);
    assertRefusedUnchanged(cert(), "Expired CA certificate");
  }

  @Test
  void configDirectoryThatIsAFileIsRefused() throws Exception {
    Files.createDirectories(dir.getParent());
    Files.writeString(dir, "a file");
    assertRefusedUnchanged(dir, "Not a directory");
    assertThat(Files.readString(dir)).isEqualTo("a file");
  }

  // ------------------------------------------------------------------ export

  @Test
  void exportPemWritesOnlyTheCertificate() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Path out = tmp.resolve("exported.pem");
    ca.exportPem(out);
    Certs.assertPem(out, "CERTIFICATE");
    assertThat(Files.readString(out)).doesNotContain("PRIVATE");
    X509Certificate exported = Certs.read(out);
    assertThat(exported.getSerialNumber()).isEqualTo(ca.certificate().getSerialNumber());
    assertThat(exported.getPublicKey()).isEqualTo(ca.certificate().getPublicKey());
  }

  @Test
  void exportDerWritesTheRawCertificate() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Path out = tmp.resolve("exported.cer");
    ca.exportDer(out);
    assertThat(Files.readString(out, StandardCharsets.ISO_8859_1)).doesNotContain("-----BEGIN");
    assertThat(Files.readAllBytes(out)[0]).as("DER SEQUENCE tag").isEqualTo((byte) 0x30);
    X509Certificate exported = Certs.read(out);
    assertThat(exported.getSerialNumber()).isEqualTo(ca.certificate().getSerialNumber());
    assertThat(exported.getSubjectX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
  }

  @Test
  void exportReplacesAnExistingFileAndIsWorldReadable() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Path out = tmp.resolve("exported.pem");
    Files.writeString(out, "old");
    ca.exportPem(out);
    assertThat(Certs.read(out).getSerialNumber()).isEqualTo(ca.certificate().getSerialNumber());
    assumeTrue(CaFiles.supportsPosix(out));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out))).isEqualTo("rw-r--r--");
  }

  @Test
  void exportNeverTouchesTheCaFiles() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Map<String, String> before = snapshot(dir);
    for (ThrowingCallable export : new ThrowingCallable[] {
        () -> ca.exportDer(ca.privateKeyPath()),
        () -> ca.exportPem(ca.privateKeyPath()),
        () -> ca.exportDer(ca.certificatePath()),
        () -> ca.exportPem(dir.resolve("..").resolve("loupe").resolve("ca-key.pem"))}) {
      assertThatThrownBy(export).isInstanceOf(CaException.class).hasMessageContaining("Refusing to export");
    }
    assertThat(snapshot(dir)).isEqualTo(before);
  }

  @Test
  void exportIntoAMissingDirectoryNamesTheFile() throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir);
    Path out = tmp.resolve("no-such-dir").resolve("ca.pem");
    assertThatThrownBy(() -> ca.exportPem(out))
        .isInstanceOf(CaException.class)
        .hasMessageContaining(out.toString());
  }

  // ------------------------------------------------------------------ helpers

  /**
   * loadOrCreate must throw a CaException naming {@code file}, and leave every file under {@link
   * #tmp} byte-for-byte and permission-for-permission as it was.
   */
  private CaException assertRefusedUnchanged(Path file, String messageFragment) throws IOException {
    Map<String, String> before = snapshot(tmp);
    Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> CertificateAuthority.loadOrCreate(dir));
    assertThat(thrown).isInstanceOf(CaException.class);
    CaException e = (CaException) thrown;
    assertThat(e.getMessage()).contains(messageFragment).contains(file.toString());
    assertThat(e.file()).contains(file);
    assertThat(snapshot(tmp)).as("files after the refusal").isEqualTo(before);
    return e;
  }

  /** Path → permissions + content (Base64) of every entry under {@code root}. */
  private static Map<String, String> snapshot(Path root) throws IOException {
    Map<String, String> state = new TreeMap<>();
    if (!Files.exists(root, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return state;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : (Iterable<Path>) paths::iterator) {
        String permissions = CaFiles.supportsPosix(root) && !Files.isSymbolicLink(p)
            ? PosixFilePermissions.toString(Files.getPosixFilePermissions(p)) : "";
        String content;
        if (Files.isSymbolicLink(p)) {
          content = "-> " + Files.readSymbolicLink(p);
        } else if (Files.isDirectory(p)) {
          content = "dir";
        } else if (Files.isReadable(p)) {
          content = java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(p));
        } else {
          content = "unreadable, " + Files.size(p) + " bytes, modified " + Files.getLastModifiedTime(p);
        }
        state.put(root.relativize(p).toString(), permissions + " " + content);
      }
    }
    return state;
  }

  private static void run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(output).isZero();
  }
}
