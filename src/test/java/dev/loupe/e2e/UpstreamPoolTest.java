package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server-leg pool: reuse, and recovery when the origin silently dropped a pooled connection. */
@Timeout(60)
class UpstreamPoolTest {
  @Test
  void deadPooledConnectionIsRetriedOnAFreshOneForIdempotentRequests() throws Exception {
    for (boolean tls : new boolean[] {false, true}) {
      try (ProxyFixture proxy = ProxyFixture.start();
          TestOrigin origin = tls ? TestOrigin.https() : TestOrigin.http()) {
        HttpClient client = proxy.client();
        HttpResponse<String> first = client.send(
            HttpRequest.newBuilder(URI.create(origin.url() + "/drop-next")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(first.statusCode()).isEqualTo(200);
        // Same client connection, same proxy event loop: the pooled origin connection is reused,
        // and the origin closes it on this request without answering.
        HttpResponse<String> second = client.send(
            HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?second")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.body()).isEqualTo("status 200");
        assertThat(origin.connections()).isEqualTo(2);
        Flow flow = proxy.awaitFlow("?second");
        assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
        assertThat(flow.serverConnection().reused()).isFalse();
      }
    }
  }

  @Test
  void aPostIsNotRetriedButAnswered502() throws Exception {
    try (ProxyFixture proxy = ProxyFixture.start(); TestOrigin origin = TestOrigin.http()) {
      HttpClient client = proxy.client();
      client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/drop-next")).build(),
          HttpResponse.BodyHandlers.ofString());
      HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/sha256?post"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(502);
      assertThat(post.headers().firstValue("x-loupe-error")).hasValue("server-reset");
      assertThat(origin.connections()).isEqualTo(1);
    }
  }

  @Test
  void anIdleConnectionIsReusedWithinTheIdleTimeoutAndClosedAfterIt() throws Exception {
    try (ProxyFixture proxy = ProxyFixture.start(b -> b.poolIdleTimeout(java.time.Duration.ofMillis(600)).ioThreads(1));
        TestOrigin origin = TestOrigin.http()) {
      HttpClient client = proxy.client();
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> r = client.send(
            HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?reuse-" + i)).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
      }
      assertThat(origin.connections()).as("five requests, one pooled origin connection").isEqualTo(1);
      // Parked on the proxy's event loop right after the response left: the client may be faster.
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> proxy.engine().idleUpstreamConnections() + origin.closedConnections() >= 1);
      assertThat(proxy.engine().idleUpstreamConnections() + origin.closedConnections()).isEqualTo(1);

      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> origin.closedConnections() >= 1);
      assertThat(origin.closedConnections()).as("closed by the idle sweep").isEqualTo(1);
      assertThat(proxy.engine().idleUpstreamConnections()).isZero();

      HttpResponse<String> again = client.send(
          HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?after-idle")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(again.statusCode()).isEqualTo(200);
      assertThat(origin.connections()).isEqualTo(2);
      assertThat(proxy.awaitFlow("?after-idle").serverConnection().reused()).isFalse();
    }
  }
}
