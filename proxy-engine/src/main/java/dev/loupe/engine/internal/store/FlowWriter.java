package dev.loupe.engine.internal.store;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.Timings;
import dev.loupe.engine.flow.WebSocketMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes flows into a session file on its writer connection: the {@code flow} row, bodies (inline,
 * or as side files when big), new WebSocket messages, certificates once each. The caller owns the
 * transaction; nothing here commits.
 *
 * <h3>Queued rows (the recorder's path)</h3>
 * {@link #queueRow} and {@link #queueBodies} write the rows of plain flows and of bodies kept whole
 * (nearly every recorded flow) {@link #ROWS_PER_INSERT} to an {@code INSERT} statement instead of one
 * each: each statement execution costs several JNI calls (each taking sqlite-jdbc's two locks) and a
 * run of SQLite's statement machinery. Rows wait in memory until the queue is full or
 * {@link #flushQueued} (which the caller must call before it commits); a queued flow's row is bound
 * when its statement runs, with the state the caller read when it queued it. {@link #rolledBack}
 * drops them. Other rows are written at once, after what is queued.
 *
 * <p>Confined to the session's writer thread.
 */
final class FlowWriter implements AutoCloseable {
  static final String COLUMNS = "id, started, state, tier, source, method, scheme, host, port, target, url, status,"
      + " req_type, res_type, req_size, res_size, duration, total_ms, client_proto, server_proto, error_kind, error,"
      + " websocket, tunnel_up, tunnel_down, modified, replay_of, client, detail";

  private final SessionDb db;
  private final PreparedStatement flowRow;
  private final PreparedStatement bodyRow;
  /** A body kept whole in the database ({@code captured = size}, not cut, no side file): 4 parameters, not 7. */
  private final PreparedStatement wholeBodyRow;
  private final PreparedStatement messageRow;
  /** Rows of flows, and of bodies, per {@code INSERT} statement on the queued path. */
  static final int ROWS_PER_INSERT = 32;
  /**
   * The plain-row statements by row count ({@code [k]} holds {@code 2^k} rows; made on first use).
   * The {@code url} column is computed by SQLite from the request's columns, exactly as
   * {@link RequestHead#url()} makes it, and {@code tier} from its ordinal: no Java string built, and
   * neither turned into a UTF-8 array by the driver, per flow.
   */
  private final PreparedStatement[] plainRows = new PreparedStatement[Integer.numberOfTrailingZeros(ROWS_PER_INSERT) + 1];
  /** The whole-body statements by row count, as {@link #plainRows}. */
  private final PreparedStatement[] wholeBodyRows = new PreparedStatement[plainRows.length];
  private final Flow[] queuedFlows = new Flow[ROWS_PER_INSERT];
  private final FlowState[] queuedStates = new FlowState[ROWS_PER_INSERT];
  private int queuedRows;
  private final long[] queuedBodyFlows = new long[ROWS_PER_INSERT];
  private final int[] queuedBodyParts = new int[ROWS_PER_INSERT];
  private final Body[] queuedBodies = new Body[ROWS_PER_INSERT];
  private int queuedBodyRows;
  private final PreparedStatement certificateRow;
  private final BlobWriter blob = new BlobWriter();
  /**
   * Certificates known to be in the table, with their SHA-256 (most recent first out when full).
   * Keyed by the certificate (equal DER, equal key: the hash code is cached per certificate), so a
   * chain seen again on a new connection is neither hashed nor written again.
   */
  private final Map<X509Certificate, byte[]> knownCertificates = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<X509Certificate, byte[]> eldest) {
      return size() > 1024;
    }
  };
  private final FlowCodec.CertificateSink certificates = this::storeCertificate;
  /** Connections' TLS facts and addresses encoded once per connection, not per flow. */
  private final EncodedParts parts = new EncodedParts();

  FlowWriter(SessionDb db) throws SQLException {
    this.db = db;
    Connection c = db.writer();
    flowRow = c.prepareStatement("INSERT OR REPLACE INTO flow(" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    wholeBodyRow = c.prepareStatement("INSERT OR REPLACE INTO body(flow, part, size, truncated, captured, data, file)"
        + " VALUES (?1, ?2, ?3, 0, ?3, ?4, NULL)");
    bodyRow = c.prepareStatement("INSERT OR REPLACE INTO body(flow, part, size, truncated, captured, data, file)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?)");
    messageRow = c.prepareStatement("INSERT OR REPLACE INTO message(flow, seq, direction, opcode, length, time,"
        + " payload) VALUES (?, ?, ?, ?, ?, ?, ?)");
    certificateRow = c.prepareStatement("INSERT OR IGNORE INTO certificate(sha256, der) VALUES (?, ?)");
  }

  /**
   * Writes the flow's row as it is now ({@code source} 1 for an imported flow). Bodies are written
   * by {@link #bodies} once the flow has ended; messages by {@link #messages}.
   */
  void row(Flow f, int source) throws SQLException {
    row(f, source, f.state());
  }

  /**
   * {@link #row(Flow, int)} with the state as the caller read it (a flow that ends while its row is
   * written stays "in flight" in this row, until its bodies are written with the next).
   */
  void row(Flow f, int source, FlowState state) throws SQLException {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    Timings t = f.timings();
    FlowError error = f.error();
    List<String> modified = f.modifiedBy();
    long up = f.tunnelBytesClientToServer();
    long down = f.tunnelBytesServerToClient();
    PreparedStatement p = flowRow;
    int i = 1;
    p.setLong(i++, f.id());
    p.setLong(i++, epochNanos(f.startedAt()));
    p.setInt(i++, state.ordinal());
    p.setString(i++, f.tier().name());
    p.setInt(i++, source);
    setText(p, i++, req == null ? null : req.method());
    setText(p, i++, req == null ? null : req.scheme());
    setText(p, i++, req == null ? null : req.host());
    setLong(p, i++, req == null ? null : (long) req.port());
    setText(p, i++, req == null ? null : req.target());
    setText(p, i++, req == null ? null : req.url());
    setLong(p, i++, res == null ? null : (long) res.status());
    setText(p, i++, req == null ? null : contentTypes(req.headers()));
    setText(p, i++, res == null ? null : contentTypes(res.headers()));
    setLong(p, i++, req == null ? null : f.requestBody().size());
    setLong(p, i++, res == null ? null : f.responseBody().size());
    long start = t.requestStartNanos();
    long end = t.responseEndNanos();
    setLong(p, i++, start == 0 || end == 0 || end - start < 0 ? null : end - start);
    if (state == FlowState.IN_FLIGHT) {
      p.setNull(i++, Types.REAL);
    } else {
      p.setDouble(i++, t.totalMs());
    }
    setText(p, i++, f.clientProtocol());
    setText(p, i++, f.serverProtocol());
    setText(p, i++, error == null ? null : error.kind().name());
    setText(p, i++, error == null ? null : error.message());
    p.setInt(i++, f.isWebSocket() ? 1 : 0);
    p.setLong(i++, up);
    p.setLong(i++, down);
    setText(p, i++, modified.isEmpty() ? null : String.join("\n", modified));
    setLong(p, i++, f.replayOf() < 0 ? null : f.replayOf());
    setText(p, i++, f.client());
    p.setBytes(i, FlowCodec.encode(f, blob, certificates, parts));
    p.executeUpdate();
  }

  /**
   * Whether {@code f}'s row can take the plain statement: captured, no error, no WebSocket, no
   * tunnel bytes, unchanged, not a replay (nearly every flow); those columns' values are in its SQL.
   */
  private static boolean plain(Flow f) {
    return f.error() == null && !f.isWebSocket() && f.tunnelBytesClientToServer() == 0
        && f.tunnelBytesServerToClient() == 0 && f.modifiedBy().isEmpty() && f.replayOf() < 0;
  }

  /**
   * Writes the row of the captured flow {@code f} with {@code state} (as the caller read it), or
   * queues it (a plain flow: see the class doc); written at the latest by {@link #flushQueued}.
   */
  void queueRow(Flow f, FlowState state) throws SQLException {
    if (!plain(f)) {
      flushQueued(); // in order, should the same flow be queued
      row(f, 0, state);
      return;
    }
    queuedFlows[queuedRows] = f;
    queuedStates[queuedRows] = state;
    if (++queuedRows == ROWS_PER_INSERT) {
      flushRows();
    }
  }

  /** {@link #bodies}, queuing the bodies kept whole in the database (see the class doc). */
  void queueBodies(Flow f) throws SQLException, IOException {
    queueBody(f.id(), 0, f.requestBody());
    queueBody(f.id(), 1, f.responseBody());
    queueBody(f.id(), 2, f.originalRequestBody());
    queueBody(f.id(), 3, f.originalResponseBody());
  }

  private void queueBody(long flow, int part, Body b) throws SQLException, IOException {
    if (b == null || !whole(b)) {
      body(flow, part, b);
      return;
    }
    if (b.size() == 0) {
      return; // empty: no row
    }
    queuedBodyFlows[queuedBodyRows] = flow;
    queuedBodyParts[queuedBodyRows] = part;
    queuedBodies[queuedBodyRows] = b;
    if (++queuedBodyRows == ROWS_PER_INSERT) {
      flushBodyRows();
    }
  }

  /** Writes every queued row. The caller calls it before it commits. */
  void flushQueued() throws SQLException {
    flushRows();
    flushBodyRows();
  }

  private void flushRows() throws SQLException {
    int n = queuedRows;
    int done = 0;
    try {
      while (done < n) {
        int k = 31 - Integer.numberOfLeadingZeros(n - done); // the biggest statement that fits
        int rows = 1 << k;
        PreparedStatement p = plainRows[k];
        if (p == null) {
          p = plainRows[k] = db.writer().prepareStatement(plainInsert(rows));
        }
        for (int r = 0; r < rows; r++) {
          bindPlain(p, r * PLAIN_PARAMETERS, queuedFlows[done + r], queuedStates[done + r]);
        }
        p.executeUpdate();
        done += rows;
      }
    } finally {
      java.util.Arrays.fill(queuedFlows, 0, n, null);
      java.util.Arrays.fill(queuedStates, 0, n, null);
      queuedRows = 0;
    }
  }

  private void flushBodyRows() throws SQLException {
    int n = queuedBodyRows;
    int done = 0;
    try {
      while (done < n) {
        int k = 31 - Integer.numberOfLeadingZeros(n - done);
        int rows = 1 << k;
        PreparedStatement p = wholeBodyRows[k];
        if (p == null) {
          p = wholeBodyRows[k] = db.writer().prepareStatement(wholeBodyInsert(rows));
        }
        for (int r = 0, i = 1; r < rows; r++) {
          Body b = queuedBodies[done + r];
          p.setLong(i++, queuedBodyFlows[done + r]);
          p.setInt(i++, queuedBodyParts[done + r]);
          p.setLong(i++, b.capturedSize());
          p.setBytes(i++, b.bytes());
        }
        p.executeUpdate();
        done += rows;
      }
    } finally {
      java.util.Arrays.fill(queuedBodies, 0, n, null);
      queuedBodyRows = 0;
    }
  }

  /** Parameters per row of the plain statement. */
  private static final int PLAIN_PARAMETERS = 20;

  /**
   * A plain flow's row at parameters {@code base + 1 ..}: id, started, state, tier ordinal, method,
   * scheme, host, port, target, status, req_type, res_type, req_size, res_size, duration, total_ms,
   * client_proto, server_proto, client, detail (see {@link #plainInsert}).
   */
  private void bindPlain(PreparedStatement p, int base, Flow f, FlowState state) throws SQLException {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    Timings t = f.timings();
    int i = base + 1;
    p.setLong(i++, f.id());
    p.setLong(i++, epochNanos(f.startedAt()));
    p.setInt(i++, state.ordinal());
    p.setInt(i++, f.tier().ordinal());
    if (req == null) {
      for (int j = 0; j < 5; j++) {
        p.setNull(i++, Types.NULL);
      }
    } else {
      p.setString(i++, req.method());
      p.setString(i++, req.scheme());
      p.setString(i++, req.host());
      p.setInt(i++, req.port());
      p.setString(i++, req.target());
    }
    if (res == null) {
      p.setNull(i++, Types.INTEGER);
    } else {
      p.setInt(i++, res.status());
    }
    setText(p, i++, req == null ? null : contentTypes(req.headers()));
    setText(p, i++, res == null ? null : contentTypes(res.headers()));
    if (req == null) {
      p.setNull(i++, Types.INTEGER);
    } else {
      p.setLong(i++, f.requestBody().size());
    }
    if (res == null) {
      p.setNull(i++, Types.INTEGER);
    } else {
      p.setLong(i++, f.responseBody().size());
    }
    long start = t.requestStartNanos();
    long end = t.responseEndNanos();
    if (start == 0 || end == 0 || end - start < 0) {
      p.setNull(i++, Types.INTEGER);
    } else {
      p.setLong(i++, end - start);
    }
    if (state == FlowState.IN_FLIGHT) {
      p.setNull(i++, Types.REAL);
    } else {
      p.setDouble(i++, t.totalMs());
    }
    setText(p, i++, f.clientProtocol());
    setText(p, i++, f.serverProtocol());
    setText(p, i++, f.client());
    // the queued row's blob: an array of this row slot's, reused by the next statement (the driver
    // copies what is bound when the statement runs, and every row is bound anew before each run)
    BlobWriter w = FlowCodec.write(f, blob, certificates, parts);
    p.setBytes(i, w.toByteArray(rowBlobs, base / PLAIN_PARAMETERS * BLOB_LENGTHS + (w.length() & (BLOB_LENGTHS - 1))));
  }

  /**
   * Detail blob arrays kept per queued row slot and length (modulo {@link #BLOB_LENGTHS}): a
   * recording's blobs keep a few lengths, so most rows reuse one (no ~600-byte array per flow).
   */
  private static final int BLOB_LENGTHS = 16;
  private final byte[][] rowBlobs = new byte[ROWS_PER_INSERT * BLOB_LENGTHS][];

  /**
   * {@code INSERT OR REPLACE} of {@code rows} plain flows ({@link #PLAIN_PARAMETERS} parameters each,
   * numbered, since the {@code url} and {@code tier} expressions use some twice).
   */
  static String plainInsert(int rows) {
    StringBuilder sql = new StringBuilder(rows * 700).append("INSERT OR REPLACE INTO flow(").append(COLUMNS)
        .append(") VALUES ");
    StringBuilder tiers = new StringBuilder("CASE ?4");
    for (dev.loupe.engine.flow.FlowTier tier : dev.loupe.engine.flow.FlowTier.values()) {
      tiers.append(" WHEN ").append(tier.ordinal()).append(" THEN '").append(tier.name()).append('\'');
    }
    tiers.append(" END");
    // RequestHead.url(): the authority alone for CONNECT, else scheme://authority target; the
    // authority is the host (in brackets when it holds a colon: IPv6) and ":port" unless it is the
    // scheme's default. No request: all of them null, so is the url.
    String authority = "(CASE WHEN instr(?7, ':') > 0 THEN '[' || ?7 || ']' ELSE ?7 END || CASE WHEN (?6 = 'http'"
        + " AND ?8 = 80) OR (?6 = 'https' AND ?8 = 443) THEN '' ELSE ':' || ?8 END)";
    String row = "(?1, ?2, ?3, " + tiers + ", 0, ?5, ?6, ?7, ?8, ?9, CASE WHEN ?5 = 'CONNECT' THEN " + authority
        + " ELSE ?6 || '://' || " + authority + " || ?9 END, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, NULL, NULL,"
        + " 0, 0, 0, NULL, NULL, ?19, ?20)";
    for (int r = 0; r < rows; r++) {
      if (r > 0) {
        sql.append(", ");
      }
      int base = r * PLAIN_PARAMETERS;
      java.util.regex.Matcher m = PARAMETER.matcher(row);
      StringBuilder numbered = new StringBuilder(row.length() + 64);
      while (m.find()) {
        m.appendReplacement(numbered, "?" + (base + Integer.parseInt(m.group(1))));
      }
      m.appendTail(numbered);
      sql.append(numbered);
    }
    return sql.toString();
  }

  private static final java.util.regex.Pattern PARAMETER = java.util.regex.Pattern.compile("\\?(\\d+)");

  /** {@code INSERT OR REPLACE} of {@code rows} bodies kept whole: flow, part, size, data each. */
  static String wholeBodyInsert(int rows) {
    StringBuilder sql = new StringBuilder(64 + rows * 40)
        .append("INSERT OR REPLACE INTO body(flow, part, size, truncated, captured, data, file) VALUES ");
    for (int r = 0; r < rows; r++) {
      int b = r * 4;
      sql.append(r > 0 ? ", " : "").append("(?").append(b + 1).append(", ?").append(b + 2).append(", ?")
          .append(b + 3).append(", 0, ?").append(b + 3).append(", ?").append(b + 4).append(", NULL)");
    }
    return sql.toString();
  }

  /** Whether {@code b} is kept whole in the database: captured in full, not cut, small enough. */
  private static boolean whole(Body b) {
    long captured = b.capturedSize();
    return captured <= SessionDb.INLINE_MAX && captured == b.size() && !b.truncated();
  }

  /** Writes the four bodies of an ended flow; big ones go to side files. */
  void bodies(Flow f) throws SQLException, IOException {
    body(f.id(), 0, f.requestBody());
    body(f.id(), 1, f.responseBody());
    body(f.id(), 2, f.originalRequestBody());
    body(f.id(), 3, f.originalResponseBody());
  }

  private void body(long flow, int part, Body b) throws SQLException, IOException {
    if (b == null) {
      return;
    }
    long captured = b.capturedSize();
    if (b.size() == 0 && captured == 0 && !b.truncated()) {
      return;
    }
    if (captured <= SessionDb.INLINE_MAX && captured == b.size() && !b.truncated()) {
      PreparedStatement w = wholeBodyRow;
      w.setLong(1, flow);
      w.setInt(2, part);
      w.setLong(3, captured);
      w.setBytes(4, b.bytes());
      w.executeUpdate();
      return;
    }
    PreparedStatement p = bodyRow;
    p.setLong(1, flow);
    p.setInt(2, part);
    p.setLong(3, b.size());
    p.setInt(4, b.truncated() ? 1 : 0);
    p.setLong(5, captured);
    if (captured <= SessionDb.INLINE_MAX) {
      p.setBytes(6, b.bytes());
      p.setNull(7, Types.VARCHAR);
    } else {
      p.setNull(6, Types.BLOB);
      p.setString(7, sideFile(flow, part, b));
    }
    p.executeUpdate();
  }

  /** Copies a big body to {@code <session>-bodies/<flow>-<part>.body}; returns the file's name. */
  private String sideFile(long flow, int part, Body b) throws IOException {
    Path dir = db.sideDirectory();
    Files.createDirectories(dir);
    String name = flow + "-" + part + ".body";
    Path target = dir.resolve(name);
    try (InputStream in = b.openStream();
        OutputStream out = Files.newOutputStream(target, StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      in.transferTo(out);
    }
    return name;
  }

  /** Writes the flow's WebSocket messages from index {@code from}; returns how many it has now. */
  int messages(Flow f, int from) throws SQLException {
    List<WebSocketMessage> all = f.webSocketMessages();
    int n = all.size();
    for (int seq = from; seq < n; seq++) {
      WebSocketMessage m = all.get(seq);
      messageRow.setLong(1, f.id());
      messageRow.setInt(2, seq);
      messageRow.setInt(3, m.direction().ordinal());
      messageRow.setInt(4, m.opcode());
      messageRow.setLong(5, m.length());
      messageRow.setLong(6, epochNanos(m.time()));
      messageRow.setBytes(7, m.payload());
      messageRow.executeUpdate();
    }
    return n;
  }

  private byte[] storeCertificate(X509Certificate cert) {
    byte[] known = knownCertificates.get(cert);
    if (known != null) {
      return known;
    }
    try {
      byte[] der = cert.getEncoded();
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(der);
      certificateRow.setBytes(1, hash);
      certificateRow.setBytes(2, der);
      certificateRow.executeUpdate();
      knownCertificates.put(cert, hash);
      return hash;
    } catch (CertificateEncodingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException("cannot encode a certificate: " + e.getMessage(), e);
    } catch (SQLException e) {
      throw new WriteFailure(e);
    }
  }

  /**
   * Forgets the certificates believed written (after a rollback they may not be), and so the parts
   * naming them, and drops the queued rows (the caller writes their flows again).
   */
  void rolledBack() {
    knownCertificates.clear();
    parts.clear();
    java.util.Arrays.fill(queuedFlows, null);
    java.util.Arrays.fill(queuedStates, null);
    queuedRows = 0;
    java.util.Arrays.fill(queuedBodies, null);
    queuedBodyRows = 0;
  }

  /** An SQL failure from inside the codec's callback, unwrapped by the caller. */
  static final class WriteFailure extends RuntimeException {
    WriteFailure(SQLException cause) {
      super(cause);
    }

    SQLException sql() {
      return (SQLException) getCause();
    }
  }

  /** Every Content-Type value, joined by line feeds; null when there is none. */
  static String contentTypes(Headers h) {
    String first = null;
    StringBuilder all = null; // only for a second one
    List<Headers.Field> fields = h.fields();
    for (int i = 0, n = fields.size(); i < n; i++) { // by index: no iterator per head
      Headers.Field f = fields.get(i);
      if (isContentType(f.name())) {
        if (first == null) {
          first = f.value();
        } else {
          all = (all == null ? new StringBuilder(first) : all).append('\n').append(f.value());
        }
      }
    }
    return all != null ? all.toString() : first;
  }

  /** {@code name.equalsIgnoreCase("content-type")}, with the two usual spellings compared first. */
  private static boolean isContentType(String name) {
    return name.length() == 12 && (name.equals("content-type") || name.equals("Content-Type")
        || name.equalsIgnoreCase("content-type"));
  }

  static long epochNanos(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
  }

  static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
  }

  private static void setText(PreparedStatement p, int i, String v) throws SQLException {
    if (v == null) {
      p.setNull(i, Types.VARCHAR);
    } else {
      p.setString(i, v);
    }
  }

  private static void setLong(PreparedStatement p, int i, Long v) throws SQLException {
    if (v == null) {
      p.setNull(i, Types.INTEGER);
    } else {
      p.setLong(i, v);
    }
  }

  /** The highest flow id in the file, or 0. */
  static long maxId(Connection c) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT max(id) FROM flow"); ResultSet r = p.executeQuery()) {
      return r.next() ? r.getLong(1) : 0;
    }
  }

  @Override
  public void close() {
    SessionDb.closeQuietly(flowRow);
    SessionDb.closeQuietly(wholeBodyRow);
    SessionDb.closeQuietly(bodyRow);
    SessionDb.closeQuietly(messageRow);
    SessionDb.closeQuietly(certificateRow);
    for (PreparedStatement p : plainRows) {
      SessionDb.closeQuietly(p);
    }
    for (PreparedStatement p : wholeBodyRows) {
      SessionDb.closeQuietly(p);
    }
  }
}
