package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.math.BigInteger;
import java.nio.file.Path;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECParameterSpec;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The root CA certificate's fields, for both key algorithms. */
@Timeout(60)
class RootCertificateTest {
  @TempDir static Path tmp;
  private static final Map<KeyAlgorithm, CertificateAuthority> CAS = new EnumMap<>(KeyAlgorithm.class);
  private static Instant createdAround;

  @BeforeAll
  static void createCas() {
    createdAround = Instant.now();
    for (KeyAlgorithm algorithm : KeyAlgorithm.values()) {
      CAS.put(algorithm, CertificateAuthority.loadOrCreate(tmp.resolve(algorithm.name()), algorithm));
    }
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void basicConstraintsIsCriticalCaWithPathLenZero(KeyAlgorithm algorithm) {
    X509Certificate ca = CAS.get(algorithm).certificate();
    assertThat(ca.getBasicConstraints()).isZero(); // CA:TRUE, pathLen 0 (-1 would mean CA:FALSE)
    assertThat(ca.getCriticalExtensionOIDs()).contains(Certs.BASIC_CONSTRAINTS, Certs.KEY_USAGE);
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void keyUsageIsCertAndCrlSigning(KeyAlgorithm algorithm) {
    boolean[] usage = CAS.get(algorithm).certificate().getKeyUsage();
    assertThat(usage[Certs.KEY_CERT_SIGN]).as("keyCertSign").isTrue();
    assertThat(usage[Certs.CRL_SIGN]).as("cRLSign").isTrue();
    assertThat(usage[Certs.KEY_ENCIPHERMENT]).as("keyEncipherment").isFalse();
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void hasSubjectKeyIdentifierAndSelfAuthorityKeyIdentifier(KeyAlgorithm algorithm) {
    X509Certificate ca = CAS.get(algorithm).certificate();
    assertThat(Certs.subjectKeyId(ca)).isNotEmpty();
    assertThat(Certs.authorityKeyId(ca)).isEqualTo(Certs.subjectKeyId(ca));
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void validForTenYearsBackdatedTwoDays(KeyAlgorithm algorithm) {
    X509Certificate ca = CAS.get(algorithm).certificate();
    Instant notBefore = ca.getNotBefore().toInstant();
    Instant notAfter = ca.getNotAfter().toInstant();
    assertThat(Duration.between(notBefore, createdAround))
        .isBetween(Duration.ofDays(2).minusMinutes(5), Duration.ofDays(2).plusMinutes(5));
    assertThat(Duration.between(createdAround, notAfter))
        .isBetween(Duration.ofDays(3650), Duration.ofDays(3653));
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void isSelfSignedAndVerifiesWithItsOwnKey(KeyAlgorithm algorithm) {
    X509Certificate ca = CAS.get(algorithm).certificate();
    assertThat(ca.getIssuerX500Principal()).isEqualTo(ca.getSubjectX500Principal());
    assertThatCode(() -> ca.verify(ca.getPublicKey())).doesNotThrowAnyException();
    assertThat(ca.getVersion()).isEqualTo(3);
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void serialIsRandomPositiveAndAtMostTwentyBytes(KeyAlgorithm algorithm) {
    BigInteger serial = CAS.get(algorithm).certificate().getSerialNumber();
    assertThat(serial.signum()).isPositive();
    assertThat(serial.toByteArray().length).isLessThanOrEqualTo(20);
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void subjectNamesLoupeCaWithUserAndOrganization(KeyAlgorithm algorithm) {
    X509Certificate ca = CAS.get(algorithm).certificate();
    assertThat(ca.getSubjectX500Principal().getName())
        .startsWith("CN=Loupe CA (" + System.getProperty("user.name") + "@")
        .endsWith("),O=Loupe");
    assertThat(Certs.commonName(ca).length()).isLessThanOrEqualTo(64);
  }

  @Test
  void ecCaUsesP256AndEcdsaWithSha256() {
    X509Certificate ca = CAS.get(KeyAlgorithm.EC_P256).certificate();
    assertThat(ca.getPublicKey()).isInstanceOf(ECPublicKey.class);
    ECParameterSpec params = ((ECPublicKey) ca.getPublicKey()).getParams();
    assertThat(params.getCurve().getField().getFieldSize()).isEqualTo(256);
    assertThat(params.toString()).contains("secp256r1");
    assertThat(ca.getSigAlgName()).isEqualTo("SHA256withECDSA");
    assertThat(CAS.get(KeyAlgorithm.EC_P256).keyAlgorithm()).isEqualTo(KeyAlgorithm.EC_P256);
  }

  @Test
  void rsaCaUses2048BitKeyAndRsaWithSha256() {
    X509Certificate ca = CAS.get(KeyAlgorithm.RSA_2048).certificate();
    assertThat(ca.getPublicKey()).isInstanceOf(RSAPublicKey.class);
    assertThat(((RSAPublicKey) ca.getPublicKey()).getModulus().bitLength()).isEqualTo(2048);
    assertThat(ca.getSigAlgName()).isEqualTo("SHA256withRSA");
    assertThat(CAS.get(KeyAlgorithm.RSA_2048).keyAlgorithm()).isEqualTo(KeyAlgorithm.RSA_2048);
  }

  @Test
  void defaultAlgorithmIsEcP256() {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(tmp.resolve("default"));
    assertThat(ca.keyAlgorithm()).isEqualTo(KeyAlgorithm.EC_P256);
    assertThat(ca.certificate().getPublicKey().getAlgorithm()).isEqualTo("EC");
  }
}
