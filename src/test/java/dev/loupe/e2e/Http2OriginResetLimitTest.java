package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/2 on the server leg: every client that vanishes while its request is at the origin costs a
 * RST_STREAM on the origin connection it shares with other clients' requests. Origins limit resets
 * per connection (CVE-2023-44487, rapid reset): Netty's HTTP/2 server, the test origin here with
 * its defaults, sends GOAWAY ENHANCE_YOUR_CALM and closes the connection after more than 200
 * RST_STREAMs in 30 s, and every other stream on it dies with it. That is what made 65 of 12,000
 * "silent" and "client vanishes" exchanges of the long fault run (docs/RELIABILITY.md) end
 * SERVER_RESET. Loupe must spread its resets: a connection that has sent many takes no new streams
 * and is closed once its streams end, so the origin never sees enough on one connection to punish.
 *
 * <p>Here: one event loop (so one pool, one origin connection at a time), {@value #ROUNDS} rounds
 * of {@value #PER_ROUND} HTTP/1.1 clients whose requests reach the origin and who then hang up
 * (twice the origin's limit in all), while other clients keep POSTs in flight (never retried, so a
 * stream lost to a closed connection shows as an error page).
 */
@Timeout(300)
class Http2OriginResetLimitTest {
  private static final int ROUNDS = 8;
  private static final int PER_ROUND = 50;
  private static final int WITNESSES = 8;

  @Test
  void clientsThatVanishNeverMakeTheOriginCloseASharedConnection() throws Exception {
    try (TestOrigin origin = TestOrigin.h2Only();
        ProxyFixture proxy = ProxyFixture.start(b -> b.ioThreads(1)
            .reverse(EngineConfig.Reverse.parse(origin.url()))
            .upstreamProtocol(EngineConfig.UpstreamProtocol.H2))) {
      HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(30)).build();
      AtomicBoolean vanishing = new AtomicBoolean(true);
      AtomicInteger answered = new AtomicInteger();
      ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
      List<CompletableFuture<Void>> witnesses = new ArrayList<>();
      for (int w = 0; w < WITNESSES; w++) {
        witnesses.add(CompletableFuture.runAsync(() -> {
          for (int i = 0; vanishing.get(); i++) {
            try {
              HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(
                  "http://127.0.0.1:" + proxy.port() + "/slow/1000?t=witness-" + i))
                  .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                  HttpResponse.BodyHandlers.ofString());
              if (r.statusCode() == 200) {
                answered.incrementAndGet();
              } else {
                wrong.add(r.statusCode() + " " + r.body().strip());
              }
            } catch (IOException | InterruptedException e) {
              wrong.add(e.toString());
            }
          }
        }));
      }
      for (int round = 0; round < ROUNDS; round++) {
        vanishAtTheOrigin(proxy, origin, round);
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> answered.get() >= 2 * WITNESSES);
      vanishing.set(false);
      CompletableFuture.allOf(witnesses.toArray(new CompletableFuture<?>[0])).get(90, TimeUnit.SECONDS);

      await().atMost(Duration.ofSeconds(60)).until(() -> proxy.store().snapshot().stream()
          .noneMatch(f -> f.state() == FlowState.IN_FLIGHT));
      List<String> abortsNotAborted = proxy.store().snapshot().stream()
          .filter(f -> f.request() != null && f.request().url().contains("t=gone-"))
          .filter(f -> f.error() == null || f.error().kind() != FlowError.Kind.CLIENT_ABORT)
          .map(f -> f.request().url() + " ended " + f.state() + " " + f.error()).toList();
      Map<Integer, Integer> resets = origin.resetStreamsByConnection();
      String seenBy = "origin connection errors " + origin.connectionErrors() + ", RST_STREAMs per origin connection "
          + resets + ", origin connections " + origin.connections();
      System.out.println("[reset-limit] " + seenBy + "; witnesses answered " + answered + ", wrong " + wrong
          + "; aborts not aborted " + abortsNotAborted);

      assertThat(wrong).as("witness POSTs not answered by the origin (%s)", seenBy).isEmpty();
      assertThat(abortsNotAborted).as("flows of the clients that hung up (%s)", seenBy).isEmpty();
      assertThat(origin.connectionErrors()).as("connections the origin ended with GOAWAY").isEmpty();
      assertThat(resets.values().stream().mapToInt(Integer::intValue).sum())
          .as("every vanished client's stream was reset at the origin (%s)", seenBy)
          .isEqualTo(ROUNDS * PER_ROUND);
      // Loupe's budget: resets sent plus streams open stay under 150 per connection.
      assertThat(resets.values()).as("RST_STREAMs per origin connection").allSatisfy(n ->
          assertThat(n).isLessThanOrEqualTo(150));
      // A connection that has sent 100 resets takes no new streams and is closed once its streams
      // have ended (they all have).
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(origin.openConnectionNumbers())
          .as("origin connections still open (RST_STREAMs per connection: %s)", resets)
          .allSatisfy(c -> assertThat(resets.getOrDefault(c, 0)).isLessThan(100)));
      assertThat(origin.connections()).as("origin connections (RST_STREAMs per connection: %s)", resets)
          .isGreaterThanOrEqualTo(ROUNDS * PER_ROUND / 150 + 1);
      HttpResponse<String> after = http.send(HttpRequest.newBuilder(URI.create(
          "http://127.0.0.1:" + proxy.port() + "/status/200?t=after")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(after.statusCode()).isEqualTo(200);
    }
  }

  /** {@value #PER_ROUND} clients send a request the origin holds; once it has all of them, they hang up. */
  private static void vanishAtTheOrigin(ProxyFixture proxy, TestOrigin origin, int round) throws Exception {
    List<Socket> sockets = new ArrayList<>();
    String tag = "t=gone-" + round + "-";
    for (int i = 0; i < PER_ROUND; i++) {
      Socket s = proxy.socket();
      s.getOutputStream().write(("GET /slow/600000?" + tag + i + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      sockets.add(s);
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> origin.seen().stream()
        .filter(s -> s.uri().contains(tag)).count() == PER_ROUND);
    for (Socket s : sockets) {
      s.setSoLinger(true, 0);
      s.close();
    }
  }
}
