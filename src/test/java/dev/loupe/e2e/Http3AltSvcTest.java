package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.har.HarWriter;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.InputStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 6, server leg with {@code --upstream-protocol auto}: an https origin on TCP (HTTP/1.1 and
 * HTTP/2 by ALPN, {@link TestOrigin}) advertises {@code Alt-Svc: h3=":PORT"} for an HTTP/3 origin
 * ({@link Http3TestOrigin}, same host and CA) on a UDP port; Loupe remembers it and sends the next
 * requests to that origin over HTTP/3, verifying the certificate for the origin's host. When QUIC
 * does not answer within the handshake budget the request goes over TCP (body sent once), the
 * origin's HTTP/3 is marked broken and the flow says why. {@code clear} and max-age forget;
 * {@code --upstream-protocol h1|h2} never use HTTP/3. Bodies checked by SHA-256.
 */
@Timeout(300)
class Http3AltSvcTest {
  static Http3TestOrigin h3;
  /** Discovery with a generous budget: a cold QUIC handshake on a busy machine must not fall back. */
  static ProxyFixture proxy;
  /** Discovery with a 300 ms budget, for the fallback. */
  static ProxyFixture fast;

  @BeforeAll
  static void start() throws Exception {
    h3 = new Http3TestOrigin(TestPki.shared().originCa());
    proxy = ProxyFixture.start(b -> b.ioThreads(1).http3HandshakeBudget(Duration.ofSeconds(10)));
    fast = ProxyFixture.start(b -> b.ioThreads(1).http3HandshakeBudget(Duration.ofMillis(300)));
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {proxy, fast, h3}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception ignored) {
        // best effort
      }
    }
  }

  private static String tag() {
    return UUID.randomUUID().toString();
  }

  private static String advertise(int udpPort, String params) {
    return "h3-29=\":" + udpPort + "\", h3=\":" + udpPort + "\"" + params;
  }

  /** GET /bytes/size through {@code p}; checks the body; returns the ended flow. */
  private static Flow get(ProxyFixture p, HttpClient.Version v, TestOrigin tcp, long size) throws Exception {
    String t = tag();
    HttpResponse<InputStream> r = p.clientBuilder().version(v).build().send(
        HttpRequest.newBuilder(URI.create(tcp.url() + "/bytes/" + size + "?t=" + t)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    try (InputStream in = r.body()) {
      assertThat(TestData.sha256(in)).as("response body SHA-256").isEqualTo(TestData.sha256(size));
    }
    Flow f = p.awaitFlow(t);
    assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
    return f;
  }

  /** POST /sha256 with {@code size} bytes; checks the origin's digest of what reached it. */
  private static Flow post(ProxyFixture p, HttpClient.Version v, TestOrigin tcp, long size, String t) throws Exception {
    HttpResponse<String> r = p.clientBuilder().version(v).build().send(
        HttpRequest.newBuilder(URI.create(tcp.url() + "/sha256?t=" + t)).POST(
            HttpRequest.BodyPublishers.fromPublisher(
                HttpRequest.BodyPublishers.ofInputStream(() -> TestData.stream(size)), size)).build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).as("request body SHA-256 and length at the origin").isEqualTo(TestData.sha256(size) + " " + size);
    Flow f = p.awaitFlow(t);
    assertThat(f.state()).isEqualTo(FlowState.COMPLETE);
    return f;
  }

  private static void assertTcp(Flow f) {
    assertThat(f.serverProtocol()).isIn("HTTP/1.1", "HTTP/2");
    assertThat(f.serverConnection().tls().alpn()).isNotEqualTo("h3");
  }

  private static void assertHttp3(Flow f, TestOrigin tcp) {
    assertThat(f.serverProtocol()).isEqualTo("HTTP/3");
    assertThat(f.response().httpVersion()).isEqualTo("HTTP/3");
    assertThat(f.http3Status()).isEqualTo("Alt-Svc h3=\":" + h3.port() + "\"");
    assertThat(f.serverConnection().remoteAddress().getPort()).isEqualTo(h3.port());
    assertThat(f.serverConnection().tls().alpn()).isEqualTo("h3");
    assertThat(f.serverConnection().tls().verified()).isTrue();
    assertThat(f.serverConnection().tls().peerCertificates()).isNotEmpty();
  }

  @ParameterizedTest(name = "{0} client")
  @EnumSource(value = HttpClient.Version.class)
  void altSvcThenHttp3OnTheNextRequest(HttpClient.Version v) throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1()) {
      tcp.responseHeader("alt-svc", advertise(h3.port(), "; ma=600"));

      Flow first = get(proxy, v, tcp, 100_000);
      assertTcp(first);
      assertThat(first.http3Status()).isEqualTo("no Alt-Svc");
      assertThat(first.response().headers().get("alt-svc")).as("relayed to the client").isNotNull();

      Flow second = get(proxy, v, tcp, 1 << 20);
      assertHttp3(second, tcp);
      Http3TestOrigin.Seen seen = h3.awaitSeen(second.request().query());
      assertThat(seen.headers()).as("the origin is still the TCP one: same authority")
          .containsEntry(":authority", "127.0.0.1:" + tcp.port()).containsEntry(":scheme", "https");
      assertThat(seen.ending().get(30, TimeUnit.SECONDS).answered()).isTrue();

      String t = tag();
      Flow upload = post(proxy, v, tcp, (1 << 20) + 1, t);
      assertHttp3(upload, tcp);
      assertThat(h3.awaitSeen("t=" + t).ending().get(30, TimeUnit.SECONDS).requestBodyLength()).isEqualTo((1 << 20) + 1);
      assertThat(tcp.seen()).as("only the first request went over TCP")
          .filteredOn(s -> s.uri().contains(second.request().query()) || s.uri().contains(t)).isEmpty();
    }
  }

  @ParameterizedTest(name = "QUIC {0}")
  @ValueSource(strings = {"silent", "closed"})
  void quicBlockedFallsBackToTcpAndIsMarkedBroken(String how) throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1();
         DatagramSocket udp = new DatagramSocket(0, InetAddress.getByName("127.0.0.1"))) {
      int port = udp.getLocalPort();
      if (how.equals("closed")) {
        udp.close(); // nothing there: ICMP port unreachable, or silence
      } // else: a socket that reads nothing and answers nothing (UDP dropped)
      tcp.responseHeader("alt-svc", advertise(port, ""));
      assertThat(get(fast, HttpClient.Version.HTTP_2, tcp, 10).http3Status()).isEqualTo("no Alt-Svc");

      String t = tag();
      long started = System.nanoTime();
      Flow fallback = post(fast, HttpClient.Version.HTTP_2, tcp, 64 * 1024 + 1, t);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      assertTcp(fallback);
      assertThat(fallback.http3Status()).startsWith("QUIC failed: ").endsWith("; fell back to TCP")
          .contains("127.0.0.1:" + port);
      assertThat(ms).as("within the 300 ms budget plus the TCP request").isLessThan(5_000);
      assertThat(tcp.seen()).as("the body went once, over TCP").filteredOn(s -> s.uri().contains(t)).hasSize(1);

      Flow next = get(fast, HttpClient.Version.HTTP_2, tcp, 1000);
      assertTcp(next);
      assertThat(next.http3Status()).startsWith("h3 marked broken until ").contains("QUIC failed: ");
      assertThat(next.timings().blockedMs()).as("no wait for QUIC").isLessThan(300);
    }
  }

  /**
   * A QUIC handshake that completes after the budget: that request went over TCP and marked the
   * origin broken, but the connection is kept when it comes up and the mark goes, so the next
   * request uses it over HTTP/3. UDP towards the HTTP/3 origin is blocked (a relay dropping every
   * datagram) until the fallback is done; the handshake then completes on QUIC's retransmission.
   */
  @Test
  void handshakeCompletingAfterTheBudgetIsUsedAndClearsTheBrokenMark() throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1();
         LossyUdpRelay relay = new LossyUdpRelay(new java.net.InetSocketAddress("127.0.0.1", h3.port()), 0, 1);
         ProxyFixture p = ProxyFixture.start(b -> b.ioThreads(1).http3HandshakeBudget(Duration.ofMillis(300)))) {
      tcp.responseHeader("alt-svc", advertise(relay.port(), ""));
      assertThat(get(p, HttpClient.Version.HTTP_2, tcp, 10).http3Status()).isEqualTo("no Alt-Svc");
      int before = h3.connections();

      relay.blocked(true);
      Flow fallback = get(p, HttpClient.Version.HTTP_2, tcp, 1000);
      assertTcp(fallback);
      assertThat(fallback.http3Status()).startsWith("QUIC failed: ").endsWith("; fell back to TCP");
      assertThat(p.engine().http3UpstreamConnections()).isZero();
      relay.blocked(false);

      await().atMost(Duration.ofSeconds(9)).until(() -> p.engine().http3UpstreamConnections() == 1);
      Flow next = get(p, HttpClient.Version.HTTP_2, tcp, 1 << 20);
      assertThat(next.serverProtocol()).as("the late connection, not TCP").isEqualTo("HTTP/3");
      assertThat(next.http3Status()).isEqualTo("Alt-Svc h3=\":" + relay.port() + "\"");
      assertThat(next.timings().blockedMs()).as("no wait for a handshake").isLessThan(300);
      assertThat(h3.connections() - before).as("one QUIC connection: the late one").isEqualTo(1);
      assertThat(p.engine().http3UpstreamConnections()).isEqualTo(1);
    }
  }

  /**
   * An HTTP/2 origin that advertises its HTTP/3 alternative in an ALTSVC frame (RFC 7838 §4)
   * rather than an Alt-Svc header field: on stream 0 naming its origin, or on the response's
   * stream. The next request goes over HTTP/3. A stream-0 frame for another origin is ignored.
   */
  @ParameterizedTest(name = "ALTSVC frame {0}")
  @ValueSource(strings = {"on stream 0", "on the response stream", "for another origin"})
  void altSvcFrameThenHttp3OnTheNextRequest(String how) throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1()) {
      String named = switch (how) {
        case "on stream 0" -> "https://127.0.0.1:" + tcp.port();
        case "for another origin" -> "https://localhost:" + tcp.port();
        default -> null;
      };
      tcp.altSvcFrame(advertise(h3.port(), "; ma=600"), named);

      Flow first = get(proxy, HttpClient.Version.HTTP_2, tcp, 1000);
      assertThat(first.serverProtocol()).isEqualTo("HTTP/2");
      assertThat(first.http3Status()).isEqualTo("no Alt-Svc");
      assertThat(first.response().headers().get("alt-svc")).as("no header field: the frame alone").isNull();

      Flow second = get(proxy, HttpClient.Version.HTTP_2, tcp, 1 << 20);
      if (how.equals("for another origin")) {
        assertTcp(second);
        assertThat(second.http3Status()).isEqualTo("no Alt-Svc");
      } else {
        assertHttp3(second, tcp);
        assertThat(h3.awaitSeen(second.request().query()).headers())
            .containsEntry(":authority", "127.0.0.1:" + tcp.port());
      }
    }
  }

  @Test
  void clearForgets() throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1()) {
      tcp.responseHeader("alt-svc", advertise(h3.port(), ""));
      assertTcp(get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10));
      assertHttp3(get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10), tcp);

      tcp.responseHeader("alt-svc", null);
      h3.altSvc("clear");
      try {
        assertHttp3(get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10), tcp); // carries clear
      } finally {
        h3.altSvc(null);
      }
      Flow after = get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10);
      assertTcp(after);
      assertThat(after.http3Status()).isEqualTo("no Alt-Svc");
    }
  }

  @Test
  void maxAgeExpires() throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1()) {
      tcp.responseHeader("alt-svc", advertise(h3.port(), "; ma=4"));
      assertTcp(get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10));
      tcp.responseHeader("alt-svc", null); // nothing refreshes it from now on
      assertHttp3(get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10), tcp);
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
        Flow f = get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10);
        assertThat(f.http3Status()).isEqualTo("Alt-Svc h3 expired");
        assertTcp(f);
      });
      Flow after = get(proxy, HttpClient.Version.HTTP_1_1, tcp, 10);
      assertTcp(after);
      assertThat(after.http3Status()).isEqualTo("no Alt-Svc");
    }
  }

  @ParameterizedTest(name = "--upstream-protocol {0}")
  @EnumSource(value = EngineConfig.UpstreamProtocol.class, names = {"H1", "H2"})
  void forcedOffNeverUsesHttp3(EngineConfig.UpstreamProtocol forced) throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1();
         ProxyFixture p = ProxyFixture.start(b -> b.upstreamProtocol(forced).ioThreads(1))) {
      tcp.responseHeader("alt-svc", advertise(h3.port(), ""));
      for (int i = 0; i < 3; i++) {
        Flow f = get(p, HttpClient.Version.HTTP_2, tcp, 5000);
        assertThat(f.serverProtocol()).isEqualTo(forced == EngineConfig.UpstreamProtocol.H1 ? "HTTP/1.1" : "HTTP/2");
        assertThat(f.http3Status()).isEqualTo("forced off (--upstream-protocol " + forced.name().toLowerCase() + ")");
        assertThat(h3.seen()).filteredOn(s -> s.path().contains(f.request().query())).isEmpty();
      }
    }
  }

  @Test
  void harCarriesServerVersionAndWhy(@TempDir Path dir) throws Exception {
    try (TestOrigin tcp = TestOrigin.h2AndH1();
         ProxyFixture p = ProxyFixture.start(b -> b.ioThreads(1).http3HandshakeBudget(Duration.ofSeconds(10)))) {
      tcp.responseHeader("alt-svc", advertise(h3.port(), ""));
      Flow first = get(p, HttpClient.Version.HTTP_2, tcp, 100);
      Flow second = get(p, HttpClient.Version.HTTP_2, tcp, 200);
      Path file = dir.resolve("altsvc.har");
      HarWriter.writeAtomically(p.store().snapshot(), file);
      JsonNode har = HarFiles.read(file);
      HarFiles.assertValid(har);
      JsonNode entries = har.path("log").path("entries");
      assertThat(entries).hasSize(2);
      JsonNode e1 = entries.get(0);
      JsonNode e2 = entries.get(1);
      assertThat(e1.path("request").path("url").asText()).isEqualTo(first.request().url());
      assertThat(e1.path("_http3").asText()).isEqualTo("no Alt-Svc");
      assertThat(e1.path("_serverHttpVersion").asText()).isEqualTo("HTTP/2");
      assertThat(e2.path("request").path("url").asText()).isEqualTo(second.request().url());
      assertThat(e2.path("_serverHttpVersion").asText()).isEqualTo("HTTP/3");
      assertThat(e2.path("_http3").asText()).isEqualTo("Alt-Svc h3=\":" + h3.port() + "\"");
      // httpVersion is what the client spoke (HTTP/2 here), as for every bridged flow.
      assertThat(e2.path("response").path("httpVersion").asText()).isEqualTo("HTTP/2");
    }
  }

  /**
   * HTTP/3 on both legs by discovery: reverse mode, an HTTP/3 client on Loupe's QUIC listener, the
   * reverse target an https TCP origin advertising h3. The HAR entry says HTTP/3 for the client
   * (httpVersion) and for the origin (_serverHttpVersion), and why (_http3).
   */
  @Test
  void reverseModeHttp3ClientReachesTheDiscoveredHttp3Origin(@TempDir Path dir) throws Exception {
    String name = "h3.loupe.test";
    try (TestOrigin tcp = TestOrigin.h2AndH1();
         ProxyFixture p = ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(tcp.url()))
             .http3HandshakeBudget(Duration.ofSeconds(10)));
         Http3TestClient client = new Http3TestClient(p.engine().http3Address(), name,
             TestPki.shared().loupeCa().certificate())) {
      tcp.responseHeader("alt-svc", advertise(h3.port(), ""));
      String authority = name + ":" + p.port();
      String t1 = tag();
      Http3TestClient.Response r1 = client.send("GET", "/bytes/1000?t=" + t1, authority, 0).get(30, TimeUnit.SECONDS);
      assertThat(r1.sha256()).isEqualTo(TestData.sha256(1000));
      assertThat(r1.headers().get("alt-svc")).as("the origin's endpoints are not the client's to use").isNull();
      String t2 = tag();
      Http3TestClient.Response r2 = client.send("GET", "/bytes/1048576?t=" + t2, authority, 0)
          .get(60, TimeUnit.SECONDS);
      assertThat(r2.status()).isEqualTo(200);
      assertThat(r2.sha256()).isEqualTo(TestData.sha256(1 << 20));
      Flow f1 = p.awaitFlow(t1);
      Flow f2 = p.awaitFlow(t2);
      assertThat(f1.clientProtocol()).isEqualTo("HTTP/3");
      assertThat(f1.serverProtocol()).isEqualTo("HTTP/2");
      assertThat(f2.clientProtocol()).isEqualTo("HTTP/3");
      assertHttp3(f2, tcp);
      assertThat(h3.awaitSeen("t=" + t2).headers()).containsEntry(":authority", "127.0.0.1:" + tcp.port());

      Path file = dir.resolve("h3-both.har");
      HarWriter.writeAtomically(p.store().snapshot(), file);
      JsonNode har = HarFiles.read(file);
      HarFiles.assertValid(har);
      JsonNode e2 = null;
      for (JsonNode e : har.path("log").path("entries")) {
        if (e.path("request").path("url").asText().contains(t2)) {
          e2 = e;
        }
      }
      assertThat(e2).isNotNull();
      assertThat(e2.path("request").path("httpVersion").asText()).isEqualTo("HTTP/3");
      assertThat(e2.path("response").path("httpVersion").asText()).isEqualTo("HTTP/3");
      assertThat(e2.path("_clientHttpVersion").asText()).isEqualTo("HTTP/3");
      assertThat(e2.path("_serverHttpVersion").asText()).isEqualTo("HTTP/3");
      assertThat(e2.path("_http3").asText()).isEqualTo("Alt-Svc h3=\":" + h3.port() + "\"");
      assertThat(e2.path("response").path("headersSize").asLong()).isEqualTo(-1);
    }
  }
}
