package dev.loupe.engine.internal.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The tables of a session file, its identity and its version.
 *
 * <h3>Identity and version</h3>
 * A session file is an SQLite database whose {@code application_id} is {@link #APPLICATION_ID}
 * ("Loup") and whose {@code user_version} is the schema version. {@link #VERSION} is what this Loupe
 * writes. A file with a higher version is refused, unchanged; a lower one is brought up to date by
 * {@link #MIGRATIONS} (after a copy of the file is kept, see {@code SessionDb}).
 *
 * <h3>Tables (version 1)</h3>
 * <ul>
 *   <li>{@code session_info(key, value)}: who wrote the file and when.</li>
 *   <li>{@code flow}: one row per flow. Columns for what the table view shows and filters use (see
 *       {@code dev.loupe.engine.filter.FilterSql}), everything else in {@code detail} (see
 *       {@link FlowCodec}). {@code started} is epoch nanoseconds; {@code state} is 0 in flight, 1
 *       complete, 2 failed; {@code source} 0 captured, 1 imported from a file.</li>
 *   <li>{@code body(flow, part, size, truncated, captured, data, file)}: part 0 request, 1 response,
 *       2 the original request, 3 the original response. The kept bytes are in {@code data}, or in
 *       {@code file} (a side file next to the database, while the session is being recorded), or
 *       in {@code body_chunk} rows (both null: folded into the file on save). Empty bodies have no
 *       row.</li>
 *   <li>{@code message(flow, seq, direction, opcode, length, time, payload)}: WebSocket messages;
 *       {@code time} in epoch nanoseconds.</li>
 *   <li>{@code certificate(sha256, der)}: each certificate once, referenced from the detail blobs.</li>
 * </ul>
 * The {@code flow} table's secondary indexes ({@link #INDEXES}) may be missing from a file of this
 * version (a recording that deferred them, killed before it closed): they are then built, not
 * migrated.
 */
final class Schema {
  /** "Loup", big-endian: tells a Loupe session from any other SQLite file. */
  static final int APPLICATION_ID = 0x4C6F7570;
  static final int VERSION = 1;

  /** One step up: from version {@code from} to {@code from + 1}, inside the migration's transaction. */
  interface Migration {
    int from();

    void apply(Connection c) throws SQLException;
  }

  /** The steps from older versions, in order (none yet: version 1 is the first). */
  static final List<Migration> MIGRATIONS = List.of();

  private static final String[] CREATE = {
      "CREATE TABLE session_info(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
      """
      CREATE TABLE flow(
        id INTEGER PRIMARY KEY,
        started INTEGER NOT NULL,
        state INTEGER NOT NULL,
        tier TEXT NOT NULL,
        source INTEGER NOT NULL DEFAULT 0,
        method TEXT, scheme TEXT, host TEXT, port INTEGER, target TEXT, url TEXT,
        status INTEGER,
        req_type TEXT, res_type TEXT,
        req_size INTEGER, res_size INTEGER,
        duration INTEGER, total_ms REAL,
        client_proto TEXT, server_proto TEXT,
        error_kind TEXT, error TEXT,
        websocket INTEGER NOT NULL DEFAULT 0,
        tunnel_up INTEGER NOT NULL DEFAULT 0, tunnel_down INTEGER NOT NULL DEFAULT 0,
        modified TEXT, replay_of INTEGER, client TEXT,
        detail BLOB NOT NULL)""",
      """
      CREATE TABLE body(
        flow INTEGER NOT NULL, part INTEGER NOT NULL,
        size INTEGER NOT NULL, truncated INTEGER NOT NULL, captured INTEGER NOT NULL,
        data BLOB, file TEXT,
        PRIMARY KEY (flow, part))""",
      "CREATE TABLE body_chunk(flow INTEGER NOT NULL, part INTEGER NOT NULL, seq INTEGER NOT NULL,"
          + " data BLOB NOT NULL, PRIMARY KEY (flow, part, seq))",
      "CREATE TABLE message(flow INTEGER NOT NULL, seq INTEGER NOT NULL, direction INTEGER NOT NULL,"
          + " opcode INTEGER NOT NULL, length INTEGER NOT NULL, time INTEGER NOT NULL, payload BLOB NOT NULL,"
          + " PRIMARY KEY (flow, seq))",
      "CREATE TABLE certificate(sha256 BLOB PRIMARY KEY, der BLOB NOT NULL)",
  };

  /**
   * The secondary indexes: what filters and column sorts look up (id order needs none, it is the
   * rowid). Idempotent. A session recorded with deferred indexes (headless {@code --session}) has
   * none while it is written; they are built when it closes, or when a file left without them (a
   * killed recording) is next opened for writing. A file without them is still a whole, valid
   * session of this version: its filters are answered by scans instead.
   */
  static final List<String> INDEXES = List.of(
      "CREATE INDEX IF NOT EXISTS flow_host ON flow(host)",
      "CREATE INDEX IF NOT EXISTS flow_method ON flow(method)",
      "CREATE INDEX IF NOT EXISTS flow_status ON flow(status)",
      "CREATE INDEX IF NOT EXISTS flow_res_type ON flow(res_type)",
      "CREATE INDEX IF NOT EXISTS flow_res_size ON flow(res_size)",
      "CREATE INDEX IF NOT EXISTS flow_duration ON flow(duration)",
      "CREATE INDEX IF NOT EXISTS flow_started ON flow(started)",
      "CREATE INDEX IF NOT EXISTS flow_client_proto ON flow(client_proto)");

  /**
   * The indexes a recording that builds the others on demand (the window) keeps from the start. On
   * {@code started}: new rows append to it ({@code started} grows with the id), and it is what {@code
   * count(*)} reads (SQLite counts on the smallest index; without one it reads the whole table:
   * seconds for 10<sup>6</sup> flows) and the time sort looks up. On {@code status}: a handful of
   * values, each new row appended at the end of its value's run (about 1 µs a flow in
   * {@code bench/session-writer.sh}), and the column of the most common head filter ({@code
   * status>=400}), whose first page over 10<sup>6</sup> flows took 1.2 s by a scan on a loaded box
   * against 0.3 s with it (docs/PERFORMANCE.md, "The window's writer and GC").
   */
  static final List<String> ALWAYS =
      INDEXES.stream().filter(sql -> List.of("started", "status").contains(indexedColumn(sql))).toList();

  /** Numeric comparisons of a filter's SQL ({@code FilterSql}) an index can answer: {@code column op ?}. */
  private static final java.util.regex.Pattern COMPARED =
      java.util.regex.Pattern.compile("\\b(status|res_size|duration) (?:=|!=|<|<=|>|>=) \\?");

  private Schema() {}

  /**
   * The statements of {@link #INDEXES} a query with the condition {@code where} (a {@code FilterSql}
   * condition) ordered by {@code sortColumn} (a {@code SortKey} column) could use. Only what SQLite
   * can look up: numeric comparisons (status, size, duration) and a sort on an indexed column. The
   * text atoms (host, method, types, protocols) compare without case, by {@code LIKE} or by a
   * function, which no index on their column serves; their indexes serve the column sorts only.
   */
  static List<String> indexesFor(String where, String sortColumn) {
    java.util.Set<String> columns = new java.util.LinkedHashSet<>();
    java.util.regex.Matcher m = COMPARED.matcher(where);
    while (m.find()) {
      columns.add(m.group(1));
    }
    columns.add(sortColumn);
    return INDEXES.stream().filter(sql -> columns.contains(indexedColumn(sql))).toList();
  }

  /** The column the index {@code sql} (one of {@link #INDEXES}) is on. */
  static String indexedColumn(String sql) {
    return sql.substring(sql.indexOf('(') + 1, sql.indexOf(')'));
  }

  /**
   * Creates the tables in an empty database and stamps it; in the caller's transaction. Of the
   * secondary indexes ({@link #INDEXES}) only {@code indexes} are made; the others are left to be built
   * later.
   */
  static void create(Connection c, List<String> indexes) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : CREATE) {
        s.execute(sql);
      }
      for (String sql : indexes) {
        s.execute(sql);
      }
      s.execute("PRAGMA application_id = " + APPLICATION_ID);
      s.execute("PRAGMA user_version = " + VERSION);
    }
  }

  /** The name of the index {@code sql} (one of {@link #INDEXES}) creates. */
  static String indexName(String sql) {
    String rest = sql.substring("CREATE INDEX IF NOT EXISTS ".length());
    return rest.substring(0, rest.indexOf(' '));
  }

  /** The statements of the {@link #INDEXES} {@code c}'s database lacks, in order. */
  static List<String> missingIndexes(Connection c) throws SQLException {
    java.util.Set<String> present = new java.util.HashSet<>();
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'flow'")) {
      while (r.next()) {
        present.add(r.getString(1));
      }
    }
    return INDEXES.stream().filter(sql -> !present.contains(indexName(sql))).toList();
  }

  /** Drops the secondary indexes (a recording that defers them); each in its own statement. */
  static void dropIndexes(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : INDEXES) {
        s.execute("DROP INDEX IF EXISTS " + indexName(sql));
      }
    }
  }

  static int intPragma(Connection c, String name) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("PRAGMA " + name)) {
      return r.next() ? r.getInt(1) : 0;
    }
  }

  /** Whether the database has no tables at all (a new file, or a zero-length one). */
  static boolean empty(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT count(*) FROM sqlite_master")) {
      return r.next() && r.getInt(1) == 0;
    }
  }
}
