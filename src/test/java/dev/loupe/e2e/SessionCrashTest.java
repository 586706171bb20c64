package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.testing.FlowsAssert;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code loupe --headless --session FILE} in its own JVM, killed with SIGKILL (kill -9) in
 * the middle of heavy capture: the file opens and holds every flow that ended more than a second
 * before the kill, bodies byte for byte; the next start records on into the same file, ids after
 * the old ones. Headless recording defers the filters' indexes to its close: a killed one leaves
 * the file without them, which opens read-only as it is (filters scan) and gets them built when
 * opened for writing.
 */
@Timeout(300)
class SessionCrashTest {
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b");

  @TempDir Path tmp;

  /** A request the client saw answered in full, and when. */
  record Done(String url, int size, long atNanos) {}

  /** The flow table's secondary indexes the file's catalogue lists (read on a connection of its own). */
  private static List<String> flowIndexes(Path file) throws Exception {
    java.util.Properties p = new java.util.Properties();
    p.setProperty("open_mode", "1"); // read-only
    List<String> names = new ArrayList<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file, p);
        java.sql.Statement st = c.createStatement();
        java.sql.ResultSet r = st.executeQuery("SELECT name FROM sqlite_master WHERE type = 'index'"
            + " AND tbl_name = 'flow' AND sql IS NOT NULL ORDER BY name")) {
      while (r.next()) {
        names.add(r.getString(1));
      }
    }
    return names;
  }

  @Test
  void aKilledHeadlessSessionGetsItsIndexesWhenOpenedAndItsFiltersWork() throws Exception {
    Path file = tmp.resolve("killed.loupe");
    Map<Integer, List<String>> byStatus = new HashMap<>();
    List<String> posts201 = new ArrayList<>();
    try (TestOrigin origin = TestOrigin.http();
        LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), List.of("--headless", "--listen", "127.0.0.1:0",
            "--confdir", tmp.resolve("conf").toString(), "--session", file.toString()))) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, Duration.ofSeconds(60)).group(1));
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).build();
      int[] statuses = {200, 201, 404, 503};
      String last = null;
      for (int i = 0; i < 120; i++) {
        int status = statuses[i % statuses.length];
        String url = origin.url() + "/status/" + status + "?i=" + i;
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url));
        if (i % 3 == 0) {
          r.POST(HttpRequest.BodyPublishers.ofString("body " + i));
        }
        assertThat(client.send(r.build(), HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(status);
        byStatus.computeIfAbsent(status, k -> new ArrayList<>()).add(url);
        if (i % 3 == 0 && status == 201) {
          posts201.add(url);
        }
        last = url;
      }
      loupe.awaitLine(Pattern.compile(Pattern.quote(last)), Duration.ofSeconds(30)); // printed: it ended
      // on disk within the recorder's next batches (every 100 ms): read the file while it records
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
        try (Session s = Session.openReadOnly(file, tmp)) {
          return s.count() == 120;
        }
      });
      loupe.process().destroyForcibly(); // SIGKILL: the close that builds the indexes never runs
      loupe.awaitExit(Duration.ofSeconds(30));
    }
    assertThat(flowIndexes(file)).as("recorded without its indexes").isEmpty();
    try (Session s = Session.openReadOnly(file, tmp)) {
      assertThat(s.indexed()).isFalse();
      assertThat(urls(s, "status=404")).as("read-only: filters scan").containsExactlyInAnyOrderElementsOf(byStatus.get(404));
    }
    assertThat(flowIndexes(file)).as("read-only: nothing written").isEmpty();

    try (Session s = Session.open(file, tmp)) { // as the window opens it
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(s::indexed);
      assertThat(flowIndexes(file)).containsExactly("flow_client_proto", "flow_duration", "flow_host", "flow_method",
          "flow_res_size", "flow_res_type", "flow_started", "flow_status");
      assertThat(s.count()).isEqualTo(120);
      assertThat(urls(s, "status=404")).containsExactlyInAnyOrderElementsOf(byStatus.get(404));
      assertThat(urls(s, "status>=500")).containsExactlyInAnyOrderElementsOf(byStatus.get(503));
      assertThat(urls(s, "~m POST & status=201")).containsExactlyInAnyOrderElementsOf(posts201).isNotEmpty();
      List<Long> byStatusDesc = new ArrayList<>();
      s.ids(Filter.ALL, SortKey.STATUS, true, byStatusDesc::add, () -> false);
      assertThat(s.load(byStatusDesc.get(0)).response().status()).isEqualTo(503);
      assertThat(s.load(byStatusDesc.get(byStatusDesc.size() - 1)).response().status()).isEqualTo(200);
    }
    assertThat(flowIndexes(file)).hasSize(8);
  }

  /** The URLs of the flows {@code filter} selects. */
  private static List<String> urls(Session s, String filter) throws Exception {
    List<String> out = new ArrayList<>();
    s.flows(Filter.parse(filter), f -> out.add(f.request().url()), () -> false);
    List<Long> ids = new ArrayList<>();
    s.ids(Filter.parse(filter), SortKey.ID, false, ids::add, () -> false);
    assertThat(ids).as("ids and flows of " + filter).hasSameSizeAs(out);
    return out;
  }

  @Test
  void killDashNineDuringHeavyCaptureLosesAtMostTheLastSecond() throws Exception {
    Path file = tmp.resolve("crash.loupe");
    Path conf = tmp.resolve("conf");
    Map<String, Done> done = new ConcurrentHashMap<>();
    long killedAt;
    try (TestOrigin origin = TestOrigin.http();
        LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx512m"), List.of("--headless", "--quiet",
            "--listen", "127.0.0.1:0", "--confdir", conf.toString(), "--session", file.toString()))) {
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, Duration.ofSeconds(60)).group(1));
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).connectTimeout(Duration.ofSeconds(10))
          .build();
      AtomicBoolean running = new AtomicBoolean(true);
      AtomicInteger sent = new AtomicInteger();
      ExecutorService clients = Executors.newFixedThreadPool(8);
      for (int t = 0; t < 8; t++) {
        int thread = t;
        clients.execute(() -> {
          for (int i = 0; running.get(); i++) {
            int size = 100 + (thread * 7919 + i * 104729) % 60_000;
            String url = origin.url() + "/bytes/" + size + "?c=" + thread + "-" + i;
            sent.incrementAndGet();
            try {
              HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(),
                  HttpResponse.BodyHandlers.ofByteArray());
              long at = System.nanoTime();
              if (r.statusCode() == 200 && r.body().length == size) {
                done.put(url, new Done(url, size, at));
              }
            } catch (Exception stopped) {
              return; // the proxy was killed
            }
          }
        });
      }
      long warm = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (done.size() < 300 && System.nanoTime() < warm) { // past the JIT's warm-up, then a few seconds more
        Thread.sleep(50);
      }
      int atWarm = done.size();
      Thread.sleep(3_000);
      System.out.printf("crash test: %d requests answered in warm-up, %d more in 3 s; killing%n", atWarm,
          done.size() - atWarm);
      killedAt = System.nanoTime();
      loupe.process().destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed on the way out
      loupe.awaitExit(Duration.ofSeconds(30));
      running.set(false);
      clients.shutdown();
      assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
      assertThat(done.size()).as("heavy capture: requests answered before the kill").isGreaterThan(200);
    }

    try (Session s = Session.openReadOnly(file, tmp)) {
      assertThat(s.indexed()).as("killed while recording with deferred indexes").isFalse();
    }
    assertThat(flowIndexes(file)).isEmpty();

    List<Done> older = done.values().stream().filter(d -> killedAt - d.atNanos() > TimeUnit.SECONDS.toNanos(1)).toList();
    Map<String, Flow> stored = new HashMap<>();
    try (Session s = Session.openReadOnly(file, tmp)) {
      s.flows(Filter.ALL, f -> stored.put(f.request().url(), f), () -> false);
    }
    for (Done d : older) {
      Flow f = stored.get(d.url());
      assertThat(f).as("%s ended %d ms before the kill", d.url(), (killedAt - d.atNanos()) / 1_000_000).isNotNull();
      assertThat(f.response().status()).isEqualTo(200);
      assertThat(FlowsAssert.sha256(f.responseBody())).as(d.url()).isEqualTo(TestData.sha256(d.size()));
    }
    assertThat(stored.keySet()).as("nothing made up").allMatch(url -> url.contains("/bytes/"));

    // the next start: the file opens, recording goes on after the old flows
    long before;
    try (Session s = Session.openReadOnly(file, tmp)) {
      before = s.count();
    }
    try (TestOrigin origin = TestOrigin.http();
        LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), List.of("--headless", "--listen",
            "127.0.0.1:0", "--confdir", conf.toString(), "--session", file.toString()))) {
      loupe.awaitLine(Pattern.compile("Recording into .*\\(" + before + " flows already in it\\)"), Duration.ofSeconds(60));
      int port = Integer.parseInt(loupe.awaitLine(LISTENING, Duration.ofSeconds(60)).group(1));
      HttpClient client = HttpClient.newBuilder().proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port)))
          .build();
      String url = origin.url() + "/bytes/77?after=restart";
      assertThat(client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray())
          .body()).isEqualTo(TestData.bytes(77));
      loupe.awaitLine(Pattern.compile(Pattern.quote(url)), Duration.ofSeconds(30));
      loupe.terminate();
      loupe.awaitExit(Duration.ofSeconds(60));
      assertThat(loupe.stderr()).anyMatch(l -> l.contains("session saved to " + file));
    }
    try (Session s = Session.openReadOnly(file, tmp)) {
      assertThat(s.indexed()).as("a headless session closed normally has its indexes").isTrue();
      assertThat(s.count()).isEqualTo(before + 1);
      List<Long> ids = new ArrayList<>();
      s.ids(Filter.parse("~u after=restart"), SortKey.ID, false, ids::add, () -> false);
      assertThat(ids).hasSize(1);
      assertThat(ids.get(0)).as("ids continue after the old flows").isEqualTo(s.maxId());
    }
  }
}
