package dev.loupe.engine.internal.store;

import dev.loupe.engine.api.session.Session.Indexing;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.SessionException.Reason;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.FilterSql;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.sqlite.Function;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import org.sqlite.SQLiteOpenMode;

/**
 * One open session file: its writer connection (used by one thread at a time, the session's
 * writer), a pool of reader connections (WAL lets them read while the writer writes), and the
 * directory of side files for big bodies.
 *
 * <h3>Opening</h3>
 * Before anything is written, the file is inspected through a read-only connection: not an SQLite
 * database, another application's database, a newer schema, or a file shorter than its header says
 * are refused with a {@link SessionException} and the file is left exactly as it was. An older
 * schema is first copied to {@code FILE.v<N>.bak} (with {@code VACUUM INTO}, so a pending WAL is
 * included), then migrated in one transaction. Only then is the file opened for writing and put in
 * WAL mode. Flows a killed Loupe left "in flight" are marked failed (they never ended).
 *
 * <h3>Threads</h3>
 * {@link #writer()} belongs to whoever holds the session's write lock (the session's writer thread).
 * {@link #borrowReader()} / {@link #returnReader} hand out reader connections to any thread.
 */
public final class SessionDb implements AutoCloseable {
  /** Captured bodies up to this size live in the database; bigger ones in side files until saved. */
  static final int INLINE_MAX = 1 << 20;
  /** Folded bodies are stored in chunks of this size (an SQLite blob holds at most 1 GB). */
  static final int CHUNK = 4 << 20;

  private final Path file;
  private final boolean readOnly;
  private final Connection writer;
  /** Held while the file is open for writing: a second Loupe must not record into it too. */
  private final java.nio.channels.FileLock lock;
  private final ConcurrentLinkedQueue<Connection> idleReaders = new ConcurrentLinkedQueue<>();
  private final List<Connection> allReaders = new ArrayList<>();
  private volatile boolean closed;

  private SessionDb(Path file, boolean readOnly, Connection writer, java.nio.channels.FileLock lock) {
    this.file = file;
    this.readOnly = readOnly;
    this.writer = writer;
    this.lock = lock;
  }

  /**
   * Opens {@code file}: creates it when it does not exist (or is empty) unless {@code readOnly}.
   *
   * @throws SessionException naming the file and the problem; the file is unchanged then
   */
  public static SessionDb open(Path file, boolean readOnly) throws SessionException {
    return open(file, readOnly, Indexing.LIVE, Schema.VERSION, Schema.MIGRATIONS);
  }

  /**
   * {@link #open(Path, boolean)} for writing with the indexes kept as {@code indexing} says: {@code
   * DEFERRED} writes the file without its secondary indexes (a new file is made without them and an
   * existing one has them dropped, so that each flow written costs less; {@link #buildIndex} builds
   * them again); {@code ON_DEMAND} makes a new file with {@link Schema#ALWAYS} only and leaves an
   * existing file's indexes as they are (the others are built by {@link #buildIndex} when a query
   * first needs them).
   */
  public static SessionDb open(Path file, Indexing indexing) throws SessionException {
    return open(file, false, indexing, Schema.VERSION, Schema.MIGRATIONS);
  }

  /** {@link #open(Path, boolean)} with the schema's version and migrations given (tests). */
  static SessionDb open(Path file, boolean readOnly, int currentVersion, List<Schema.Migration> migrations)
      throws SessionException {
    return open(file, readOnly, Indexing.LIVE, currentVersion, migrations);
  }

  private static SessionDb open(Path file, boolean readOnly, Indexing indexing, int currentVersion,
      List<Schema.Migration> migrations) throws SessionException {
    Path f = file.toAbsolutePath();
    boolean exists = Files.exists(f);
    if (!exists && readOnly) {
      throw new SessionException(Reason.IO, f, f + ": no such file");
    }
    try {
      if (exists && Files.size(f) > 0) {
        inspect(f, currentVersion, migrations);
      }
    } catch (IOException e) {
      throw new SessionException(Reason.IO, f, f + ": cannot read: " + e.getMessage(), e);
    }
    java.nio.channels.FileLock lock = readOnly ? null : lock(f);
    Connection c = null;
    try {
      c = readOnly ? connect(f, true) : connect(f, false, true);
      if (!readOnly) {
        prepareForWriting(c, f, indexing);
      }
      return new SessionDb(f, readOnly, c, lock);
    } catch (SQLException e) {
      closeQuietly(c);
      unlock(lock, f);
      throw translate(f, e, "cannot open");
    }
  }

  /** Locks {@code FILE.lock} (created next to the file): one writing Loupe per session file. */
  private static java.nio.channels.FileLock lock(Path f) throws SessionException {
    Path lockFile = f.resolveSibling(f.getFileName() + ".lock");
    try {
      java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(lockFile,
          java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
      java.nio.channels.FileLock l;
      try {
        l = ch.tryLock();
      } catch (java.nio.channels.OverlappingFileLockException e) {
        l = null;
      }
      if (l == null) {
        ch.close();
        throw new SessionException(Reason.IO, f, f + " is open in another Loupe (or another window of this one);"
            + " close it there first");
      }
      return l;
    } catch (IOException e) {
      throw new SessionException(Reason.IO, f, f + ": cannot lock " + lockFile + ": " + e.getMessage(), e);
    }
  }

  private static void unlock(java.nio.channels.FileLock l, Path f) {
    if (l == null) {
      return;
    }
    try {
      l.release();
      l.channel().close();
      Files.deleteIfExists(f.resolveSibling(f.getFileName() + ".lock"));
    } catch (IOException ignored) {
      // the lock goes with the process; an empty lock file is locked again by the next open
    }
  }

  /** Checks identity, version and length through a read-only connection; migrates older schemas. */
  private static void inspect(Path f, int current, List<Schema.Migration> migrations)
      throws SessionException, IOException {
    checkLength(f);
    int version;
    try (Connection ro = connect(f, true)) {
      boolean empty = Schema.empty(ro);
      int app = Schema.intPragma(ro, "application_id");
      version = Schema.intPragma(ro, "user_version");
      if (empty && app == 0) {
        return; // an empty database: becomes a session
      }
      if (app == Schema.APPLICATION_ID && Files.size(f) <= QUICK_CHECK_MAX) {
        quickCheck(ro, f);
      }
      if (app != Schema.APPLICATION_ID) {
        throw new SessionException(Reason.NOT_A_SESSION, f, f + " is an SQLite database but not a Loupe session"
            + " (application id " + Integer.toHexString(app) + "); the file was not changed");
      }
      if (version > current) {
        throw new SessionException(Reason.NEWER_VERSION, f, f + " was written by a newer Loupe (session format "
            + version + "; this Loupe reads formats up to " + current + "). Open it with a newer Loupe;"
            + " the file was not changed");
      }
      if (version < current) {
        Path backup = f.resolveSibling(f.getFileName() + ".v" + version + ".bak");
        Files.deleteIfExists(backup);
        try (Statement s = ro.createStatement()) {
          s.execute("VACUUM INTO '" + backup.toString().replace("'", "''") + "'");
        }
      }
    } catch (SQLException e) {
      throw translate(f, e, "cannot read");
    }
    if (version < current) {
      migrate(f, version, current, migrations);
    }
  }

  /**
   * Files up to this size get SQLite's {@code quick_check} before they are opened for writing, so a
   * damaged one is refused unchanged. Bigger ones (it reads every page) are checked as they are
   * read: damage found then is reported the same way.
   */
  static final long QUICK_CHECK_MAX = 256L << 20;

  private static void quickCheck(Connection ro, Path f) throws SQLException, SessionException {
    try (Statement s = ro.createStatement(); java.sql.ResultSet r = s.executeQuery("PRAGMA quick_check(3)")) {
      List<String> problems = new ArrayList<>();
      while (r.next()) {
        problems.add(r.getString(1));
      }
      if (!problems.equals(List.of("ok"))) {
        throw new SessionException(Reason.DAMAGED, f, f + " is damaged (" + String.join("; ", problems)
            + "); the file was not changed");
      }
    }
  }

  /** The header's page size times page count must fit in the file (a truncated copy does not). */
  private static void checkLength(Path f) throws IOException, SessionException {
    long length = Files.size(f);
    byte[] header = new byte[100];
    try (InputStream in = Files.newInputStream(f)) {
      int n = in.readNBytes(header, 0, header.length);
      if (n < 16 || !new String(header, 0, 16, java.nio.charset.StandardCharsets.ISO_8859_1)
          .equals("SQLite format 3\0")) {
        throw new SessionException(Reason.NOT_A_SESSION, f, f + " is not a Loupe session (not an SQLite database);"
            + " the file was not changed");
      }
      if (n < 100) {
        throw new SessionException(Reason.DAMAGED, f, f + " is damaged: it ends inside its header (" + length
            + " bytes); the file was not changed");
      }
    }
    ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.BIG_ENDIAN);
    int pageSize = h.getShort(16) & 0xFFFF;
    long pages = h.getInt(28) & 0xFFFFFFFFL;
    boolean countValid = h.getInt(24) == h.getInt(92); // the "version-valid-for" rule of the file format
    long expected = (pageSize == 1 ? 65536L : pageSize) * pages;
    boolean wal = Files.exists(f.resolveSibling(f.getFileName() + "-wal"));
    if (countValid && !wal && expected > length) {
      throw new SessionException(Reason.DAMAGED, f, f + " is damaged: it is cut short (" + length + " of "
          + expected + " bytes); the file was not changed");
    }
  }

  private static void migrate(Path f, int from, int current, List<Schema.Migration> migrations)
      throws SessionException {
    try (Connection c = connect(f, false)) {
      c.setAutoCommit(false);
      int version = from;
      for (Schema.Migration m : migrations) {
        if (m.from() == version) {
          m.apply(c);
          version++;
        }
      }
      if (version != current) {
        c.rollback();
        throw new SessionException(Reason.IO, f, f + ": session format " + from
            + " cannot be brought up to " + current + "; the file was not changed");
      }
      try (Statement s = c.createStatement()) {
        s.execute("PRAGMA user_version = " + current);
      }
      c.commit();
    } catch (SQLException e) {
      throw translate(f, e, "cannot migrate");
    }
  }

  private static void prepareForWriting(Connection c, Path f, Indexing indexing) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA journal_mode = WAL");
      s.execute("PRAGMA synchronous = NORMAL"); // WAL + NORMAL: a crash of Loupe loses nothing committed
      // the writer's pages: each flow updates the flow table, eight indexes and the body table; with
      // SQLite's default 2 MiB their pages left the cache between batches and were read back
      s.execute("PRAGMA cache_size = -16384");
    }
    if (Schema.empty(c)) {
      c.setAutoCommit(false);
      Schema.create(c, switch (indexing) {
        case LIVE -> Schema.INDEXES;
        case ON_DEMAND -> Schema.ALWAYS;
        case DEFERRED -> List.<String>of();
      });
      try (PreparedStatement p = c.prepareStatement("INSERT INTO session_info(key, value) VALUES (?, ?)")) {
        p.setString(1, "created");
        p.setString(2, Instant.now().toString());
        p.addBatch();
        p.setString(1, "creator");
        p.setString(2, "Loupe " + dev.loupe.engine.flow.har.HarWriter.creatorVersion());
        p.addBatch();
        p.executeBatch();
      }
      c.commit();
      c.setAutoCommit(true);
    } else {
      try (PreparedStatement p = c.prepareStatement(
          "UPDATE flow SET state = 2, error_kind = 'INTERNAL', error = ? WHERE state = 0")) {
        p.setString(1, FlowBuilder.INCOMPLETE);
        p.executeUpdate();
      }
      if (indexing == Indexing.DEFERRED) {
        Schema.dropIndexes(c);
      }
    }
  }

  static Connection connect(Path f, boolean readOnly) throws SQLException {
    return connect(f, readOnly, false);
  }

  /**
   * A connection to {@code f}. {@code noMutex}: without SQLite's own lock around every call (a
   * pthread mutex taken and released per bind, step and reset: several percent of the writer's CPU).
   * sqlite-jdbc already serialises every native call on a connection (its {@code NativeDB} methods
   * are synchronized), which is all SQLite's multi-thread mode asks for.
   */
  static Connection connect(Path f, boolean readOnly, boolean noMutex) throws SQLException {
    SQLiteConfig config = new SQLiteConfig();
    if (noMutex) {
      config.setOpenMode(SQLiteOpenMode.NOMUTEX);
    }
    config.setBusyTimeout(10_000);
    // no "SELECT last_insert_rowid()" prepared and run after every insert: nothing here asks for keys
    config.setGetGeneratedKeys(false);
    if (readOnly) {
      config.setReadOnly(true);
      config.setOpenMode(SQLiteOpenMode.READONLY);
    }
    return DriverManager.getConnection("jdbc:sqlite:" + f, config.toProperties());
  }

  /** The session file. */
  public Path file() {
    return file;
  }

  public boolean readOnly() {
    return readOnly;
  }

  /**
   * The statements of the secondary indexes the file lacks ({@link Schema#INDEXES}), read on a
   * reader connection (any thread).
   */
  public List<String> missingIndexes() throws SQLException {
    Connection c = borrowReader();
    try {
      return Schema.missingIndexes(c);
    } finally {
      returnReader(c);
    }
  }

  /**
   * The statements of the secondary indexes ({@link Schema#INDEXES}) a query of {@code filter} sorted
   * by {@code key} could use, whether or not the file has them.
   */
  public static List<String> indexesFor(dev.loupe.engine.filter.Filter filter,
      dev.loupe.engine.api.session.model.SortKey key) {
    return Schema.indexesFor(FilterSql.of(filter).where(), key.column());
  }

  /** The statements of every secondary index ({@link Schema#INDEXES}). */
  public static List<String> allIndexes() {
    return Schema.INDEXES;
  }

  /** The statements of the indexes an {@code ON_DEMAND} recording keeps from the start ({@link Schema#ALWAYS}). */
  public static List<String> alwaysIndexes() {
    return Schema.ALWAYS;
  }

  /**
   * Builds one secondary index ({@code sql}, one of {@link #missingIndexes}) on the writer
   * connection, in a transaction of its own: a Loupe killed meanwhile leaves the file without it,
   * as before. Writer thread only.
   */
  void buildIndex(String sql) throws SQLException {
    try (Statement s = writer.createStatement()) {
      s.execute(sql);
    }
  }

  /** Where bodies too big for the database wait until the session is saved. */
  Path sideDirectory() {
    return file.resolveSibling(file.getFileName() + "-bodies");
  }

  /** The writer connection; only the session's writer thread uses it. */
  Connection writer() {
    return writer;
  }

  /** A reader connection for this thread's use; give it back with {@link #returnReader}. */
  Connection borrowReader() throws SQLException {
    if (closed) {
      throw new SQLException("the session " + file + " is closed");
    }
    Connection c = idleReaders.poll();
    if (c != null) {
      return c;
    }
    c = connect(file, readOnly);
    try (Statement s = c.createStatement()) {
      if (!readOnly) {
        s.execute("PRAGMA query_only = 1");
      }
    }
    registerFunctions(c);
    synchronized (allReaders) {
      allReaders.add(c);
    }
    return c;
  }

  void returnReader(Connection c) {
    if (closed) {
      closeQuietly(c);
    } else {
      idleReaders.add(c);
    }
  }

  /** Registers the filter functions ({@link FilterSql#FUNCTIONS}) and the diff key on {@code c}. */
  static void registerFunctions(Connection c) throws SQLException {
    for (String name : FilterSql.FUNCTIONS) {
      Function.create(c, name, new Function() {
        @Override
        protected void xFunc() throws SQLException {
          String[] args = new String[args()];
          for (int i = 0; i < args.length; i++) {
            args[i] = value_text(i);
          }
          result(FilterSql.call(name, args));
        }
      }, Function.FLAG_DETERMINISTIC);
    }
    // the key session diffs sort by: the same Java function the merge compares with
    Function.create(c, "loupe_diff_key", new Function() {
      @Override
      protected void xFunc() throws SQLException {
        result(DiffOptions.key(value_text(0), value_text(1), value_text(2)));
      }
    }, Function.FLAG_DETERMINISTIC);
  }

  @Override
  public void close() {
    closed = true;
    synchronized (allReaders) {
      allReaders.forEach(SessionDb::closeQuietly);
      allReaders.clear();
    }
    idleReaders.clear();
    if (!readOnly) {
      try (Statement s = writer.createStatement()) {
        // at rest a session is one file in rollback-journal mode: a reader opening it later (even
        // read-only, even a newer Loupe refusing it) then leaves no -wal and -shm files behind
        s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        s.execute("PRAGMA journal_mode = DELETE");
      } catch (SQLException ignored) {
        // a reader still open elsewhere: the WAL stays and is replayed on the next open
      }
    }
    closeQuietly(writer);
    unlock(lock, file);
  }

  static void closeQuietly(AutoCloseable c) {
    if (c != null) {
      try {
        c.close();
      } catch (Exception ignored) {
        // closing: nothing more to do
      }
    }
  }

  /** A user-facing {@link SessionException} for {@code e}, naming {@code f}. */
  public static SessionException translate(Path f, SQLException e, String doing) {
    SQLiteErrorCode code = e instanceof SQLiteException s ? s.getResultCode() : null;
    int primary = code == null ? e.getErrorCode() : code.code & 0xFF;
    String detail = e.getMessage() == null ? e.toString() : e.getMessage();
    return switch (primary) {
      case 26 -> new SessionException(Reason.NOT_A_SESSION, f, f + " is not a Loupe session (not an SQLite"
          + " database); the file was not changed", e);
      case 11 -> new SessionException(Reason.DAMAGED, f, f + " is damaged (" + detail + ")", e);
      case 13 -> new SessionException(Reason.DISK_FULL, f, "the disk holding " + f + " is full", e);
      default -> new SessionException(Reason.IO, f, f + ": " + doing + ": " + detail, e);
    };
  }

  /** Whether {@code e} (or its cause) is a full disk. */
  static boolean diskFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLiteException s && (s.getResultCode().code & 0xFF) == 13) {
        return true;
      }
      String m = t.getMessage();
      if (m != null && (m.contains("No space left") || m.contains("Disk quota exceeded") || m.contains("SQLITE_FULL"))) {
        return true;
      }
    }
    return false;
  }
}
