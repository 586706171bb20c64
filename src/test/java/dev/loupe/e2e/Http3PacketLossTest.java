package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 6, loss: with {@link LossyUdpRelay} dropping 10% of the UDP datagrams each way (seeded,
 * so the same datagrams by order each run), every request over HTTP/3 still completes byte-exact
 * (SHA-256 and length), on the client leg (reverse mode, Netty's HTTP/3 client through the relay
 * to Loupe's QUIC listener, HTTP/1.1 origin) and on the server leg ({@code --upstream-protocol h3},
 * Loupe through the relay to an HTTP/3 origin, HTTP/1.1 clients) and on both at once (HTTP/3 client,
 * reverse mode, HTTP/3 origin, a relay on each leg). Half the requests are downloads
 * and half uploads, so data flows through the lossy path both ways; sizes run from 16 KiB to 1 MiB.
 * The relay's counts prove the loss happened.
 */
@Timeout(180)
class Http3PacketLossTest {
  static final double LOSS = 0.10;
  static final int REQUESTS = 20;
  /** See {@link Http3ReverseModeTest#NAME}: a name with a dot, so the client sends SNI. */
  static final String NAME = "h3.loupe.test";

  /** 16 KiB, 1 MiB and 18 sizes between, none a multiple of a packet. */
  static long size(int i) {
    long min = 16 * 1024;
    long max = 1 << 20;
    return i == 0 ? min : i == REQUESTS - 1 ? max : min + i * ((max - min) / (REQUESTS - 1)) + 7 * i;
  }

  @Test
  void clientLegRequestsCompleteByteExactDespiteLoss() throws Exception {
    try (TestOrigin origin = TestOrigin.http();
        ProxyFixture proxy = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(origin.url())));
        LossyUdpRelay relay = new LossyUdpRelay(proxy.engine().http3Address(), LOSS, 6)) {
      String tag = UUID.randomUUID().toString();
      long started = System.nanoTime();
      sendAllOverHttp3(proxy, relay, tag);
      System.out.printf("Http3PacketLossTest: client leg, %d requests in %d ms; relay %s%n", REQUESTS,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), relay);
      assertFlows(proxy, tag, "HTTP/3", "HTTP/1.1");
      assertLossHappened(relay);
    }
  }

  /**
   * HTTP/3 on both legs, each through its own lossy relay: Netty's HTTP/3 client to the reverse
   * listener, Loupe over QUIC to the HTTP/3 origin, whose echo streams back while the upload goes on.
   */
  @Test
  void bothLegsHttp3RequestsCompleteByteExactDespiteLoss() throws Exception {
    try (Http3TestOrigin origin = new Http3TestOrigin(TestPki.shared().originCa());
        LossyUdpRelay serverSide = new LossyUdpRelay(new InetSocketAddress("127.0.0.1", origin.port()), LOSS, 8);
        ProxyFixture proxy = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H3)
            .reverse(EngineConfig.Reverse.parse("https://127.0.0.1:" + serverSide.port())));
        LossyUdpRelay clientSide = new LossyUdpRelay(proxy.engine().http3Address(), LOSS, 9)) {
      String tag = UUID.randomUUID().toString();
      long started = System.nanoTime();
      sendAllOverHttp3(proxy, clientSide, tag);
      System.out.printf("Http3PacketLossTest: both legs, %d requests in %d ms; client-side relay %s;"
          + " server-side relay %s%n", REQUESTS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
          clientSide, serverSide);
      assertFlows(proxy, tag, "HTTP/3", "HTTP/3");
      assertLossHappened(clientSide);
      assertLossHappened(serverSide);
    }
  }

  /**
   * {@link #REQUESTS} concurrent requests on one QUIC connection through the relay to the
   * reverse-mode proxy: even ones download {@code /bytes/N}, odd ones upload to {@code /echo}.
   */
  private static void sendAllOverHttp3(ProxyFixture proxy, LossyUdpRelay relay, String tag) throws Exception {
    assertThat(proxy.engine().http3Problem()).isNull();
    String authority = NAME + ":" + proxy.port();
    try (Http3TestClient client = new Http3TestClient(relay.address(), NAME,
        TestPki.shared().loupeCa().certificate())) {
      List<CompletableFuture<Http3TestClient.Response>> all = new ArrayList<>();
      for (int i = 0; i < REQUESTS; i++) {
        long size = size(i);
        all.add(i % 2 == 0
            ? client.send("GET", "/bytes/" + size + "?t=" + tag + "&i=" + i, authority, 0)
            : client.send("POST", "/echo?t=" + tag + "&i=" + i, authority, size));
      }
      for (int i = 0; i < REQUESTS; i++) {
        Http3TestClient.Response r = all.get(i).get(120, TimeUnit.SECONDS);
        assertThat(r.status()).as("request %d", i).isEqualTo(200);
        assertThat(r.length()).as("request %d body length", i).isEqualTo(size(i));
        assertThat(r.sha256()).as("request %d body SHA-256", i).isEqualTo(TestData.sha256(size(i)));
      }
    }
  }

  /** Every request's flow completed, with the protocols and the body size of its direction. */
  private static void assertFlows(ProxyFixture proxy, String tag, String clientProtocol, String serverProtocol) {
    List<Flow> flows = proxy.awaitFlows(REQUESTS, f -> f.request() != null && f.request().url().contains(tag));
    for (Flow f : flows) {
      int i = Integer.parseInt(f.request().url().replaceAll(".*&i=", ""));
      assertThat(f.state()).as("flow %d", i).isEqualTo(FlowState.COMPLETE);
      assertThat(f.clientProtocol()).as("flow %d", i).isEqualTo(clientProtocol);
      assertThat(f.serverProtocol()).as("flow %d", i).isEqualTo(serverProtocol);
      assertThat(i % 2 == 0 ? f.responseBody().size() : f.requestBody().size()).as("flow %d body", i)
          .isEqualTo(size(i));
    }
  }

  @Test
  void serverLegRequestsCompleteByteExactDespiteLoss() throws Exception {
    try (Http3TestOrigin origin = new Http3TestOrigin(TestPki.shared().originCa());
        LossyUdpRelay relay = new LossyUdpRelay(new InetSocketAddress("127.0.0.1", origin.port()), LOSS, 7);
        // One I/O thread: every client connection shares one pooled QUIC connection to the origin.
        ProxyFixture proxy = ProxyFixture.start(b -> b.upstreamProtocol(EngineConfig.UpstreamProtocol.H3)
            .ioThreads(1))) {
      String tag = UUID.randomUUID().toString();
      String base = "https://127.0.0.1:" + relay.port();
      long started = System.nanoTime();
      HttpClient client = proxy.clientBuilder().build();
      List<CompletableFuture<HttpResponse<InputStream>>> all = new ArrayList<>();
      for (int i = 0; i < REQUESTS; i++) {
        long size = size(i);
        HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(i % 2 == 0
            ? base + "/bytes/" + size + "?t=" + tag + "&i=" + i
            : base + "/sha256?t=" + tag + "&i=" + i)).timeout(Duration.ofSeconds(120));
        if (i % 2 == 1) {
          rb.POST(HttpRequest.BodyPublishers.fromPublisher(
              HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(size)), size));
        }
        all.add(client.sendAsync(rb.build(), HttpResponse.BodyHandlers.ofInputStream()));
      }
      for (int i = 0; i < REQUESTS; i++) {
        HttpResponse<InputStream> r = all.get(i).get(120, TimeUnit.SECONDS);
        assertThat(r.statusCode()).as("request %d", i).isEqualTo(200);
        try (InputStream in = r.body()) {
          if (i % 2 == 0) {
            assertThat(TestData.sha256(in)).as("request %d body SHA-256", i).isEqualTo(TestData.sha256(size(i)));
          } else {
            // The origin's digest and length of the upload that reached it over the lossy path.
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).as("request %d upload at the origin", i)
                .isEqualTo(TestData.sha256(size(i)) + " " + size(i));
          }
        }
      }
      System.out.printf("Http3PacketLossTest: server leg, %d requests in %d ms; relay %s%n", REQUESTS,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), relay);

      assertFlows(proxy, tag, "HTTP/1.1", "HTTP/3");
      assertLossHappened(relay);
    }
  }

  private static void assertLossHappened(LossyUdpRelay relay) {
    for (LossyUdpRelay.Counts c : new LossyUdpRelay.Counts[] {relay.towardsTarget(), relay.towardsPeers()}) {
      assertThat(c.forwarded()).as("datagrams relayed: %s", relay).isGreaterThan(200);
      assertThat(c.lossRate()).as("share dropped: %s", relay).isBetween(0.06, 0.14);
    }
  }
}
