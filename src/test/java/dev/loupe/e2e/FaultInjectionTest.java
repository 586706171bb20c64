package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.RecordingLeakDetector;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow.Subscriber;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Faults on both sides of Loupe, repeated, on every protocol: origins that reset mid-body, close
 * before the response, go silent, or send garbage, and clients that vanish mid-request — with
 * HTTP/1.1, HTTP/2 and HTTP/3 on the server leg and on the client leg (reverse mode, TLS, so one
 * listener serves all three client protocols).
 *
 * <p>For every fault and protocol: the client never receives a response that looks complete;
 * every flow ends, marked with what happened (the error kind the fault calls for); the proxy
 * answers a normal request in under 100 ms afterwards; and once everything is closed no buffer
 * leaked (paranoid leak detection, checked here and by LeakDetectionExtension) and the process has
 * as many file descriptors as before it started (sockets of both legs included).
 *
 * <p>{@code -Dloupe.faults.repeats=N} (default 3 in the build) repeats each fault N times per
 * server/client protocol pair (so 3N times per protocol on each leg); {@code scripts/faults.sh}
 * runs it with many and records the figures.
 */
@Timeout(value = 6, unit = TimeUnit.HOURS)
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class FaultInjectionTest {
  static final int REPEATS = Integer.getInteger("loupe.faults.repeats", 3);
  static final int PARALLEL = Integer.getInteger("loupe.faults.parallel", 16);
  /** Loupe's response timeout here: what "silent" waits for (long enough for a loaded machine). */
  /** An HTTP/3 request without any answer for this long: its QUIC connection stalled. */
  static final long H3_STALL_SECONDS = 120;
  static final Duration RESPONSE_TIMEOUT = Duration.ofMillis(Long.getLong("loupe.faults.responseTimeoutMs", 2000));

  enum Proto { H1, H2, H3 }

  enum Fault {
    RESET_MID_BODY(Set.of(FlowError.Kind.SERVER_RESET)),
    CLOSE_BEFORE_RESPONSE(Set.of(FlowError.Kind.SERVER_RESET, FlowError.Kind.SERVER_PROTOCOL)),
    SILENT(Set.of(FlowError.Kind.TIMEOUT)),
    GARBAGE(Set.of(FlowError.Kind.SERVER_PROTOCOL, FlowError.Kind.SERVER_RESET)),
    CLIENT_VANISHES(Set.of(FlowError.Kind.CLIENT_ABORT));

    final Set<FlowError.Kind> expected;

    Fault(Set<FlowError.Kind> expected) {
      this.expected = expected;
    }
  }

  static TestOrigin h1Origin;
  static TestOrigin h2Origin;
  static Http3TestOrigin h3Origin;
  static GarbageOrigin garbage;
  static final Map<Proto, ProxyFixture> proxies = new EnumMap<>(Proto.class);
  static final Map<Proto, ProxyFixture> garbageProxies = new EnumMap<>(Proto.class);
  static HttpClient h1Client;
  static HttpClient h2Client;
  static long fdsBefore;
  /** What each run found, for the report: "server H2 / client H3 / RESET_MID_BODY" -> kinds. */
  static final Map<String, Map<String, Integer>> report = new TreeMap<>();

  @BeforeAll
  static void start() throws Exception {
    String atStart = describeFds(); // first: what it loads opens descriptors of its own, once
    fdsBefore = openFds();
    System.out.println("[faults] file descriptors at the start: " + atStart);
    h1Client = client(HttpClient.Version.HTTP_1_1);
    h2Client = client(HttpClient.Version.HTTP_2);
    h1Origin = TestOrigin.https();
    h2Origin = TestOrigin.h2Only();
    h3Origin = new Http3TestOrigin(TestPki.shared().originCa(), 4096);
    garbage = new GarbageOrigin();
    proxies.put(Proto.H1, reverse(h1Origin.url(), EngineConfig.UpstreamProtocol.H1));
    proxies.put(Proto.H2, reverse(h2Origin.url(), EngineConfig.UpstreamProtocol.H2));
    proxies.put(Proto.H3, reverse(h3Origin.url(), EngineConfig.UpstreamProtocol.H3));
    garbageProxies.put(Proto.H1, reverse(garbage.url(), EngineConfig.UpstreamProtocol.H1));
    garbageProxies.put(Proto.H2, reverse(garbage.url(), EngineConfig.UpstreamProtocol.H2)); // h2c
    // Who is who, to name the owner of any socket still open at the end.
    StringBuilder who = new StringBuilder("[faults] origins: h1 " + h1Origin.url() + ", h2 " + h2Origin.url()
        + ", h3 " + h3Origin.url() + ", garbage " + garbage.url() + "; proxies (tcp, udp):");
    for (Map<Proto, ProxyFixture> m : List.of(proxies, garbageProxies)) {
      m.forEach((k, p) -> who.append(" ").append(k).append(m == proxies ? "" : "-garbage").append(" ")
          .append(p.port()).append("/").append(p.engine().http3Address() == null ? "-"
              : p.engine().http3Address().getPort()));
    }
    System.out.println(who);
    // Warm up (first leaf minted, JIT): a cold start must not pass for a fault's outcome.
    for (ProxyFixture p : proxies.values()) {
      healthyAnswerMillis(p);
    }
    for (ProxyFixture p : garbageProxies.values()) {
      h1Client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + p.port() + "/warm-up"))
          .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.discarding());
      p.store().clear();
    }
  }


  /** Flows a fault leaves: one per request, except that a client gone before its head arrived leaves none. */
  private static boolean flowCountOk(Fault fault, int flows) {
    return fault == Fault.CLIENT_VANISHES ? flows <= REPEATS : flows == REPEATS;
  }

  private static ProxyFixture reverse(String origin, EngineConfig.UpstreamProtocol upstream) throws IOException {
    return reverse(origin, upstream, RESPONSE_TIMEOUT);
  }

  private static ProxyFixture reverse(String origin, EngineConfig.UpstreamProtocol upstream, Duration responseTimeout)
      throws IOException {
    return ProxyFixture.start(b -> b.reverse(EngineConfig.Reverse.parse(origin)).upstreamProtocol(upstream)
        .responseTimeout(responseTimeout));
  }

  private static HttpClient client(HttpClient.Version v) {
    return HttpClient.newBuilder().version(v).sslContext(TestPki.shared().clientTrustingLoupe())
        .connectTimeout(Duration.ofSeconds(60)).build(); // a loaded machine accepts slowly
  }

  @AfterAll
  static void stop() throws Exception {
    List<AutoCloseable> all = new ArrayList<>(proxies.values());
    all.addAll(garbageProxies.values());
    all.addAll(java.util.Arrays.asList(h1Origin, h2Origin, h3Origin, garbage));
    for (AutoCloseable c : all) {
      if (c != null) {
        c.close();
      }
    }
    report.forEach((k, v) -> System.out.println("[faults] " + k + " " + v));
  }

  @Test
  @org.junit.jupiter.api.Order(2) // last: it closes everything to count leaks and descriptors
  void everyFaultOnEveryProtocolEndsCleanly() throws Exception {
    List<String> problems = new ArrayList<>();
    for (Proto server : Proto.values()) {
      for (Fault fault : Fault.values()) {
        if (fault == Fault.GARBAGE && server == Proto.H3) {
          continue; // QUIC carries no unauthenticated bytes; malformed HTTP/3 frames are not injected here
        }
        ProxyFixture proxy = fault == Fault.GARBAGE ? garbageProxies.get(server) : proxies.get(server);
        for (Proto client : Proto.values()) {
          problems.addAll(run(proxy, server, client, fault));
        }
      }
    }
    for (Proto server : Proto.values()) {
      long ms = healthyAnswerMillis(proxies.get(server));
      System.out.println("[faults] server " + server + ": a normal request after the faults took " + ms + " ms");
      // Timed only in the long run (scripts/faults.sh): a build on a loaded machine proves it answers.
      if (REPEATS > 3 && ms >= 100) {
        problems.add("server " + server + ": a normal request after the faults took " + ms + " ms");
      }
    }
    // The outcomes are asserted last, so that a long run that finds a wrong one still checks and
    // reports leaks and descriptors.
    problems.forEach(p -> System.out.println("[faults] problem: " + p)); // into the summary of scripts/faults.sh

    stop();
    for (Map<Proto, ProxyFixture> m : List.of(proxies, garbageProxies)) {
      m.clear();
    }
    h1Origin = null;
    h2Origin = null;
    h3Origin = null;
    garbage = null;
    // The JDK client has no close(): once unreachable, its selector thread closes its pooled
    // connections and its own descriptors.
    h1Client = null;
    h2Client = null;
    List<String> leaks = collectLeaks();
    System.out.println("[faults] buffer leaks (paranoid detection, after everything closed): " + leaks.size());
    assertThat(leaks).as("buffer leaks").isEmpty();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long fds = openFds();
    while (fds > fdsBefore && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(200);
      fds = openFds();
    }
    System.out.println("[faults] file descriptors before " + fdsBefore + ", after " + fds + ": now open "
        + describeFds());
    // Every socket, pipe and event descriptor opened since the start is closed again. (The sockets
    // once left over here were Loupe's: client connections idle behind TLS outlived the engine's
    // close, and the JDK clients' ends with them; ProxyEngine now closes its connections itself.)
    assertThat(fds).as("file descriptors after everything closed (before: %d; now open: %s)", fdsBefore,
        describeFds()).isLessThanOrEqualTo(fdsBefore);
    assertThat(problems).isEmpty();
  }

  /**
   * Issue 13: an HTTP/3 client that resets its request stream mid-body (STOP_SENDING +
   * RESET_STREAM, H3_REQUEST_CANCELLED) is recorded as gone (CLIENT_ABORT), on every server leg, and
   * the origin's request is aborted — both while Loupe relays the body (a read is pending when the
   * reset comes) and while Loupe has stopped reading the client because the origin takes no more
   * of the body: Netty reports a QUIC reset only through a read, so there Loupe has to ask quiche.
   * The proxies here wait ten minutes for a response, so a reset Loupe misses cannot pass for a
   * timeout: its flow would stay in flight and fail the check.
   */
  @Test
  @org.junit.jupiter.api.Order(1)
  void anHttp3ClientThatResetsMidRequestIsRecordedAsGone() throws Exception {
    List<String> problems = new ArrayList<>();
    Map<Proto, String> origins = Map.of(Proto.H1, h1Origin.url(), Proto.H2, h2Origin.url(), Proto.H3, h3Origin.url());
    for (Proto server : Proto.values()) {
      try (ProxyFixture proxy = reverse(origins.get(server), EngineConfig.UpstreamProtocol.valueOf(server.name()),
          Duration.ofMinutes(10))) {
        problems.addAll(run(proxy, server, Proto.H3, Fault.CLIENT_VANISHES));
        problems.addAll(resetWhileLoupeWaitsForTheOrigin(proxy, server));
      }
    }
    assertThat(problems).isEmpty();
  }

  /**
   * An HTTP/3 client uploads to {@code /stall} (the origin takes the head and then reads nothing),
   * so the body backs up until Loupe stops reading the client; then the client cancels. The flow
   * must end as a client abort naming the cancel, and the origin must see its request cut off.
   */
  private List<String> resetWhileLoupeWaitsForTheOrigin(ProxyFixture proxy, Proto server) throws Exception {
    String name = "server " + server + " / client H3 / reset while Loupe waits for the origin to read";
    String tag = "stall-" + server;
    List<String> problems = new ArrayList<>();
    proxy.store().clear();
    try (Http3TestClient h3 = new Http3TestClient(proxy.engine().http3Address(), "127.0.0.1",
        TestPki.shared().loupeCa().certificate())) {
      CompletableFuture<io.netty.handler.codec.quic.QuicStreamChannel> stream = new CompletableFuture<>();
      h3.send("POST", "/stall?t=" + tag, "127.0.0.1:" + proxy.port(), 1L << 30, Map.of(), s -> {}, stream)
          .exceptionally(t -> null);
      long relayed = awaitRelayingStopped(proxy, tag);
      if (relayed < 0) {
        problems.add(name + ": no flow for the request within 2 minutes");
        return problems;
      }
      var s = stream.get(30, TimeUnit.SECONDS);
      s.eventLoop().execute(() -> Http3TestClient.cancel(s));
      // only this request's flow: a late flow of the run before (its client vanished) may still land
      List<Flow> flows = awaitEnded(proxy, name, problems).stream()
          .filter(f -> f.request() != null && f.request().url().contains("t=" + tag)).toList();
      for (Flow f : flows) {
        if (f.error() == null || f.error().kind() != FlowError.Kind.CLIENT_ABORT
            || !f.error().message().contains("cancelled the HTTP/3 stream")) {
          problems.add(name + ": flow " + f.id() + " (" + relayed + " body bytes relayed before the cancel) ended "
              + f.state() + " with " + f.error() + " (expected CLIENT_ABORT naming the cancel)");
        }
      }
      if (flows.size() != 1) {
        problems.add(name + ": " + flows.size() + " flows for 1 request");
      }
    }
    problems.addAll(originSawTheRequestCutOff(server, tag, name));
    System.out.println("[faults] " + name + ": " + (problems.isEmpty() ? "CLIENT_ABORT, origin request cut off"
        : problems));
    return problems;
  }

  /**
   * Waits until the request tagged {@code tag} has a flow whose relayed body stopped growing (the
   * same size for two seconds): Loupe no longer reads the client. Returns that size, or -1.
   */
  private static long awaitRelayingStopped(ProxyFixture proxy, String tag) {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    long last = -1;
    int same = 0;
    while (System.nanoTime() < deadline) {
      Flow flow = proxy.store().snapshot().stream()
          .filter(f -> f.request() != null && f.request().url().contains(tag)).findFirst().orElse(null);
      long size = flow == null ? -1 : flow.requestBody().size();
      same = size > 0 && size == last ? same + 1 : 0;
      last = size;
      if (same >= 20) {
        return size;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(100_000_000);
    }
    return -1;
  }

  /** The origin's view, once it reads again: the request tagged {@code tag} never completed nor was answered. */
  private static List<String> originSawTheRequestCutOff(Proto server, String tag, String name) throws Exception {
    String ending;
    boolean cutOff;
    if (server == Proto.H3) {
      h3Origin.resumeStalled();
      Http3TestOrigin.Ending e = h3Origin.awaitSeen("t=" + tag).ending().get(60, TimeUnit.SECONDS);
      ending = e.toString();
      cutOff = !e.answered() && !e.how().equals("answered");
    } else {
      TestOrigin origin = server == Proto.H1 ? h1Origin : h2Origin;
      origin.resumeStalled();
      TestOrigin.Ending e = origin.awaitSeen("t=" + tag).ending().get(60, TimeUnit.SECONDS);
      ending = e.toString();
      cutOff = !e.answered() && !e.requestEnded();
    }
    return cutOff ? List.of() : List.of(name + ": the origin did not see its request cut off: " + ending);
  }

  /**
   * Whose sockets are open now, around {@code proxy}: the client connections Loupe accepted (and
   * how many of those the client already closed), the test clients' ends of them, Loupe's TCP
   * connections to the origin on {@code originPort} (-1: none, HTTP/3), and UDP sockets in all.
   */
  private static String sockets(ProxyFixture proxy, int originPort) {
    int accepted = 0;
    int acceptedClosedByClient = 0;
    int clientEnds = 0;
    int toOrigin = 0;
    int udp = 0;
    for (OpenSockets.Socket s : OpenSockets.mine()) {
      if (s.proto().startsWith("udp")) {
        udp++;
      } else if (s.proto().startsWith("tcp") && !s.state().equals("LISTEN")) {
        if (s.localPort() == proxy.port()) {
          accepted++;
          acceptedClosedByClient += s.state().equals("CLOSE_WAIT") ? 1 : 0;
        } else if (s.remotePort() == proxy.port()) {
          clientEnds++;
        } else if (s.remotePort() == originPort) {
          toOrigin++;
        }
      }
    }
    return "Loupe's client connections " + accepted + " (closed by the client: " + acceptedClosedByClient
        + "), test clients' ends " + clientEnds + ", Loupe to the origin " + toOrigin + ", UDP in all " + udp;
  }

  /** The query every request of one run carries, to tell its flows from a late one of the run before. */
  private static String runTag(Proto server, Proto client, Fault fault) {
    return "run=" + server + "-" + client + "-" + fault;
  }

  /** REPEATS requests with {@code fault}, PARALLEL at a time; returns what went wrong. */
  private List<String> run(ProxyFixture proxy, Proto server, Proto client, Fault fault) throws Exception {
    String name = "server " + server + " / client " + client + " / " + fault;
    proxy.store().clear();
    Http3TestClient h3 = client == Proto.H3
        ? new Http3TestClient(proxy.engine().http3Address(), "127.0.0.1", TestPki.shared().loupeCa().certificate())
        : null;
    List<String> problems = new ArrayList<>();
    Map<String, Integer> clientSaw = new ConcurrentHashMap<>();
    Semaphore slots = new Semaphore(PARALLEL);
    List<CompletableFuture<Void>> all = new ArrayList<>();
    AtomicInteger stalled = new AtomicInteger();
    try {
      for (int i = 0; i < REPEATS && stalled.get() == 0; i++) {
        slots.acquire();
        CompletableFuture<String> one = send(proxy, server, client, fault, h3);
        if (client == Proto.H3) {
          // The JDK clients give up after 60 s; the HTTP/3 client would wait for ever, and a stalled
          // QUIC connection would hang the whole run. A stall ends this run (reported below).
          one = one.orTimeout(H3_STALL_SECONDS, TimeUnit.SECONDS);
        }
        all.add(one.handle((outcome, failure) -> {
          slots.release();
          if (failure instanceof java.util.concurrent.TimeoutException) {
            stalled.incrementAndGet();
          }
          String what = failure instanceof java.util.concurrent.TimeoutException ? "stalled"
              : failure != null ? "error" : outcome;
          clientSaw.merge(what, 1, Integer::sum);
          return null;
        }));
      }
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.MINUTES);
    } finally {
      if (h3 != null) {
        h3.close();
      }
    }
    if (stalled.get() > 0) {
      problems.add(name + ": " + stalled.get() + " HTTP/3 requests got no answer within " + H3_STALL_SECONDS
          + " s (the run stopped sending)");
    }
    if (clientSaw.containsKey("complete")) {
      problems.add(name + ": the client got a complete response " + clientSaw.get("complete") + " times");
    }
    // Every flow ends, marked with what happened. (A request of the run before that reached
    // Loupe only after its client had given up may be recorded late, into this run's store: it
    // must end too, but it is not counted here.)
    String tag = runTag(server, client, fault);
    List<Flow> flows = awaitEnded(proxy, name, problems).stream()
        .filter(f -> f.request() != null && f.request().url().contains(tag)).toList();
    Map<String, Integer> kinds = new TreeMap<>();
    for (Flow f : flows) {
      Set<FlowError.Kind> expected = fault.expected;
      if (fault == Fault.CLIENT_VANISHES && f.error() != null && f.error().kind() == FlowError.Kind.TIMEOUT) {
        if (timedOutBeforeTheClientLeft(f)) {
          kinds.merge("TIMEOUT before the client left", 1, Integer::sum); // right: the origin stalled first
          continue;
        }
        if (f.requestBody().size() < VANISHING_BYTES) {
          // Right too: the client wrote VANISHING_BYTES before it closed, and TCP delivers the close
          // after them; the origin (/sha256) reads everything, so Loupe relays what it receives. Fewer
          // relayed means the rest, and the close behind it, had not reached Loupe when its response
          // timeout ran out: to Loupe the client had stalled mid-body (the JDK client on a box at
          // load 25-38 now and then holds its last writes for over 2 s after giving up).
          kinds.merge("TIMEOUT before the client's close arrived", 1, Integer::sum);
          continue;
        }
      }
      kinds.merge(f.error() == null ? f.state().name() : f.error().kind().name(), 1, Integer::sum);
      if (f.error() == null || !expected.contains(f.error().kind())) {
        problems.add(name + ": flow " + f.id() + " ended " + f.state() + " with " + f.error()
            + " (expected one of " + expected + "; request body relayed " + f.requestBody().size() + " bytes)");
      }
    }
    if (!flowCountOk(fault, flows.size())) {
      problems.add(name + ": " + flows.size() + " flows for " + REPEATS + " requests");
    }
    System.out.println("[faults] " + name + " sockets now: " + sockets(proxy, fault == Fault.GARBAGE ? garbage.port()
        : server == Proto.H1 ? h1Origin.port() : server == Proto.H2 ? h2Origin.port() : -1));
    Map<String, Integer> line = new TreeMap<>(kinds);
    clientSaw.forEach((k, v) -> line.put("client:" + k, v));
    report.put(name, line);
    System.out.println("[faults] " + name + " " + line);
    return problems.size() > 10 ? problems.subList(0, 10) : problems;
  }

  private static List<Flow> awaitEnded(ProxyFixture proxy, String name, List<String> problems) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      List<Flow> flows = proxy.store().snapshot();
      long inFlight = flows.stream().filter(f -> f.state() == FlowState.IN_FLIGHT).count();
      if (inFlight == 0) {
        return flows;
      }
      if (System.nanoTime() > deadline) {
        problems.add(name + ": " + inFlight + " flows still in flight 60 s after their clients finished");
        return flows;
      }
      java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
    }
  }

  /**
   * One request with {@code fault}; completes with what the client saw: "complete" (a whole 2xx
   * response: never right here), "status NNN" (an error page), "broken" (a response cut off), or
   * "aborted" (this client gave up on purpose).
   */
  private CompletableFuture<String> send(ProxyFixture proxy, Proto server, Proto client, Fault fault,
      Http3TestClient h3) {
    String path = switch (fault) {
      case RESET_MID_BODY -> "/reset";
      case CLOSE_BEFORE_RESPONSE -> "/close";
      case SILENT -> server == Proto.H3 ? "/silent" : "/slow/600000";
      case GARBAGE -> "/garbage";
      case CLIENT_VANISHES -> "/sha256";
    } + "?" + runTag(server, client, fault);
    String authority = "127.0.0.1:" + proxy.port();
    if (client == Proto.H3) {
      if (fault == Fault.CLIENT_VANISHES) {
        // Like the other clients: 64 KiB of a promised 50 MiB body, then gone (the stream cancelled).
        return h3.sendAndVanish(path, authority, 50L << 20, 64 * 1024).thenApply(v -> "aborted");
      }
      return h3.send("GET", path, authority, 0).thenApply(r -> r.status() / 100 == 2 && r.length() >= 100_000
          ? "complete" : r.status() / 100 == 2 ? "broken" : "status " + r.status());
    }
    HttpClient http = client == Proto.H1 ? h1Client : h2Client;
    URI uri = URI.create("https://" + authority + path);
    if (fault == Fault.CLIENT_VANISHES) {
      String id = Long.toString(VANISH_IDS.incrementAndGet());
      HttpRequest req = HttpRequest.newBuilder(URI.create(uri + "&v=" + id)).timeout(Duration.ofSeconds(60))
          .POST(HttpRequest.BodyPublishers.fromPublisher(new VanishingBody(id), 50L << 20)).build();
      return http.sendAsync(req, HttpResponse.BodyHandlers.discarding())
          .handle((r, t) -> t != null ? "aborted" : "status " + r.statusCode());
    }
    HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).GET().build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray())
        .handle((r, t) -> t != null ? "broken" : r.statusCode() / 100 == 2 ? "complete" : "status " + r.statusCode());
  }

  /** Sends 64 KiB of a promised 50 MiB body, then fails: the client gives up mid-request. */
  /** Vanishing uploads by id ({@code v=} in the URL): when their client gave up (System.nanoTime). */
  private static final Map<String, Long> VANISHED_AT = new java.util.concurrent.ConcurrentHashMap<>();
  private static final AtomicLong VANISH_IDS = new AtomicLong();
  /** What a vanishing upload writes before it gives up: 4 chunks of 16 KiB. */
  private static final int VANISHING_BYTES = 64 * 1024;

  /**
   * A vanishing upload's flow that ended as a response timeout before its client gave up: Loupe was
   * right (the origin had taken nothing for the whole response timeout while the client was still
   * there, which a loaded machine makes happen now and then with the faults' 2 s timeout).
   */
  private static boolean timedOutBeforeTheClientLeft(Flow f) {
    String url = f.request().url();
    int at = url.indexOf("&v=");
    if (at < 0) {
      return false;
    }
    Long left = VANISHED_AT.get(url.substring(at + 3));
    long failed = f.timings().failedAtNanos();
    return failed != 0 && (left == null || failed - left < 0);
  }

  private static final class VanishingBody implements java.util.concurrent.Flow.Publisher<ByteBuffer> {
    private final String id;

    VanishingBody(String id) {
      this.id = id;
    }

    @Override
    public void subscribe(Subscriber<? super ByteBuffer> s) {
      AtomicInteger sent = new AtomicInteger();
      s.onSubscribe(new java.util.concurrent.Flow.Subscription() {
        @Override
        public void request(long n) {
          for (long i = 0; i < n; i++) {
            int k = sent.getAndIncrement();
            if (k < VANISHING_BYTES / (16 * 1024)) {
              s.onNext(ByteBuffer.wrap(new byte[16 * 1024]));
            } else {
              if (k == VANISHING_BYTES / (16 * 1024)) {
                VANISHED_AT.put(id, System.nanoTime());
                s.onError(new IOException("the client went away"));
              }
              return;
            }
          }
        }

        @Override
        public void cancel() {}
      });
    }
  }

  /** The fastest of ten normal requests through {@code proxy} (each must succeed). */
  private static long healthyAnswerMillis(ProxyFixture proxy) throws Exception {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      long t0 = System.nanoTime();
      HttpResponse<byte[]> r = h1Client.send(HttpRequest.newBuilder(
          URI.create("https://127.0.0.1:" + proxy.port() + "/bytes/100"))
          .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).hasSize(100);
      best = Math.min(best, ms);
    }
    return best;
  }

  private static List<String> collectLeaks() throws InterruptedException {
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      for (io.netty.buffer.ByteBufAllocator a : new io.netty.buffer.ByteBufAllocator[] {
          io.netty.buffer.ByteBufAllocator.DEFAULT, io.netty.buffer.PooledByteBufAllocator.DEFAULT,
          io.netty.buffer.UnpooledByteBufAllocator.DEFAULT}) {
        a.directBuffer(1).release();
        a.heapBuffer(1).release();
      }
    }
    return RecordingLeakDetector.drain();
  }

  /**
   * The non-file descriptors open now, sockets with their addresses, e.g. {@code 12 -> socket:[4711]
   * tcp 127.0.0.1:40000 -> 127.0.0.1:8080 ESTABLISHED}, for failure messages.
   */
  static String describeFds() throws IOException {
    List<String> out = new ArrayList<>();
    Map<String, String> sockets = OpenSockets.table();
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) s::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (!target.startsWith("/")) {
            out.add(fd.getFileName() + " -> " + OpenSockets.describe(target, sockets));
          }
        } catch (IOException gone) {
          // closed while listing
        }
      }
    }
    return out.toString();
  }

  /**
   * Open descriptors that are not plain files: sockets, pipes, epoll and event fds. (The JVM opens
   * jar files lazily as classes load, which says nothing about leaks.)
   */
  static long openFds() throws IOException {
    long n = 0;
    try (var s = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) s::iterator) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (!target.startsWith("/")) {
            n++;
          }
        } catch (IOException gone) {
          // closed while listing
        }
      }
    }
    return n;
  }

  /** An origin that answers every request with bytes that are not HTTP at all, then closes. */
  static final class GarbageOrigin implements AutoCloseable {
    private final java.net.ServerSocket server = new java.net.ServerSocket(0, 1024,
        java.net.InetAddress.getLoopbackAddress());
    private final java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "garbage-origin");
      t.setDaemon(true);
      return t;
    });

    GarbageOrigin() throws IOException {
      pool.execute(this::accept);
    }

    String url() {
      return "http://127.0.0.1:" + server.getLocalPort();
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          java.net.Socket s = server.accept();
          pool.execute(() -> answer(s));
        } catch (IOException closed) {
          return;
        }
      }
    }

    private static void answer(java.net.Socket s) {
      try (s) {
        s.setSoTimeout(10_000);
        s.getInputStream().read(new byte[4096]); // whatever the proxy sends first (request or preface)
        s.getOutputStream().write("\u0000\u00ffNOT HTTP AT ALL\r\n\r\n\u0007garbage".getBytes(
            java.nio.charset.StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
      } catch (IOException ignored) {
        // the proxy may hang up first
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
      pool.shutdownNow();
    }
  }
}

