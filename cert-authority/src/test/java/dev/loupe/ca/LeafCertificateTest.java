package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Leaf certificate fields (SANs, key usages, validity, chaining), for both key algorithms. */
@Timeout(60)
class LeafCertificateTest {
  @TempDir static Path tmp;
  private static final Map<KeyAlgorithm, CertificateAuthority> CAS = new EnumMap<>(KeyAlgorithm.class);

  @BeforeAll
  static void createCas() {
    for (KeyAlgorithm algorithm : KeyAlgorithm.values()) {
      CAS.put(algorithm, CertificateAuthority.loadOrCreate(tmp.resolve(algorithm.name()), algorithm));
    }
  }

  private static CertificateAuthority ec() {
    return CAS.get(KeyAlgorithm.EC_P256);
  }

  @Test
  void dnsNameWithThreeLabelsAlsoGetsItsWildcardSibling() throws Exception {
    X509Certificate leaf = ec().leafFor("www.example.com").certificate();
    assertThat(Certs.dnsNames(leaf)).containsExactly("www.example.com", "*.example.com");
    assertThat(Certs.ipAddresses(leaf)).isEmpty();
    assertThat(Certs.commonName(leaf)).isEqualTo("www.example.com");
  }

  @Test
  void twoLabelNameGetsNoWildcard() throws Exception {
    X509Certificate leaf = ec().leafFor("example.com").certificate();
    assertThat(Certs.dnsNames(leaf)).containsExactly("example.com");
  }

  @Test
  void singleLabelNameIsItsOnlySan() throws Exception {
    X509Certificate leaf = ec().leafFor("localhost").certificate();
    assertThat(Certs.dnsNames(leaf)).containsExactly("localhost");
  }

  @Test
  void deepNameGetsWildcardOfItsParentOnly() throws Exception {
    X509Certificate leaf = ec().leafFor("a.b.c.example.org").certificate();
    assertThat(Certs.dnsNames(leaf)).containsExactly("a.b.c.example.org", "*.b.c.example.org");
  }

  @Test
  void ipv4LiteralIsAnIpAddressSanWithoutDnsNames() throws Exception {
    X509Certificate leaf = ec().leafFor("127.0.0.1").certificate();
    assertThat(Certs.ipAddresses(leaf)).containsExactly(InetAddress.getByName("127.0.0.1"));
    assertThat(Certs.dnsNames(leaf)).isEmpty();
    assertThat(Certs.commonName(leaf)).isEqualTo("127.0.0.1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"::1", "[::1]"})
  void ipv6LiteralWithOrWithoutBracketsIsAnIpAddressSan(String host) throws Exception {
    LeafCertificate leaf = ec().leafFor(host);
    assertThat(leaf.host()).isEqualTo("::1");
    assertThat(Certs.ipAddresses(leaf.certificate())).containsExactly(InetAddress.getByName("::1"));
    assertThat(Certs.ipAddresses(leaf.certificate()).get(0).getAddress()).hasSize(16);
    assertThat(Certs.dnsNames(leaf.certificate())).isEmpty();
  }

  @Test
  void fullIpv6AddressIsAnIpAddressSan() throws Exception {
    X509Certificate leaf = ec().leafFor("[2001:DB8::ff00:42:8329]").certificate();
    assertThat(Certs.ipAddresses(leaf)).containsExactly(InetAddress.getByName("2001:db8::ff00:42:8329"));
  }

  @Test
  void internationalizedNameIsPunycode() throws Exception {
    LeafCertificate leaf = ec().leafFor("bücher.example");
    assertThat(leaf.host()).isEqualTo("xn--bcher-kva.example");
    assertThat(Certs.dnsNames(leaf.certificate())).containsExactly("xn--bcher-kva.example");
  }

  @Test
  void longHostIsTruncatedInCommonNameButNotInSan() throws Exception {
    String host = "a".repeat(63) + "." + "b".repeat(63) + ".example.com";
    X509Certificate leaf = ec().leafFor(host).certificate();
    assertThat(Certs.commonName(leaf)).isEqualTo(host.substring(0, 64));
    assertThat(Certs.dnsNames(leaf)).startsWith(host);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "exa mple.com", "a..b", "evil.com/path", "host:443", "[::1", "*", "x.*.example.com"})
  void rejectsStringsThatAreNotHosts(String host) {
    assertThatThrownBy(() -> ec().leafFor(host)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void isAnEndEntityServerCertificate(KeyAlgorithm algorithm) {
    X509Certificate leaf = CAS.get(algorithm).leafFor("api.example.net").certificate();
    assertThat(leaf.getBasicConstraints()).as("CA:FALSE").isEqualTo(-1);
    assertThat(leaf.getCriticalExtensionOIDs()).contains(Certs.BASIC_CONSTRAINTS, Certs.KEY_USAGE);
    assertThat(leaf.getKeyUsage()[Certs.DIGITAL_SIGNATURE]).as("digitalSignature").isTrue();
    assertThat(leaf.getKeyUsage()[Certs.KEY_CERT_SIGN]).as("keyCertSign").isFalse();
    assertThat(leaf.getVersion()).isEqualTo(3);
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void extendedKeyUsageIsServerAuth(KeyAlgorithm algorithm) throws Exception {
    X509Certificate leaf = CAS.get(algorithm).leafFor("api.example.net").certificate();
    assertThat(leaf.getExtendedKeyUsage()).containsExactly(Certs.SERVER_AUTH);
  }

  @Test
  void ecLeafHasNoKeyEncipherment() {
    X509Certificate leaf = ec().leafFor("api.example.net").certificate();
    assertThat(leaf.getPublicKey()).isInstanceOf(ECPublicKey.class);
    assertThat(leaf.getKeyUsage()[Certs.KEY_ENCIPHERMENT]).isFalse();
    assertThat(leaf.getSigAlgName()).isEqualTo("SHA256withECDSA");
  }

  @Test
  void rsaLeafHasKeyEnciphermentAndRsaSignature() {
    X509Certificate leaf = CAS.get(KeyAlgorithm.RSA_2048).leafFor("api.example.net").certificate();
    assertThat(leaf.getPublicKey()).isInstanceOf(RSAPublicKey.class);
    assertThat(((RSAPublicKey) leaf.getPublicKey()).getModulus().bitLength()).isEqualTo(2048);
    assertThat(leaf.getKeyUsage()[Certs.KEY_ENCIPHERMENT]).isTrue();
    assertThat(leaf.getSigAlgName()).isEqualTo("SHA256withRSA");
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void authorityKeyIdIsTheCaSubjectKeyId(KeyAlgorithm algorithm) {
    CertificateAuthority ca = CAS.get(algorithm);
    X509Certificate leaf = ca.leafFor("api.example.net").certificate();
    assertThat(Certs.authorityKeyId(leaf)).isNotEmpty().isEqualTo(Certs.subjectKeyId(ca.certificate()));
    assertThat(Certs.subjectKeyId(leaf)).isNotEmpty().isNotEqualTo(Certs.subjectKeyId(ca.certificate()));
    assertThat(leaf.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void validityStartsInThePastAndLastsAtMost397Days(KeyAlgorithm algorithm) throws Exception {
    X509Certificate leaf = CAS.get(algorithm).leafFor("validity.example.net").certificate();
    Instant notBefore = leaf.getNotBefore().toInstant();
    Instant notAfter = leaf.getNotAfter().toInstant();
    Instant now = Instant.now();
    assertThat(notBefore).isBefore(now.minus(Duration.ofDays(1)));
    assertThat(notAfter).isAfter(now.plus(Duration.ofDays(300)));
    assertThat(Duration.between(notBefore, notAfter)).isLessThanOrEqualTo(Duration.ofDays(397));
    leaf.checkValidity(new Date());
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void serialIsRandomPositiveAndAtMostTwentyBytes(KeyAlgorithm algorithm) {
    CertificateAuthority ca = CAS.get(algorithm);
    X509Certificate one = ca.leafFor("one.serial.test").certificate();
    X509Certificate two = ca.leafFor("two.serial.test").certificate();
    for (X509Certificate leaf : new X509Certificate[] {one, two}) {
      assertThat(leaf.getSerialNumber().signum()).isPositive();
      assertThat(leaf.getSerialNumber().toByteArray().length).isLessThanOrEqualTo(20);
    }
    assertThat(one.getSerialNumber()).isNotEqualTo(two.getSerialNumber());
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void verifiesWithTheCaPublicKey(KeyAlgorithm algorithm) {
    CertificateAuthority ca = CAS.get(algorithm);
    X509Certificate leaf = ca.leafFor("verify.example.net").certificate();
    assertThatCode(() -> leaf.verify(ca.certificate().getPublicKey())).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void chainValidatesWithPkixAndTheCaAsTrustAnchor(KeyAlgorithm algorithm) throws Exception {
    CertificateAuthority ca = CAS.get(algorithm);
    for (String host : new String[] {"www.example.com", "127.0.0.1", "::1"}) {
      LeafCertificate leaf = ca.leafFor(host);
      assertThat(Certs.validatePkix(leaf.certificate(), ca.certificate()).getTrustAnchor().getTrustedCert())
          .isEqualTo(ca.certificate());
    }
  }

  @ParameterizedTest
  @EnumSource(KeyAlgorithm.class)
  void chainIsLeafThenCaAndOneKeyServesAllHosts(KeyAlgorithm algorithm) {
    CertificateAuthority ca = CAS.get(algorithm);
    LeafCertificate a = ca.leafFor("a.example.com");
    LeafCertificate b = ca.leafFor("b.example.org");
    assertThat(a.chain()).containsExactly(a.certificate(), ca.certificate());
    assertThat(a.issuer()).isSameAs(ca.certificate());
    assertThat(a.privateKey()).isSameAs(b.privateKey());
    assertThat(a.certificate().getPublicKey()).isEqualTo(b.certificate().getPublicKey());
    assertThat(a.privateKey().getAlgorithm()).isEqualTo(ca.certificate().getPublicKey().getAlgorithm());
  }

  @Test
  void leafKeyDiffersBetweenInstances() {
    CertificateAuthority again = CertificateAuthority.loadOrCreate(tmp.resolve(KeyAlgorithm.EC_P256.name()));
    assertThat(again.leafFor("x.example.com").certificate().getPublicKey())
        .isNotEqualTo(ec().leafFor("x.example.com").certificate().getPublicKey());
  }
}
