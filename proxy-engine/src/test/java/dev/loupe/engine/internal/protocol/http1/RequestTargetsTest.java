package dev.loupe.engine.internal.protocol.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Request-target and CONNECT-target parsing, and the version rule, without sockets. */
@Timeout(30)
class RequestTargetsTest {
  @Test
  void asciiTargetIsReturnedAsIs() {
    String t = "/a/b?c=d&e=%20";
    assertThat(RequestTargets.normalize(t)).isSameAs(t);
  }

  @Test
  void octetsAbove0x7fArePercentEncodedAsTheyArrived() {
    // UTF-8 "é" as two ISO-8859-1 chars (what Netty's decoder makes of the octets C3 A9).
    assertThat(RequestTargets.normalize("/caf\u00c3\u00a9?q=\u00e9")).isEqualTo("/caf%C3%A9?q=%E9");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/a b", "/a\tb", "/a\u0000", "/a\u007f", "/a\r", "/\u0100"})
  void controlsSpaceDelAndNonOctetsAreRefused(String target) {
    assertThatThrownBy(() -> RequestTargets.normalize(target)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request target");
  }

  @ParameterizedTest
  @CsvSource({
      "http://Example.COM/x?y, http, example.com, 80, /x?y",
      "https://h:8443, https, h, 8443, /",
      "HTTP://[::1]:81/p, http, ::1, 81, /p",
      "http://h/caf\u00c3\u00a9, http, h, 80, /caf%C3%A9",
      // What real clients send and origins accept, though RFC 3986 does not list it: kept as is.
      "http://h/list?a[]=1&b[x]=2|3^{}, http, h, 80, /list?a[]=1&b[x]=2|3^{}",
      "http://h?q=1, http, h, 80, /?q=1",
      "http://h:/x#frag, http, h, 80, /x",
      "https://[2001:db8::1]/, https, 2001:db8::1, 443, /",
      "http://a.test./, http, a.test., 80, /",
      "http://under_score.test/, http, under_score.test, 80, /"})
  void absoluteForm(String raw, String scheme, String host, int port, String target) {
    RequestTargets.Absolute a = RequestTargets.parseAbsolute(raw);
    assertThat(a).isEqualTo(new RequestTargets.Absolute(scheme, host, port, target));
  }

  @ParameterizedTest
  @ValueSource(strings = {"ftp://h/", "http:///x", "http://user:pw@h/", "http://h:99999/", "h/x", "http://h/a b",
      "http://[:-:1]/", "http://[::1/", "http://[::1]x/", "http://::1/", "http://h:0/", "http://h:8o/", "http://a,b/",
      "http://h\u00e9/", "/only/a/path",
      "http://..test/", "http://.a.test/", "http://a..test/"})
  void badAbsoluteFormsAreRefused(String raw) {
    assertThatThrownBy(() -> RequestTargets.parseAbsolute(raw)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @CsvSource({"example.com:443, example.com, 443", "[::1]:8443, ::1, 8443", "EXAMPLE.com:1, example.com, 1",
      "127.0.0.1:65535, 127.0.0.1, 65535"})
  void connectTargets(String raw, String host, int port) {
    assertThat(RequestTargets.parseConnect(raw)).isEqualTo(new RequestTargets.Authority(host, port));
  }

  @ParameterizedTest
  @ValueSource(strings = {"example.com", ":443", "h:", "h:0", "h:65536", "h:+443", "h:4 43", "::1:443",
      "a b:443", "user@h:443", "h/x:443", "caf\u00e9.com:443", "h:0443x", "h:1234567",
      "[:-:1]:8443", "[::1]", "[::1]x:443", "[a.test]:443", "[::1]:",
      "[::%01:30]:64", "[fe80::1%25eth0]:443"})
  void badConnectTargetsAreRefused(String raw) {
    assertThatThrownBy(() -> RequestTargets.parseConnect(raw)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CONNECT target");
  }

  @Test
  void onlyTheDecodersOwnVersionsPass() {
    assertThat(Http1Messages.versionProblem(HttpVersion.HTTP_1_1)).isNull();
    assertThat(Http1Messages.versionProblem(HttpVersion.HTTP_1_0)).isNull();
    // What Netty makes of "http/1.1": an upper-cased, equal, but different instance.
    assertThat(Http1Messages.versionProblem(HttpVersion.valueOf("http/1.1"))).contains("invalid HTTP version");
    assertThat(Http1Messages.versionProblem(HttpVersion.valueOf("HTTP/1.2"))).contains("invalid HTTP version");
    assertThat(Http1Messages.versionProblem(HttpVersion.valueOf("HTTP/2.0"))).contains("not spoken");
  }
}
