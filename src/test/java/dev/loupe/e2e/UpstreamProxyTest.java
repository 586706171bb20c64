package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --upstream-proxy}: Loupe reaches origins through another HTTP proxy (a CONNECT tunnel per
 * origin connection). The upstream here is a second Loupe that tunnels everything untouched, so
 * the origin's certificate is still verified by the first Loupe and the upstream records one
 * tunnel per connection.
 */
@Timeout(60)
class UpstreamProxyTest {
  static ProxyFixture upstream;
  static ProxyFixture proxy;

  @BeforeAll
  static void start() throws Exception {
    upstream = ProxyFixture.start(b -> b.ignoreHosts(Pattern.compile(".*")));
    proxy = ProxyFixture.start(b -> b.upstreamProxy(new EngineConfig.UpstreamProxy("127.0.0.1", upstream.port(), null, null)));
  }

  @AfterAll
  static void stop() {
    proxy.close();
    upstream.close();
  }

  @Test
  void httpsAndHttpOriginsAreReachedThroughTheUpstreamByteForByte() throws Exception {
    try (TestOrigin tls = TestOrigin.h2AndH1(); TestOrigin plain = TestOrigin.http()) {
      int n = 300_000;
      HttpResponse<byte[]> get = proxy.client().send(
          HttpRequest.newBuilder(URI.create(tls.url() + "/bytes/" + n + "?via=upstream")).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      assertThat(get.statusCode()).isEqualTo(200);
      assertThat(TestData.sha256(get.body())).isEqualTo(TestData.sha256(n));

      byte[] body = TestData.bytes(70_001);
      HttpResponse<String> post = proxy.client().send(
          HttpRequest.newBuilder(URI.create(plain.url() + "/sha256?via=upstream"))
              .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(post.body().trim()).isEqualTo(TestData.sha256(body) + " " + body.length);

      Flow intercepted = proxy.awaitFlow("/bytes/" + n + "?via=upstream");
      assertThat(intercepted.tier()).isEqualTo(FlowTier.RELAY);
      assertThat(intercepted.serverConnection().tls()).as("TLS to the origin inside the tunnel").isNotNull();
      assertThat(intercepted.serverConnection().tls().verified()).isTrue();
      assertThat(intercepted.serverConnection().remoteAddress().getPort()).as("the TCP peer is the upstream proxy")
          .isEqualTo(upstream.port());
      // the tunnels stay open while Loupe pools the origin connections: look for them, ended or not
      assertThat(upstream.store().snapshot()).filteredOn(f -> f.request() != null)
          .extracting(f -> f.request().authority() + " " + f.tier())
          .contains("127.0.0.1:" + tls.port() + " TUNNEL", "127.0.0.1:" + plain.port() + " TUNNEL");
    }
  }

  @Test
  void aRefusingUpstreamIsA502NamingItAndCredentialsAreSent() throws Exception {
    List<String> connectHeads = new ArrayList<>();
    try (ServerSocket refusing = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        ProxyFixture viaRefusing = ProxyFixture.start(b -> b.upstreamProxy(
            EngineConfig.UpstreamProxy.parse("http://ada:s3cret@127.0.0.1:" + refusing.getLocalPort())))) {
      CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
        try (Socket s = refusing.accept()) {
          BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.ISO_8859_1));
          for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            connectHeads.add(line);
          }
          OutputStream out = s.getOutputStream();
          out.write("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      HttpResponse<String> r = viaRefusing.client().send(
          HttpRequest.newBuilder(URI.create("http://origin.example:8081/x")).build(), HttpResponse.BodyHandlers.ofString());
      served.join();
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.body()).contains("upstream proxy 127.0.0.1:" + refusing.getLocalPort() + " refused CONNECT origin.example:8081")
          .contains("407");
      assertThat(connectHeads.get(0)).isEqualTo("CONNECT origin.example:8081 HTTP/1.1");
      assertThat(connectHeads).contains("proxy-authorization: Basic "
          + Base64.getEncoder().encodeToString("ada:s3cret".getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void anUnreachableUpstreamIsA502NamingIt() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    try (ProxyFixture viaNothing = ProxyFixture.start(b -> b.upstreamProxy(
        new EngineConfig.UpstreamProxy("127.0.0.1", closedPort, null, null)))) {
      HttpResponse<String> r = viaNothing.client().send(
          HttpRequest.newBuilder(URI.create("http://origin.example/x")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(502);
      assertThat(r.body()).contains("connection refused by 127.0.0.1:" + closedPort)
          .contains("the upstream proxy, for origin.example:80");
    }
  }
}
