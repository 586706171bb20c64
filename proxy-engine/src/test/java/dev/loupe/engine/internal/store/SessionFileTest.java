package dev.loupe.engine.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.testing.TestData;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files a session cannot or must not open as they are: newer, foreign, truncated, damaged, older.
 * Each refusal names the file and the problem and leaves the directory byte for byte as it was.
 */
@Timeout(120)
class SessionFileTest {
  @TempDir Path dir;

  /** A closed session file holding {@code n} flows with 2 KiB bodies. */
  private Path session(String name, int n) throws Exception {
    Path file = dir.resolve(name);
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir)) {
      s.record(store, p -> { });
      for (int i = 0; i < n; i++) {
        RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, false, dir));
        f.timings().requestStart(1);
        f.request(new RequestHead("GET", "http", "example.com", 80, "/" + i, "HTTP/1.1", Headers.EMPTY));
        store.add(f);
        f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.EMPTY));
        f.responseBody().append(ByteBuffer.wrap(TestData.bytes(2048 + i)));
        f.timings().responseEnd(2);
        f.complete();
        store.completed(f);
      }
    }
    return file;
  }

  /** Every file in the directory with its SHA-256. */
  private List<String> snapshot() throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().map(p -> {
        try {
          return p.getFileName() + " " + HexFormat.of().formatHex(
              MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      }).toList();
    }
  }

  private static void sql(Path file, String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  @Test
  void aFileFromANewerLoupeIsRefusedUnchanged() throws Exception {
    Path file = session("new.loupe", 3);
    sql(file, "PRAGMA user_version = 99");
    List<String> before = snapshot();
    assertThatThrownBy(() -> Session.open(file, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("newer Loupe")
        .hasMessageContaining("format 99").hasMessageContaining("not changed")
        .satisfies(e -> assertThat(((SessionException) e).reason()).isEqualTo(SessionException.Reason.NEWER_VERSION));
    assertThatThrownBy(() -> Session.openReadOnly(file, dir)).isInstanceOf(SessionException.class);
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void filesThatAreNotSessionsAreRefusedUnchanged() throws Exception {
    Path text = dir.resolve("notes.loupe");
    Files.writeString(text, "this is not a database, but it is long enough to have a header of one hundred bytes.....");
    Path other = dir.resolve("other.db");
    sql(other, "CREATE TABLE t(x)", "INSERT INTO t VALUES (1)");
    Path har = dir.resolve("x.har");
    Files.writeString(har, "{\"log\": {\"entries\": []}}");
    List<String> before = snapshot();
    for (Path p : List.of(text, other, har)) {
      assertThatThrownBy(() -> Session.open(p, dir)).as(p.toString()).isInstanceOf(SessionException.class)
          .hasMessageContaining("not a Loupe session")
          .satisfies(e -> assertThat(((SessionException) e).reason()).isEqualTo(SessionException.Reason.NOT_A_SESSION));
    }
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void aTruncatedFileIsRefusedUnchanged() throws Exception {
    Path file = session("cut.loupe", 400);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(raf.length() / 2);
    }
    List<String> before = snapshot();
    assertThatThrownBy(() -> Session.open(file, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining("damaged").hasMessageContaining("cut short").hasMessageContaining("not changed")
        .satisfies(e -> assertThat(((SessionException) e).reason()).isEqualTo(SessionException.Reason.DAMAGED));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void aDamagedFileIsRefusedUnchanged() throws Exception {
    Path file = session("bad.loupe", 400);
    long length = Files.size(file);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      for (long page = 2; page * 4096 < length; page += 3) { // scribble over every third page after the root
        raf.seek(page * 4096);
        raf.write(TestData.bytes(200));
      }
    }
    List<String> before = snapshot();
    assertThatThrownBy(() -> Session.open(file, dir)).isInstanceOf(SessionException.class)
        .hasMessageContaining(file.toString()).hasMessageContaining("damaged")
        .satisfies(e -> assertThat(((SessionException) e).reason()).isEqualTo(SessionException.Reason.DAMAGED));
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void anOlderFormatIsMigratedAfterACopyIsKept() throws Exception {
    Path file = dir.resolve("old.loupe");
    sql(file, "PRAGMA application_id = " + Schema.APPLICATION_ID, "PRAGMA user_version = 0",
        "CREATE TABLE legacy(url TEXT)", "INSERT INTO legacy VALUES ('http://old.example/')");
    Schema.Migration fromZero = new Schema.Migration() {
      @Override
      public int from() {
        return 0;
      }

      @Override
      public void apply(Connection c) throws SQLException {
        Schema.create(c, Schema.INDEXES);
        try (Statement s = c.createStatement()) {
          s.execute("INSERT INTO flow(id, started, state, tier, method, scheme, host, port, target, url, detail)"
              + " SELECT rowid, 0, 1, 'RELAY', 'GET', 'http', 'old.example', 80, '/', url, x'00' FROM legacy");
          s.execute("DROP TABLE legacy");
        }
      }
    };
    try (SessionDb db = SessionDb.open(file, false, Schema.VERSION, List.of(fromZero))) {
      assertThat(Schema.intPragma(db.writer(), "user_version")).isEqualTo(Schema.VERSION);
      try (Statement s = db.writer().createStatement(); ResultSet r = s.executeQuery("SELECT url FROM flow")) {
        assertThat(r.next()).isTrue();
        assertThat(r.getString(1)).isEqualTo("http://old.example/");
      }
    }
    Path backup = dir.resolve("old.loupe.v0.bak");
    assertThat(backup).exists();
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + backup);
        Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT url FROM legacy")) {
      assertThat(r.next()).as("the copy is the file as it was").isTrue();
    }
  }

  @Test
  void aMigrationThatFailsLeavesTheFileAsItWas() throws Exception {
    Path file = dir.resolve("old.loupe");
    sql(file, "PRAGMA application_id = " + Schema.APPLICATION_ID, "PRAGMA user_version = 0", "CREATE TABLE legacy(x)");
    byte[] before = Files.readAllBytes(file);
    Schema.Migration broken = new Schema.Migration() {
      @Override
      public int from() {
        return 0;
      }

      @Override
      public void apply(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
          s.execute("DROP TABLE legacy");
          s.execute("SELECT * FROM no_such_table");
        }
      }
    };
    assertThatThrownBy(() -> SessionDb.open(file, false, Schema.VERSION, List.of(broken)))
        .isInstanceOf(SessionException.class).hasMessageContaining("no_such_table");
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
  }

  @Test
  void anEmptyFileBecomesASession() throws IOException, SessionException {
    Path file = Files.createFile(dir.resolve("empty.loupe"));
    try (Session s = Session.open(file, dir)) {
      assertThat(s.count()).isZero();
    }
  }
}
