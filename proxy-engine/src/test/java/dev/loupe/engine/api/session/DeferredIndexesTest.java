package dev.loupe.engine.api.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.session.Session.Indexing;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Indexing#DEFERRED}: a session recorded without the flow table's secondary indexes has none
 * in the file while it records (checked in the file's own catalogue, not through the session), gives
 * the same filter and sort answers meanwhile, and has all of them once closed; a file left without
 * them (a recording stopped before it closed) opens read-only unchanged and scanning, and gets them
 * built in the background when opened for writing. {@link Indexing#ON_DEMAND} (the window): a new
 * file has the start-time and status indexes only; a filter or sort that could use another index gets
 * it built (and answers the same before and after), one that could not builds nothing; closing builds
 * none.
 */
@Timeout(120)
class DeferredIndexesTest {
  private static final List<String> INDEXES = List.of("flow_client_proto", "flow_duration", "flow_host",
      "flow_method", "flow_res_size", "flow_res_type", "flow_started", "flow_status");
  private static final List<String> FILTERS = List.of("~m POST", "status>=400", "~d host3 & status=404",
      "~t png", "size>100", "duration>3ms", "proto=h2", "~b needle");

  @TempDir Path dir;
  private final List<Flow> recorded = new ArrayList<>();

  /** The secondary indexes the file's catalogue lists, read on a connection of its own. */
  private static List<String> indexes(Path file) throws Exception {
    Properties p = new Properties();
    p.setProperty("open_mode", "1"); // read-only
    List<String> names = new ArrayList<>();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file, p); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'flow'"
            + " AND sql IS NOT NULL ORDER BY name")) {
      while (r.next()) {
        names.add(r.getString(1));
      }
    }
    return names;
  }

  private void record(Session s, RecordingStore store, int n) throws Exception {
    CapturePolicy capture = new CapturePolicy(1 << 20, false, dir);
    for (int k = 0; k < n; k++) {
      int i = recorded.size();
      RecordedFlow f = new RecordedFlow(store.nextId(), Instant.parse("2026-01-01T00:00:00Z").plusMillis(i), capture);
      f.clientProtocol(i % 3 == 0 ? "HTTP/2" : "HTTP/1.1");
      f.timings().requestStart(1_000_000);
      String host = "host" + (i % 7) + ".example";
      f.request(new RequestHead(i % 4 == 0 ? "POST" : "GET", "https", host, 443, "/item/" + i, "HTTP/1.1",
          Headers.of("Host", host)));
      store.add(f);
      f.response(new ResponseHead(i % 5 == 0 ? 404 : i % 11 == 0 ? 503 : 200, "", "HTTP/1.1",
          Headers.of("Content-Type", i % 3 == 1 ? "image/png" : "application/json")));
      f.responseBody().append(ByteBuffer.wrap(("x".repeat(i % 900) + (i % 50 == 0 ? "needle" : ""))
          .getBytes(StandardCharsets.UTF_8)));
      f.timings().responseEnd(1_000_000 + (i % 9) * 1_000_000L);
      f.complete();
      store.completed(f);
      recorded.add(f);
    }
    s.flush();
  }

  /** Every filter and a column sort answer as the flows themselves say. */
  private void answersAreRight(Session s) throws Exception {
    for (String expression : FILTERS) {
      Filter filter = Filter.parse(expression);
      List<Long> expected = recorded.stream().filter(filter).map(Flow::id).toList();
      List<Long> actual = new ArrayList<>();
      s.ids(filter, SortKey.ID, false, actual::add, () -> false);
      assertThat(actual).as(expression).containsExactlyElementsOf(expected).isNotEmpty();
    }
    List<Long> byStatus = new ArrayList<>();
    s.ids(Filter.ALL, SortKey.STATUS, true, byStatus::add, () -> false);
    assertThat(byStatus).containsExactlyElementsOf(recorded.stream()
        .sorted(Comparator.comparingInt((Flow f) -> f.response().status()).thenComparingLong(Flow::id).reversed())
        .map(Flow::id).toList());
  }

  @Test
  void aDeferredRecordingHasNoIndexesWhileItRecordsAndAllOfThemOnceClosed() throws Exception {
    Path file = dir.resolve("d.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir, Indexing.DEFERRED)) {
      s.record(store, p -> { });
      record(s, store, 600);
      assertThat(indexes(file)).isEmpty();
      assertThat(s.indexed()).isFalse();
      answersAreRight(s);
    }
    assertThat(indexes(file)).containsExactlyElementsOf(INDEXES);
    try (Session s = Session.openReadOnly(file, dir)) {
      assertThat(s.indexed()).isTrue();
      assertThat(s.count()).isEqualTo(600);
      answersAreRight(s);
    }
  }

  @Test
  void aDeferredOpenOfAnIndexedFileDropsThemAndClosingBuildsThemAgain() throws Exception {
    Path file = dir.resolve("i.loupe");
    RecordingStore first = new RecordingStore();
    try (Session s = Session.open(file, dir)) {
      s.record(first, p -> { });
      record(s, first, 200);
      assertThat(s.indexed()).isTrue();
    }
    assertThat(indexes(file)).containsExactlyElementsOf(INDEXES);
    RecordingStore second = new RecordingStore();
    try (Session s = Session.open(file, dir, Indexing.DEFERRED)) {
      assertThat(indexes(file)).isEmpty();
      s.record(second, p -> { });
      record(s, second, 200);
      answersAreRight(s);
    }
    assertThat(indexes(file)).containsExactlyElementsOf(INDEXES);
  }

  @Test
  void aFileLeftWithoutIndexesOpensReadOnlyAsItIsAndGetsThemWhenOpenedForWriting() throws Exception {
    Path file = dir.resolve("k.loupe");
    Path left = dir.resolve("left.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir, Indexing.DEFERRED)) {
      s.record(store, p -> { });
      record(s, store, 500);
      // what a kill -9 leaves now: the database and its write-ahead log, never closed (the writer is idle)
      Files.copy(file, left, StandardCopyOption.COPY_ATTRIBUTES);
      Files.copy(file.resolveSibling(file.getFileName() + "-wal"), left.resolveSibling(left.getFileName() + "-wal"));
    }
    try (Session s = Session.openReadOnly(left, dir)) {
      assertThat(s.indexed()).isFalse();
      assertThat(s.count()).isEqualTo(500);
      answersAreRight(s); // by scans
    }
    assertThat(indexes(left)).as("read-only: nothing written").isEmpty();

    RecordingStore more = new RecordingStore();
    try (Session s = Session.open(left, dir)) {
      s.record(more, p -> { }); // recording goes on while the indexes are built
      record(s, more, 100);
      await().atMost(Duration.ofSeconds(60)).until(s::indexed);
      assertThat(indexes(left)).containsExactlyElementsOf(INDEXES);
      assertThat(s.count()).isEqualTo(600);
      answersAreRight(s);
    }
  }

  @Test
  void saveAsOfADeferredRecordingWritesAnIndexedCopy() throws Exception {
    Path file = dir.resolve("s.loupe");
    Path copy = dir.resolve("copy.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir, Indexing.DEFERRED)) {
      s.record(store, p -> { });
      record(s, store, 150);
      s.saveAs(copy);
      assertThat(indexes(file)).isEmpty();
    }
    assertThat(indexes(copy)).containsExactlyElementsOf(INDEXES);
    try (Session s = Session.openReadOnly(copy, dir)) {
      answersAreRight(s);
    }
  }

  /** Waits until the file's catalogue lists exactly {@code expected}. */
  private static void awaitIndexes(Path file, List<String> expected) {
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(indexes(file)).containsExactlyElementsOf(expected));
  }

  private static List<Long> ids(Session s, String filter, SortKey key) throws Exception {
    List<Long> out = new ArrayList<>();
    s.ids(Filter.parse(filter), key, true, out::add, () -> false);
    return out;
  }

  @Test
  void onDemandAFilterOrSortThatCanUseAnIndexGetsItBuiltAndAnswersTheSameBeforeAndAfter() throws Exception {
    Path file = dir.resolve("o.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir, Indexing.ON_DEMAND)) {
      s.record(store, p -> { });
      record(s, store, 400);
      assertThat(indexes(file)).containsExactly("flow_started", "flow_status");
      assertThat(s.count()).isEqualTo(400);

      // text atoms compare without case or by LIKE: no index on their column serves them, none is built
      assertThat(ids(s, "~m POST", SortKey.ID)).hasSize(100);
      assertThat(ids(s, "~d host3 & ~t png", SortKey.ID)).isNotEmpty();
      s.flush();
      assertThat(indexes(file)).containsExactly("flow_started", "flow_status");

      List<Long> scanned = ids(s, "duration>3ms", SortKey.ID); // answered by a scan, the index queued
      awaitIndexes(file, List.of("flow_duration", "flow_started", "flow_status"));
      assertThat(scanned).isNotEmpty().containsExactlyElementsOf(ids(s, "duration>3ms", SortKey.ID));

      List<Long> byHost = ids(s, "size>100", SortKey.HOST);
      awaitIndexes(file, List.of("flow_duration", "flow_host", "flow_res_size", "flow_started", "flow_status"));
      assertThat(byHost).isNotEmpty().containsExactlyElementsOf(ids(s, "size>100", SortKey.HOST));

      record(s, store, 200); // recorded into the indexes built on demand
      answersAreRight(s); // asks for none the file lacks
      assertThat(indexes(file)).containsExactly("flow_duration", "flow_host", "flow_res_size", "flow_started",
          "flow_status");
      assertThat(s.indexed()).isFalse();
    }
    assertThat(indexes(file)).as("closing builds none")
        .containsExactly("flow_duration", "flow_host", "flow_res_size", "flow_started", "flow_status");
    try (Session s = Session.openReadOnly(file, dir)) {
      assertThat(s.count()).isEqualTo(600);
      answersAreRight(s);
    }
  }

  @Test
  void onDemandKeepsTheIndexesAFileHasAndBuildsTheStartTimeAndStatusOnesAFileLacks() throws Exception {
    Path indexed = dir.resolve("all.loupe");
    RecordingStore first = new RecordingStore();
    try (Session s = Session.open(indexed, dir)) {
      s.record(first, p -> { });
      record(s, first, 100);
    }
    try (Session s = Session.open(indexed, dir, Indexing.ON_DEMAND)) {
      RecordingStore more = new RecordingStore();
      s.record(more, p -> { });
      record(s, more, 100);
      assertThat(indexes(indexed)).containsExactlyElementsOf(INDEXES);
      assertThat(s.indexed()).isTrue();
      answersAreRight(s);
    }

    recorded.clear();
    Path bare = dir.resolve("bare.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(bare, dir, Indexing.DEFERRED)) {
      s.record(store, p -> { });
      record(s, store, 100);
      Files.copy(bare, dir.resolve("left.loupe"));
      Files.copy(bare.resolveSibling("bare.loupe-wal"), dir.resolve("left.loupe-wal"));
    }
    Path left = dir.resolve("left.loupe");
    assertThat(indexes(left)).isEmpty();
    try (Session s = Session.open(left, dir, Indexing.ON_DEMAND)) {
      awaitIndexes(left, List.of("flow_started", "flow_status"));
      assertThat(s.count()).isEqualTo(100);
    }
    assertThat(indexes(left)).containsExactly("flow_started", "flow_status");
  }
}
