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
 * <p>Confined to the session's writer thread.
 */
final class FlowWriter implements AutoCloseable {
  static final String COLUMNS = "id, started, state, tier, source, method, scheme, host, port, target, url, status,"
      + " req_type, res_type, req_size, res_size, duration, total_ms, client_proto, server_proto, error_kind, error,"
      + " websocket, tunnel_up, tunnel_down, modified, replay_of, client, detail";

  private final SessionDb db;
  private final PreparedStatement flowRow;
  /**
   * The row of a plain flow (captured, no error, no WebSocket, no tunnel bytes, unchanged, not a
   * replay: nearly every flow), with those columns' values in the SQL: 21 parameters bound instead of
   * 29 (each bind is a JNI call taking two locks).
   */
  private final PreparedStatement plainRow;
  private final PreparedStatement bodyRow;
  /** A body kept whole in the database ({@code captured = size}, not cut, no side file): 4 parameters, not 7. */
  private final PreparedStatement wholeBodyRow;
  private final PreparedStatement messageRow;
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
    plainRow = c.prepareStatement("INSERT OR REPLACE INTO flow(" + COLUMNS + ") VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?,"
        + " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, 0, 0, NULL, NULL, ?, ?)");
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
    boolean plain = source == 0 && error == null && !f.isWebSocket() && up == 0 && down == 0 && modified.isEmpty()
        && f.replayOf() < 0;
    PreparedStatement p = plain ? plainRow : flowRow;
    int i = 1;
    p.setLong(i++, f.id());
    p.setLong(i++, epochNanos(f.startedAt()));
    p.setInt(i++, state.ordinal());
    p.setString(i++, f.tier().name());
    if (!plain) {
      p.setInt(i++, source);
    }
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
    if (!plain) {
      setText(p, i++, error == null ? null : error.kind().name());
      setText(p, i++, error == null ? null : error.message());
      p.setInt(i++, f.isWebSocket() ? 1 : 0);
      p.setLong(i++, up);
      p.setLong(i++, down);
      setText(p, i++, modified.isEmpty() ? null : String.join("\n", modified));
      setLong(p, i++, f.replayOf() < 0 ? null : f.replayOf());
    }
    setText(p, i++, f.client());
    p.setBytes(i, FlowCodec.encode(f, blob, certificates, parts));
    p.executeUpdate();
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

  /** Forgets the certificates believed written (after a rollback they may not be), and so the parts naming them. */
  void rolledBack() {
    knownCertificates.clear();
    parts.clear();
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
    SessionDb.closeQuietly(plainRow);
    SessionDb.closeQuietly(wholeBodyRow);
    SessionDb.closeQuietly(bodyRow);
    SessionDb.closeQuietly(messageRow);
    SessionDb.closeQuietly(certificateRow);
  }
}
