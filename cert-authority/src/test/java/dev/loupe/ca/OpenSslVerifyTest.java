package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An independent verifier: {@code openssl verify -purpose sslserver -x509_strict} must accept our
 * chains, with hostname / IP checks, for EC and RSA CAs.
 */
@Timeout(60)
class OpenSslVerifyTest {
  private static final Path OPENSSL = Path.of("/usr/bin/openssl");

  @TempDir static Path tmp;
  private static final Map<KeyAlgorithm, CertificateAuthority> CAS = new EnumMap<>(KeyAlgorithm.class);

  @BeforeAll
  static void createCas() throws Exception {
    assumeTrue(Files.isExecutable(OPENSSL), "openssl not installed at " + OPENSSL);
    for (KeyAlgorithm algorithm : KeyAlgorithm.values()) {
      CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp.resolve(algorithm.name()), algorithm);
      CAS.put(algorithm, ca);
    }
  }

  static Stream<Arguments> leaves() {
    List<Arguments> cases = new ArrayList<>();
    for (KeyAlgorithm algorithm : KeyAlgorithm.values()) {
      cases.add(Arguments.of(algorithm, "www.example.com", "-verify_hostname", "www.example.com"));
      cases.add(Arguments.of(algorithm, "www.example.com", "-verify_hostname", "api.example.com"));
      cases.add(Arguments.of(algorithm, "example.com", "-verify_hostname", "example.com"));
      cases.add(Arguments.of(algorithm, "localhost", "-verify_hostname", "localhost"));
      cases.add(Arguments.of(algorithm, "127.0.0.1", "-verify_ip", "127.0.0.1"));
      cases.add(Arguments.of(algorithm, "::1", "-verify_ip", "::1"));
      cases.add(Arguments.of(algorithm, "[2001:db8::1]", "-verify_ip", "2001:db8::1"));
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}")
  @MethodSource("leaves")
  void opensslAcceptsLeafForServerUse(KeyAlgorithm algorithm, String host, String check, String value)
      throws Exception {
    CertificateAuthority ca = CAS.get(algorithm);
    Path leafPem = writeLeaf(ca, host);
    String plain = verify(ca, leafPem);
    assertThat(plain).isEqualTo(leafPem + ": OK");
    String checked = verify(ca, leafPem, check, value);
    assertThat(checked).isEqualTo(leafPem + ": OK");
  }

  @Test
  void opensslRejectsAWrongHostname() throws Exception {
    CertificateAuthority ca = CAS.get(KeyAlgorithm.EC_P256);
    Path leafPem = writeLeaf(ca, "www.example.com");
    // the wildcard covers one label only: not example.com itself, not deeper names
    assertThat(verify(ca, leafPem, "-verify_hostname", "evil.com")).doesNotContain(": OK");
    assertThat(verify(ca, leafPem, "-verify_hostname", "example.com")).doesNotContain(": OK");
    assertThat(verify(ca, leafPem, "-verify_hostname", "a.b.example.com")).doesNotContain(": OK");
    Path ipPem = writeLeaf(ca, "127.0.0.1");
    assertThat(verify(ca, ipPem, "-verify_ip", "127.0.0.2")).doesNotContain(": OK");
  }

  @Test
  void opensslRejectsALeafUnderAnotherCa() throws Exception {
    Path leafPem = writeLeaf(CAS.get(KeyAlgorithm.EC_P256), "www.example.com");
    assertThat(verify(CAS.get(KeyAlgorithm.RSA_2048), leafPem)).doesNotContain(": OK");
  }

  private static Path writeLeaf(CertificateAuthority ca, String host) throws Exception {
    Path file = Files.createTempFile(tmp, "leaf-", ".pem");
    Certs.writePem(ca.leafFor(host).certificate(), file);
    return file;
  }

  private static String verify(CertificateAuthority ca, Path leafPem, String... extra)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(OPENSSL.toString(), "verify", "-CAfile",
        ca.certificatePath().toString(), "-purpose", "sslserver", "-x509_strict"));
    command.addAll(List.of(extra));
    command.add(leafPem.toString());
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new String(output, StandardCharsets.UTF_8).strip();
  }
}
