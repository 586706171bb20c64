package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.util.ByteSizes;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Parsing and usage errors of the public command line, in-process. */
@Timeout(60)
class CommandLineTest {
  @TempDir Path tmp;

  private static CliRun run(String... args) {
    return CliRun.of(args);
  }

  @Test
  void unknownOptionExits2WithOneLineReason() {
    CliRun r = run("--bogus");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().lines().findFirst().orElseThrow()).startsWith("loupe: ").contains("--bogus");
  }

  @Test
  void badListenValueExits2() {
    CliRun r = run("--headless", "--listen", "nonsense", "--confdir", tmp.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --listen");
    assertThat(r.err().lines().count()).isEqualTo(1);
  }

  @Test
  void nonLoopbackNeedsAllowRemote() {
    CliRun r = run("--headless", "--listen", "0.0.0.0:0", "--confdir", tmp.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--allow-remote");
  }

  @Test
  void badTrustCaFileExits2NamingIt() throws Exception {
    Path junk = Files.writeString(tmp.resolve("junk.pem"), "not a certificate");
    CliRun r = run("--headless", "--listen", "127.0.0.1:0", "--confdir", tmp.toString(), "--trust-ca", junk.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("junk.pem");
  }

  @Test
  void badRegexAndSizeExit2() {
    assertThat(run("--ignore-hosts", "(", "--confdir", tmp.toString()).code()).isEqualTo(2);
    assertThat(run("--body-cap", "lots", "--confdir", tmp.toString()).code()).isEqualTo(2);
    assertThat(run("--ca-key", "dsa", "--confdir", tmp.toString()).code()).isEqualTo(2);
  }

  @Test
  void caPathAndExport() throws Exception {
    CliRun path = run("ca", "path", "--confdir", tmp.toString());
    assertThat(path.code()).isEqualTo(0);
    Path pem = Path.of(path.out().trim());
    assertThat(pem).exists().hasFileName("ca-cert.pem");
    Path der = tmp.resolve("ca.der");
    assertThat(run("ca", "export", "--confdir", tmp.toString(), "--format", "der", der.toString()).code()).isZero();
    var cf = java.security.cert.CertificateFactory.getInstance("X.509");
    var fromDer = cf.generateCertificate(Files.newInputStream(der));
    var fromPem = cf.generateCertificate(Files.newInputStream(pem));
    assertThat(fromDer).isEqualTo(fromPem);
    assertThat(Files.readString(pem)).startsWith("-----BEGIN CERTIFICATE-----");
    assertThat(run("ca", "export", "--confdir", tmp.toString(), "--format", "xml", "x").code()).isEqualTo(2);
  }

  @Test
  void helpExplainsOptions() {
    CliRun r = run("--help");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("--headless", "--listen", "--confdir", "--trust-ca", "--insecure",
        "--ignore-hosts", "--har", "ca");
  }

  @Test
  void sizesAndListenAddresses() {
    assertThat(ByteSizes.parse("1MiB")).isEqualTo(1 << 20);
    assertThat(ByteSizes.parse("512k")).isEqualTo(512 * 1024);
    assertThat(ByteSizes.parse("2MB")).isEqualTo(2_000_000);
    assertThat(ByteSizes.parse("100")).isEqualTo(100);
    assertThatThrownBy(() -> ByteSizes.parse("x")).isInstanceOf(IllegalArgumentException.class);
    assertThat(ListenAddress.parse("127.0.0.1:8080")).isEqualTo(new InetSocketAddress("127.0.0.1", 8080));
    assertThat(ListenAddress.parse(":9000").getPort()).isEqualTo(9000);
    assertThat(ListenAddress.parse("[::1]:8080").getAddress().isLoopbackAddress()).isTrue();
    assertThatThrownBy(() -> ListenAddress.parse("::1:80")).hasMessageContaining("brackets");
    assertThatThrownBy(() -> ListenAddress.parse("host:99999")).isInstanceOf(IllegalArgumentException.class);
  }
}
