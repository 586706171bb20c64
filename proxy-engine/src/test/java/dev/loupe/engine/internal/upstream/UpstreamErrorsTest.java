package dev.loupe.engine.internal.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.FlowError;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.proxy.ProxyConnectException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** How failures to reach an origin read on a flow ({@link UpstreamErrors}); no sockets. */
class UpstreamErrorsTest {
  private static final EngineConfig.UpstreamProxy PROXY = new EngineConfig.UpstreamProxy("proxy.test", 3128, null, null);

  @Test
  void connectFailuresAreNamedByKind() {
    assertThat(UpstreamErrors.connect(new ConnectTimeoutException("x"), "a.test", 443))
        .isEqualTo(new FlowError(FlowError.Kind.CONNECT_TIMEOUT, "timed out connecting to a.test:443"));
    assertThat(UpstreamErrors.connect(new ConnectException("Connection refused"), "a.test", 80))
        .isEqualTo(new FlowError(FlowError.Kind.CONNECT_REFUSED, "connection refused by a.test:80"));
    assertThat(UpstreamErrors.connect(new NoRouteToHostException("x"), "a.test", 80))
        .isEqualTo(new FlowError(FlowError.Kind.CONNECT, "no route to a.test:80"));
    assertThat(UpstreamErrors.connect(new ConnectException("Network is unreachable"), "a.test", 80))
        .isEqualTo(new FlowError(FlowError.Kind.CONNECT, "cannot connect to a.test:80: Network is unreachable"));
  }

  @Test
  void anUntrustedCertificateIsTlsVerifyAnythingElseTlsHandshake() {
    SSLHandshakeException untrusted = new SSLHandshakeException("handshake failed");
    untrusted.initCause(new CertificateException("PKIX path building failed"));
    FlowError verify = UpstreamErrors.tls(untrusted, "a.test", 443);
    assertThat(verify.kind()).isEqualTo(FlowError.Kind.TLS_VERIFY);
    assertThat(verify.message()).isEqualTo("the certificate of a.test:443 is not trusted: PKIX path building failed");
    FlowError handshake = UpstreamErrors.tls(new SSLHandshakeException("no cipher suites in common"), "a.test", 443);
    assertThat(handshake).isEqualTo(new FlowError(FlowError.Kind.TLS_HANDSHAKE,
        "TLS handshake with a.test:443 failed: no cipher suites in common"));
  }

  @Test
  void upstreamProxyFailuresNameTheProxy() {
    FlowError refused = UpstreamErrors.proxy(new HttpProxyHandler.HttpProxyConnectException(
        "http, none, proxy.test:3128 => a.test:443, status: 403 Forbidden", new DefaultHttpHeaders()), "a.test", 443, PROXY);
    assertThat(refused).isEqualTo(new FlowError(FlowError.Kind.CONNECT,
        "upstream proxy " + PROXY + " refused CONNECT a.test:443 (403 Forbidden)"));
    assertThat(UpstreamErrors.proxy(new ProxyConnectException("connection timeout"), "a.test", 443, PROXY))
        .isEqualTo(new FlowError(FlowError.Kind.CONNECT_TIMEOUT,
            "timed out connecting to a.test:443 via upstream proxy " + PROXY));
    assertThat(UpstreamErrors.proxy(new ConnectException("Connection refused"), "a.test", 443, PROXY))
        .isEqualTo(new FlowError(FlowError.Kind.CONNECT_REFUSED,
            "connection refused by proxy.test:3128 (the upstream proxy, for a.test:443)"));
    assertThat(UpstreamErrors.dns("proxy.test", true))
        .isEqualTo(new FlowError(FlowError.Kind.DNS, "DNS lookup failed for proxy.test (the upstream proxy)"));
  }
}
