package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Byte-exact bodies through the real proxy, HTTP and intercepted HTTPS, GET and POST. */
@Timeout(300)
class BodiesThroughProxyTest {
  static ProxyFixture proxy;
  static TestOrigin http;
  static TestOrigin https;

  @BeforeAll
  static void start() throws Exception {
    proxy = ProxyFixture.start();
    http = TestOrigin.http();
    https = TestOrigin.https();
  }

  @AfterAll
  static void stop() {
    proxy.close();
    http.close();
    https.close();
  }

  static Stream<Arguments> cases() {
    Stream.Builder<Arguments> b = Stream.builder();
    for (String scheme : new String[] {"http", "https"}) {
      for (int size : new int[] {0, 1, 16383, 16385, 1 << 20, 64 << 20}) {
        b.add(Arguments.of(scheme, size));
      }
    }
    return b.build();
  }

  private static TestOrigin origin(String scheme) {
    return scheme.equals("http") ? http : https;
  }

  @ParameterizedTest(name = "GET {0} {1} bytes")
  @MethodSource("cases")
  void get(String scheme, int size) throws Exception {
    String url = origin(scheme).url() + "/bytes/" + size;
    HttpResponse<InputStream> r = proxy.client().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(TestData.sha256(r.body())).isEqualTo(TestData.sha256(size));

    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.tier()).isEqualTo(FlowTier.RELAY);
    assertThat(flow.request().url()).isEqualTo(url);
    assertThat(flow.response().status()).isEqualTo(200);
    assertThat(flow.responseBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.responseBody().openStream())).isEqualTo(TestData.sha256(size));
    if (scheme.equals("https")) {
      assertThat(flow.serverConnection().tls().protocol()).startsWith("TLSv1.");
      assertThat(flow.serverConnection().tls().peerCertificates()).isNotEmpty();
      assertThat(flow.clientConnection().tls()).isNotNull();
    }
  }

  @ParameterizedTest(name = "POST {0} {1} bytes")
  @MethodSource("cases")
  void post(String scheme, int size) throws Exception {
    String url = origin(scheme).url() + "/sha256?n=" + size;
    HttpResponse<String> r = proxy.client().send(HttpRequest.newBuilder(URI.create(url))
            .POST(size == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(size)), size))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo(TestData.sha256(size) + " " + size);

    Flow flow = proxy.awaitFlow(url);
    assertThat(flow.requestBody().size()).isEqualTo(size);
    assertThat(TestData.sha256(flow.requestBody().openStream())).isEqualTo(TestData.sha256(size));
  }
}
