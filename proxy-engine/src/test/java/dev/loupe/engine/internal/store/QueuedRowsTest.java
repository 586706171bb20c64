package dev.loupe.engine.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recorder's queued path ({@link FlowWriter#queueRow}, {@link FlowWriter#queueBodies}: several
 * rows per {@code INSERT}, the {@code url} and {@code tier} columns computed by SQLite) writes the
 * same rows, value and type, as writing each flow at once ({@link FlowWriter#row}, {@link
 * FlowWriter#bodies}); a rollback drops what was queued.
 */
class QueuedRowsTest {
  @TempDir
  Path dir;

  @Test
  void queuedRowsEqualRowsWrittenOneByOne() throws Exception {
    List<RecordedFlow> flows = flows();
    assertThat(flows.size()).as("more than two full statements and a remainder of every smaller size")
        .isGreaterThan(2 * FlowWriter.ROWS_PER_INSERT + 31 - 2);
    Path queued = dir.resolve("queued.loupe");
    Path oneByOne = dir.resolve("one-by-one.loupe");
    try (SessionDb db = SessionDb.open(queued, false); FlowWriter w = new FlowWriter(db)) {
      Connection c = db.writer();
      c.setAutoCommit(false);
      for (RecordedFlow f : flows) {
        FlowState state = f.state();
        w.queueRow(f, state);
        if (state != FlowState.IN_FLIGHT) {
          w.queueBodies(f);
        }
      }
      w.flushQueued();
      c.commit();
      c.setAutoCommit(true);
    }
    try (SessionDb db = SessionDb.open(oneByOne, false); FlowWriter w = new FlowWriter(db)) {
      Connection c = db.writer();
      c.setAutoCommit(false);
      for (RecordedFlow f : flows) {
        FlowState state = f.state();
        w.row(f, 0, state);
        if (state != FlowState.IN_FLIGHT) {
          w.bodies(f);
        }
      }
      c.commit();
      c.setAutoCommit(true);
    }
    List<String> flowRows = rows(oneByOne, "flow");
    assertThat(flowRows).hasSize(flows.size());
    assertThat(rows(queued, "flow")).containsExactlyElementsOf(flowRows);
    assertThat(rows(oneByOne, "body")).isNotEmpty();
    assertThat(rows(queued, "body")).containsExactlyElementsOf(rows(oneByOne, "body"));
    List<String> urls = new ArrayList<>();
    try (Connection c = SessionDb.connect(queued, true); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT url FROM flow ORDER BY id")) {
      while (r.next()) {
        urls.add(r.getString(1));
      }
    }
    assertThat(urls).containsExactlyElementsOf(flows.stream()
        .map(f -> f.request() == null ? null : f.request().url()).toList());
  }

  /**
   * Flows whose detail blobs all have one length, over several statements (the writer reuses a row
   * slot's blob array from one statement to the next): every row holds its own flow's blob.
   */
  @Test
  void sameLengthBlobsOverManyStatementsKeepTheirOwnBytes() throws Exception {
    List<RecordedFlow> flows = new ArrayList<>();
    for (int i = 0; i < 4 * FlowWriter.ROWS_PER_INSERT + 3; i++) {
      RecordedFlow f = new RecordedFlow(1000 + i, Instant.ofEpochSecond(1_700_000_000L, i), CapturePolicy.defaults());
      f.clientProtocol("HTTP/1.1");
      f.timings().requestStart(1_000_000L);
      f.request(new RequestHead("GET", "https", "example.com", 443, String.format("/p%04d", i), "HTTP/1.1",
          Headers.of("Host", "example.com", "X-N", String.format("%04d", i))));
      f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("X-M", String.format("%04d", i))));
      f.timings().responseEnd(1_000_000L + 100 + i % 10);
      f.complete();
      flows.add(f);
    }
    Path queued = dir.resolve("queued.loupe");
    Path oneByOne = dir.resolve("one-by-one.loupe");
    try (SessionDb db = SessionDb.open(queued, false); FlowWriter w = new FlowWriter(db)) {
      Connection c = db.writer();
      c.setAutoCommit(false);
      for (int i = 0; i < flows.size(); i++) {
        w.queueRow(flows.get(i), flows.get(i).state());
        if (i % 40 == 39) {
          w.flushQueued(); // remainders of several sizes too
        }
      }
      w.flushQueued();
      c.commit();
      c.setAutoCommit(true);
    }
    try (SessionDb db = SessionDb.open(oneByOne, false); FlowWriter w = new FlowWriter(db)) {
      Connection c = db.writer();
      c.setAutoCommit(false);
      for (RecordedFlow f : flows) {
        w.row(f, 0, f.state());
      }
      c.commit();
      c.setAutoCommit(true);
    }
    try (Connection c = SessionDb.connect(queued, true); Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(DISTINCT length(detail)), count(DISTINCT detail) FROM flow")) {
      assertThat(r.next()).isTrue();
      assertThat(r.getInt(1)).as("few lengths: the arrays are reused").isLessThanOrEqualTo(2);
      assertThat(r.getInt(2)).as("every blob its own").isEqualTo(flows.size());
    }
    assertThat(rows(queued, "flow")).containsExactlyElementsOf(rows(oneByOne, "flow"));
  }

  @Test
  void aRollbackDropsQueuedRows() throws Exception {
    Path file = dir.resolve("rollback.loupe");
    List<RecordedFlow> flows = flows();
    try (SessionDb db = SessionDb.open(file, false); FlowWriter w = new FlowWriter(db)) {
      Connection c = db.writer();
      c.setAutoCommit(false);
      for (int i = 0; i < 5; i++) {
        w.queueRow(flows.get(i), flows.get(i).state());
        w.queueBodies(flows.get(i));
      }
      c.rollback();
      w.rolledBack();
      w.flushQueued(); // nothing left to write
      c.commit();
      c.setAutoCommit(true);
    }
    assertThat(rows(file, "flow")).isEmpty();
    assertThat(rows(file, "body")).isEmpty();
  }

  /** Every row of {@code table} in key order, each column as SQL's quote() gives it (value and type). */
  private static List<String> rows(Path file, String table) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = SessionDb.connect(file, true); Statement s = c.createStatement()) {
      List<String> columns = new ArrayList<>();
      try (ResultSet r = s.executeQuery("SELECT name FROM pragma_table_info('" + table + "')")) {
        while (r.next()) {
          columns.add("quote(" + r.getString(1) + ")");
        }
      }
      try (ResultSet r = s.executeQuery("SELECT " + String.join(" || ' | ' || ", columns) + " FROM " + table
          + " ORDER BY 1")) {
        while (r.next()) {
          out.add(r.getString(1));
        }
      }
    }
    return out;
  }

  /** Plain flows of every url form and state, with flows that are not plain in between. */
  private static List<RecordedFlow> flows() {
    CapturePolicy capture = CapturePolicy.defaults();
    CapturePolicy tiny = new CapturePolicy(4, false, capture.spillDir());
    List<RecordedFlow> flows = new ArrayList<>();
    String[][] requests = {
        {"GET", "https", "example.com", "443", "/a?b=c"},
        {"GET", "https", "example.com", "8443", "/"},
        {"POST", "http", "example.com", "80", "/form"},
        {"GET", "http", "example.com", "443", "/http-on-443"},
        {"GET", "https", "example.com", "80", "/https-on-80"},
        {"GET", "http", "2001:db8::1", "8080", "/v6"},
        {"GET", "https", "::1", "443", "/v6-default"},
        {"CONNECT", "https", "tunnel.example", "443", "tunnel.example:443"},
        {"CONNECT", "http", "2001:db8::2", "8080", "[2001:db8::2]:8080"},
        {"GET", "https", "caf\u00e9.example", "443", "/caf\u00e9"},
        {"OPTIONS", "https", "example.com", "443", "*"},
        {"GET", "https", "127.0.0.1", "34127", "/small"},
    };
    for (int i = 0; i < 3 * FlowWriter.ROWS_PER_INSERT + 7; i++) {
      long id = i + 1;
      RecordedFlow f = new RecordedFlow(id, Instant.ofEpochSecond(1_700_000_000L, i * 1_000_003L),
          i % 11 == 5 ? tiny : capture);
      f.tier(FlowTier.values()[i % FlowTier.values().length]);
      f.clientProtocol(i % 3 == 0 ? "h2" : "HTTP/1.1");
      f.serverProtocol(i % 4 == 0 ? null : "HTTP/1.1");
      if (i % 17 == 3) {
        flows.add(f); // no request yet: every request column and the url are null
        continue;
      }
      String[] r = requests[i % requests.length];
      f.timings().requestStart(1_000_000L * (i + 1));
      f.request(new RequestHead(r[0], r[1], r[2], Integer.parseInt(r[3]), r[4], "HTTP/1.1",
          i % 2 == 0 ? Headers.of("Host", r[2], "Content-Type", "text/plain", "content-type", "charset=x")
              : Headers.of("Host", r[2])));
      if (i % 5 == 1) {
        f.requestBody().append(ByteBuffer.wrap(("request body " + i).getBytes(StandardCharsets.UTF_8)));
      }
      if (i % 9 == 4) {
        flows.add(f); // in flight
        continue;
      }
      f.response(new ResponseHead(200 + i % 3, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/html")));
      if (i % 3 != 2) {
        f.responseBody().append(ByteBuffer.wrap(("response body " + i).getBytes(StandardCharsets.UTF_8)));
      }
      f.timings().responseEnd(1_000_000L * (i + 1) + 12_345);
      if (i % 13 == 7) {
        f.fail(new FlowError(FlowError.Kind.values()[0], "failed " + i)); // not plain
      } else {
        if (i % 19 == 8) {
          f.modifiedBy("a rule"); // not plain
        }
        if (i % 23 == 9) {
          f.client("curl");
        }
        f.complete();
      }
      flows.add(f);
    }
    return flows;
  }
}
