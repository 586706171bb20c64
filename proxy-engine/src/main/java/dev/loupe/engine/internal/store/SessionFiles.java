package dev.loupe.engine.internal.store;

import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The session's writer-thread jobs besides recording: flushing and resuming the recorder, importing
 * HAR, folding side files into the database, saving a portable copy, clearing. Every method runs on
 * the session's writer thread (the only user of the writer connection).
 */
public final class SessionFiles {
  private final SessionDb db;
  private final FlowReader reader;
  private FlowWriter writer;

  public SessionFiles(SessionDb db, FlowReader reader) {
    this.db = db;
    this.reader = reader;
  }

  /** The writer's statements (made on first use). */
  public FlowWriter writer() throws SQLException {
    if (writer == null) {
      writer = new FlowWriter(db);
    }
    return writer;
  }

  public boolean flush(Recorder r) {
    return r.flush();
  }

  public boolean resume(Recorder r) {
    return r.resume();
  }

  /** Imports {@code har}; ids come from {@code live} when recording one (so they never collide). */
  public ImportReport importHar(Path har, FlowStore live) throws IOException, SQLException {
    return new HarImporter(db, writer(), reader).importFile(har, live);
  }

  /** Builds one secondary index the file lacks ({@link SessionDb#missingIndexes}). */
  public void buildIndex(String sql) throws SQLException {
    db.buildIndex(sql);
  }

  /** Builds every secondary index the file lacks, each in its own transaction. */
  public void buildIndexes() throws SQLException {
    for (String sql : db.missingIndexes()) {
      db.buildIndex(sql);
    }
  }

  /** Deletes every flow and side file. */
  public void clear(Recorder r) throws SQLException, IOException {
    if (r != null) {
      r.cleared();
    }
    Connection c = db.writer();
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      for (String table : new String[] {"flow", "body", "body_chunk", "message", "certificate"}) {
        s.execute("DELETE FROM " + table);
      }
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
    if (writer != null) {
      writer.rolledBack(); // the certificates it knew are gone
    }
    deleteSideDirectory();
  }

  /** Moves every side-file body into the database (in chunks) and deletes the side files. */
  public void fold() throws SQLException, IOException {
    fold(db.writer(), db.sideDirectory());
    deleteSideDirectory();
  }

  /** Folds the side files named in {@code c}'s body table (read from {@code sideDir}) into it. */
  private static void fold(Connection c, Path sideDir) throws SQLException, IOException {
    List<Object[]> pending = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT flow, part, file FROM body WHERE file IS NOT NULL")) {
      while (r.next()) {
        pending.add(new Object[] {r.getLong(1), r.getInt(2), r.getString(3)});
      }
    }
    if (pending.isEmpty()) {
      return;
    }
    try (PreparedStatement chunk = c.prepareStatement(
            "INSERT OR REPLACE INTO body_chunk(flow, part, seq, data) VALUES (?, ?, ?, ?)");
        PreparedStatement done = c.prepareStatement("UPDATE body SET file = NULL WHERE flow = ? AND part = ?")) {
      for (Object[] b : pending) {
        c.setAutoCommit(false);
        try (InputStream in = Files.newInputStream(sideDir.resolve((String) b[2]))) {
          byte[] buf;
          int seq = 0;
          while ((buf = in.readNBytes(SessionDb.CHUNK)).length > 0) {
            chunk.setLong(1, (Long) b[0]);
            chunk.setInt(2, (Integer) b[1]);
            chunk.setInt(3, seq++);
            chunk.setBytes(4, buf);
            chunk.executeUpdate();
          }
          done.setLong(1, (Long) b[0]);
          done.setInt(2, (Integer) b[1]);
          done.executeUpdate();
          c.commit();
        } catch (SQLException | IOException e) {
          c.rollback();
          throw e;
        } finally {
          c.setAutoCommit(true);
        }
      }
    }
  }

  private void deleteSideDirectory() throws IOException {
    Path dir = db.sideDirectory();
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        if (!referenced(f.getFileName().toString())) {
          Files.deleteIfExists(f);
        }
      }
    } catch (SQLException e) {
      throw new IOException(e.getMessage(), e);
    }
    try (DirectoryStream<Path> left = Files.newDirectoryStream(dir)) {
      if (!left.iterator().hasNext()) {
        Files.deleteIfExists(dir);
      }
    }
  }

  private boolean referenced(String name) throws SQLException {
    try (PreparedStatement p = db.writer().prepareStatement("SELECT 1 FROM body WHERE file = ?")) {
      p.setString(1, name);
      try (ResultSet r = p.executeQuery()) {
        return r.next();
      }
    }
  }

  /**
   * Writes a compact, self-contained copy to {@code target}: {@code VACUUM INTO} a temporary file in
   * the same directory, fold the side files into it, then move it over {@code target} atomically.
   */
  public void saveAs(Path target) throws SQLException, IOException {
    Path t = target.toAbsolutePath();
    if (t.equals(db.file())) {
      fold();
      return;
    }
    Path tmp = t.resolveSibling("." + t.getFileName() + ".saving");
    Files.deleteIfExists(tmp);
    boolean moved = false;
    try {
      // on a connection of its own: the writer's prepared statements count as "in progress" to VACUUM;
      // it sees everything committed (WAL), which after a flush is every flow
      try (Connection ro = SessionDb.connect(db.file(), true); Statement s = ro.createStatement()) {
        s.execute("VACUUM INTO '" + tmp.toString().replace("'", "''") + "'");
      }
      try (Connection c = SessionDb.connect(tmp, false)) {
        fold(c, db.sideDirectory());
        try (Statement s = c.createStatement()) {
          for (String sql : Schema.INDEXES) { // the copy of a recording that defers them: complete
            s.execute(sql);
          }
          s.execute("PRAGMA journal_mode = DELETE");
        }
      }
      try {
        Files.move(tmp, t, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, t, StandardCopyOption.REPLACE_EXISTING);
      }
      moved = true;
    } finally {
      if (!moved) {
        Files.deleteIfExists(tmp);
      }
    }
  }
}
