package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(60)
class HostNameTest {
  @ParameterizedTest
  @CsvSource({
    "www.example.com, www.example.com",
    "WWW.Example.COM, www.example.com",
    "example.com., example.com",
    "[::1], ::1",
    "::1, ::1",
    "[FE80::1%eth0], fe80::1",
    "127.0.0.1, 127.0.0.1",
    "bücher.example, xn--bcher-kva.example",
  })
  void normalizes(String host, String expected) {
    assertThat(HostName.normalize(host)).isEqualTo(expected);
  }

  @Test
  void normalizingALowercaseAsciiNameReturnsTheSameString() {
    String host = "www.example.com";
    assertThat(HostName.normalize(host)).isSameAs(host);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.2.3.4", "255.255.255.255", "0.0.0.0"})
  void dottedQuadsAreIpv4(String host) {
    HostName parsed = HostName.parse(host);
    assertThat(parsed.isIpAddress()).isTrue();
    assertThat(parsed.address()).hasSize(4);
    assertThat(parsed.dnsNames()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4a", "01.2.3.example", "0000000000127.0.0.1",
      "127.0.0.01", "010.0.0.1"})
  void otherDigitsAndDotsAreNames(String host) {
    assertThat(HostName.parse(host).isIpAddress()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"::1", "2001:db8::1", "::ffff:192.0.2.1", "fe80::1:2:3:4"})
  void colonsMakeIpv6(String host) {
    HostName parsed = HostName.parse(host);
    assertThat(parsed.isIpAddress()).isTrue();
    assertThat(parsed.address()).hasSize(16);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1::2::3", "gggg::1", "host:443", "example.com:8443", ":::"})
  void invalidIpv6IsRejectedWithoutALookup(String host) {
    assertThatThrownBy(() -> HostName.parse(host)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void wildcardSiblingOnlyForThreeLabelsOrMore() {
    assertThat(HostName.parse("www.example.com").dnsNames())
        .containsExactly("www.example.com", "*.example.com");
    assertThat(HostName.parse("example.com").dnsNames()).containsExactly("example.com");
    assertThat(HostName.parse("localhost").dnsNames()).containsExactly("localhost");
    assertThat(HostName.parse("*.example.com").dnsNames()).containsExactly("*.example.com");
  }

  @Test
  void underscoresAreTolerated() {
    assertThat(HostName.parse("_dmarc.my_host.example").dnsNames()).contains("_dmarc.my_host.example");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a..b", ".a", "a b", "a/b", "*", "a.*.b", "**.example.com"})
  void malformedNamesAreRejected(String host) {
    assertThatThrownBy(() -> HostName.parse(host)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void overlongLabelsAndNamesAreRejected() {
    assertThatThrownBy(() -> HostName.parse("a".repeat(64) + ".com"))
        .isInstanceOf(IllegalArgumentException.class);
    String name254 = ("a".repeat(62) + ".").repeat(4) + "ab"; // 4 * 63 + 2
    assertThatThrownBy(() -> HostName.parse(name254)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void commonNameIsTruncatedTo64() {
    String host = "a".repeat(60) + "." + "b".repeat(60) + ".com";
    assertThat(HostName.parse(host).commonName()).hasSize(64).isEqualTo(host.substring(0, 64));
    assertThat(HostName.parse("short.example").commonName()).isEqualTo("short.example");
  }

  @Test
  void emptyHostsAreRejected() {
    assertThatThrownBy(() -> HostName.normalize("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HostName.normalize("[]")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> HostName.normalize(null)).isInstanceOf(NullPointerException.class);
  }
}
