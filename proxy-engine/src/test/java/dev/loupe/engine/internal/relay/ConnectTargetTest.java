package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.FlowError;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * CONNECT targets that are not authority-form (RFC 9110 §9.3.6: {@code uri-host ":" port}) are
 * refused with a 400 and recorded as client protocol errors, never recorded or tunnelled as the
 * odd "host" they would give. Found by {@code ConnectTargetFuzzTest} when the parsing still took
 * everything before the last ':' as the host; {@code RequestTargets.parseConnect} checks it now.
 */
@Timeout(60)
class ConnectTargetTest {
  @ParameterizedTest
  @ValueSource(strings = {"a/b:443", "user@a.test:443", "a.test/x:443", "a.test?q:443", "a.test#f:443",
      "[::1:443", "a]b:443", "::1:443", "a.test:+443"})
  void aTargetThatIsNotHostColonPortIsRefused(String target) {
    byte[] request = ("CONNECT " + target + " HTTP/1.1\r\nHost: a.test:443\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    try (Http1Harness proxy = new Http1Harness(Http1Harness.Side.EXPLICIT_PROXY, true)) {
      proxy.clientSends(request, 0, request.length);
      assertThat(new String(proxy.proxyWrote(), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 400 ");
      assertThat(proxy.flows()).singleElement()
          .satisfies(f -> assertThat(f.error().kind()).isEqualTo(FlowError.Kind.CLIENT_PROTOCOL));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"a.test:0", "a.test:65536", "a.test:", ":443", "a.test:-1", "a.test:x"})
  void aBadPortIsRefused(String target) {
    byte[] request = ("CONNECT " + target + " HTTP/1.1\r\nHost: a.test\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    try (Http1Harness proxy = new Http1Harness(Http1Harness.Side.EXPLICIT_PROXY, true)) {
      proxy.clientSends(request, 0, request.length);
      assertThat(new String(proxy.proxyWrote(), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 400 ");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"a.test:443", "[::1]:8443", "127.0.0.1:80", "A.Test:0443"})
  void aGoodTargetIsTunnelledAsParsed(String target) {
    int colon = target.lastIndexOf(':');
    String host = target.substring(0, colon).replace("[", "").replace("]", "").toLowerCase(java.util.Locale.ROOT);
    int port = Integer.parseInt(target.substring(colon + 1));
    byte[] request = ("CONNECT " + target + " HTTP/1.1\r\nHost: a.test\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    try (Http1Harness proxy = new Http1Harness(Http1Harness.Side.EXPLICIT_PROXY, true)) {
      proxy.clientSends(request, 0, request.length);
      // Every origin is unreachable in the harness: the tunnel flow fails with Loupe's 502.
      assertThat(new String(proxy.proxyWrote(), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 502 ");
      assertThat(proxy.flows()).singleElement().satisfies(f -> {
        assertThat(f.request().host()).isEqualTo(host);
        assertThat(f.request().port()).isEqualTo(port);
        assertThat(f.error()).isNotNull();
      });
    }
  }
}
