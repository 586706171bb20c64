package dev.loupe.engine.internal.store;

import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.BodyScan;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSql;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.WebSocketMessage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Reads a session file: row summaries by id, whole flows, and the ids a filter selects in a given
 * order, on the session's reader connections (any thread; each call borrows one).
 *
 * <h3>Filters</h3>
 * A filter is translated by {@link FilterSql}. When the translation is exact, SQLite answers alone
 * (with its indexes). A body search (the rest of the filter is {@code ~b} atoms, see {@link BodyScan})
 * reads the candidates' body rows and nothing else ({@link BodySearch}, in parallel). Otherwise the
 * condition selects candidates, which are rebuilt one at a time and tested with
 * {@link Filter#test}: a streamed scan that holds one flow at a time.
 */
public final class FlowReader {
  private static final String SUMMARY_COLUMNS = "id, started, state, tier, source, method, scheme, host, port,"
      + " target, url, status, res_type, res_size, total_ms, client_proto, server_proto, error_kind, error,"
      + " websocket, tunnel_up, tunnel_down, modified, replay_of, client";

  /** A consumer of ids, in order, that may stop the query by returning false. */
  @FunctionalInterface
  public interface IdSink {
    boolean accept(long id);
  }

  /** A consumer of whole flows, in order. */
  @FunctionalInterface
  public interface FlowSink {
    void accept(Flow flow) throws IOException;
  }

  private final SessionDb db;
  private final Path spillDir;
  private final BodySearch bodySearch;
  private final Map<String, X509Certificate> certificates = Collections.synchronizedMap(
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, X509Certificate> eldest) {
          return size() > 1024;
        }
      });

  public FlowReader(SessionDb db, Path spillDir) {
    this(db, spillDir, BodySearch.DEFAULT_CHUNK);
  }

  /** @param bodySearchChunk ids per chunk of a parallel body search (tests make it small) */
  FlowReader(SessionDb db, Path spillDir, int bodySearchChunk) {
    this.db = db;
    this.spillDir = spillDir;
    this.bodySearch = new BodySearch(db, bodySearchChunk);
  }

  /** Where bodies read back go beyond 1 MiB (temporary files). */
  Path spillDir() {
    return spillDir;
  }

  /** How many flows the file holds. */
  public long count() throws SQLException {
    return single("SELECT count(*) FROM flow");
  }

  /** The highest flow id, or 0. */
  public long maxId() throws SQLException {
    return single("SELECT coalesce(max(id), 0) FROM flow");
  }

  private long single(String sql) throws SQLException {
    Connection c = db.borrowReader();
    try (PreparedStatement p = c.prepareStatement(sql); ResultSet r = p.executeQuery()) {
      return r.next() ? r.getLong(1) : 0;
    } finally {
      db.returnReader(c);
    }
  }

  /** The summaries of {@code ids[from, to)}, by id (ids not in the file are absent). */
  public Map<Long, FlowSummary> summaries(long[] ids, int from, int to) throws SQLException {
    Map<Long, FlowSummary> out = new HashMap<>(Math.max(16, (to - from) * 2));
    if (to <= from) {
      return out;
    }
    StringBuilder sql = new StringBuilder(64 + (to - from) * 8).append("SELECT ").append(SUMMARY_COLUMNS)
        .append(" FROM flow WHERE id IN (");
    for (int i = from; i < to; i++) {
      sql.append(i == from ? "" : ",").append(ids[i]);
    }
    sql.append(')');
    Connection c = db.borrowReader();
    try (PreparedStatement p = c.prepareStatement(sql.toString()); ResultSet r = p.executeQuery()) {
      while (r.next()) {
        FlowSummary s = summary(r);
        out.put(s.id(), s);
      }
    } finally {
      db.returnReader(c);
    }
    return out;
  }

  private static FlowSummary summary(ResultSet r) throws SQLException {
    long id = r.getLong(1);
    FlowState state = FlowState.values()[r.getInt(3)];
    FlowTier tier = FlowTier.valueOf(r.getString(4));
    String method = r.getString(6);
    String error = r.getString(18) == null ? null : r.getString(18) + ": " + r.getString(19);
    if (state == FlowState.IN_FLIGHT) { // not live: it never ended (see FlowBuilder)
      state = FlowState.FAILED;
      error = FlowError.Kind.INTERNAL + ": " + FlowBuilder.INCOMPLETE;
    }
    RequestHead head = method == null ? null
        : new RequestHead(method, r.getString(7), r.getString(8), r.getInt(9), r.getString(10), "", Headers.EMPTY);
    String resType = r.getString(13);
    int newline = resType == null ? -1 : resType.indexOf('\n');
    long size = tier == FlowTier.TUNNEL ? r.getLong(21) + r.getLong(22) : r.getLong(14);
    double total = r.getDouble(15);
    if (r.wasNull()) {
      total = -1;
    }
    String modified = r.getString(23);
    long replayOf = r.getLong(24);
    if (r.wasNull()) {
      replayOf = -1;
    }
    return new FlowSummary(id, FlowWriter.instant(r.getLong(2)), method == null ? "" : method,
        head == null ? "" : head.host(), FlowSummary.path(head, tier), head == null ? "" : nonNull(r.getString(11)),
        r.getInt(12), FlowSummary.mediaType(newline >= 0 ? resType.substring(0, newline) : resType),
        size, total, r.getString(16), r.getString(17), tier, state, error,
        modified == null ? List.of() : Arrays.asList(modified.split("\n", -1)), replayOf, r.getInt(20) != 0,
        r.getInt(5) != 0, r.getString(25));
  }

  private static String nonNull(String s) {
    return s == null ? "" : s;
  }

  /** The flow {@code id} with its bodies and messages, or null when the file has none. */
  public Flow load(long id) throws SQLException, IOException {
    Connection c = db.borrowReader();
    try (PreparedStatement p = c.prepareStatement("SELECT " + FlowWriter.COLUMNS + " FROM flow WHERE id = ?")) {
      p.setLong(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? build(c, r, true) : null;
      }
    } finally {
      db.returnReader(c);
    }
  }

  /** Whether the file has a flow {@code id}. */
  public boolean contains(long id) throws SQLException {
    Connection c = db.borrowReader();
    try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM flow WHERE id = ?")) {
      p.setLong(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next();
      }
    } finally {
      db.returnReader(c);
    }
  }

  /**
   * Feeds {@code sink} the ids of the flows {@code filter} matches, ordered by {@code key}, until it
   * returns false or {@code stop} says so (checked every few hundred rows).
   */
  public void ids(Filter filter, SortKey key, boolean descending, IdSink sink, BooleanSupplier stop)
      throws SQLException, IOException {
    FilterSql where = FilterSql.of(filter);
    BodyScan scan = where.exact() ? null : BodyScan.of(filter);
    if (scan != null) { // a body search: body rows only, on every core
      bodySearch.ids(where, scan, key, descending, sink, stop);
      return;
    }
    String dir = descending ? " DESC" : "";
    String order = " ORDER BY " + key.column() + dir + (key == SortKey.ID ? "" : ", id" + dir);
    Connection c = db.borrowReader();
    String columns = where.exact() ? "id" : FlowWriter.COLUMNS;
    try (PreparedStatement p = c.prepareStatement("SELECT " + columns + " FROM flow WHERE " + where.where() + order)) {
      bind(p, where.arguments());
      try (ResultSet r = p.executeQuery()) {
        int n = 0;
        while (r.next()) {
          if ((++n & 255) == 0 && stop.getAsBoolean()) {
            return;
          }
          if (where.exact()) {
            if (!sink.accept(r.getLong(1))) {
              return;
            }
          } else {
            Flow f = build(c, r, where.needsBodies());
            if (filter.test(f) && !sink.accept(f.id())) {
              return;
            }
          }
        }
      }
    } finally {
      db.returnReader(c);
    }
  }

  /** Feeds {@code sink} every flow {@code filter} matches, whole, in id order, one at a time. */
  public void flows(Filter filter, FlowSink sink, BooleanSupplier stop) throws SQLException, IOException {
    FilterSql where = FilterSql.of(filter);
    Connection c = db.borrowReader();
    try (PreparedStatement p = c.prepareStatement(
        "SELECT " + FlowWriter.COLUMNS + " FROM flow WHERE " + where.where() + " ORDER BY id")) {
      bind(p, where.arguments());
      try (ResultSet r = p.executeQuery()) {
        while (r.next() && !stop.getAsBoolean()) {
          Flow f = build(c, r, true);
          if (where.exact() || filter.test(f)) {
            sink.accept(f);
          }
        }
      }
    } finally {
      db.returnReader(c);
    }
  }

  private static void bind(PreparedStatement p, List<Object> args) throws SQLException {
    for (int i = 0; i < args.size(); i++) {
      Object a = args.get(i);
      if (a instanceof Long l) {
        p.setLong(i + 1, l);
      } else {
        p.setString(i + 1, (String) a);
      }
    }
  }

  /** Rebuilds the flow of the current row (columns as {@link FlowWriter#COLUMNS}). */
  private Flow build(Connection c, ResultSet r, boolean withContent) throws SQLException, IOException {
    return row(c, r, withContent).build(spillDir);
  }

  /**
   * Everything the current row (columns as {@link FlowWriter#COLUMNS}) holds, not yet a flow: bodies
   * as {@link StoredBody} (opened only when read, nothing spilled), WebSocket messages with content.
   */
  FlowBuilder row(Connection c, ResultSet r, boolean withContent) throws SQLException {
    return row(c, r, withContent, withContent);
  }

  /** {@link #row(Connection, ResultSet, boolean)}, WebSocket messages left out unless {@code withMessages}. */
  FlowBuilder row(Connection c, ResultSet r, boolean withContent, boolean withMessages) throws SQLException {
    FlowBuilder b = new FlowBuilder();
    b.id = r.getLong(1);
    b.startedAt = FlowWriter.instant(r.getLong(2));
    b.state = FlowState.values()[r.getInt(3)];
    b.tier = FlowTier.valueOf(r.getString(4));
    String errorKind = r.getString(21);
    if (errorKind != null) {
      b.error = new FlowError(kind(errorKind), nonNull(r.getString(22)));
    }
    b.webSocket = r.getInt(23) != 0;
    b.tunnelUp = r.getLong(24);
    b.tunnelDown = r.getLong(25);
    String modified = r.getString(26);
    if (modified != null) {
      b.modifiedBy.addAll(Arrays.asList(modified.split("\n", -1)));
    }
    b.replayOf = r.getLong(27);
    if (r.wasNull()) {
      b.replayOf = -1;
    }
    b.client = r.getString(28);
    try {
      FlowCodec.decode(r.getBytes(29), b, sha -> certificate(c, sha));
    } catch (BlobReader.CorruptBlobException e) {
      throw new SQLException("flow " + b.id + ": " + e.getMessage(), "corrupt", 11, e);
    }
    bodies(c, b, withContent);
    if (b.requestBody == null || b.responseBody == null) {
      // bodies are written once a flow ends: one written in flight (and never ended) has none,
      // and what it had seen so far counts as seen and not kept
      b.requestBody = b.requestBody != null ? b.requestBody : unkept(r.getLong(15));
      b.responseBody = b.responseBody != null ? b.responseBody : unkept(r.getLong(16));
    }
    if (withMessages && b.webSocket) {
      messages(c, b);
    }
    return b;
  }

  private static StoredBody unkept(long size) {
    return size <= 0 ? null : new StoredBody(size, true, 0, InputStream::nullInputStream);
  }

  private static FlowError.Kind kind(String name) {
    try {
      return FlowError.Kind.valueOf(name);
    } catch (IllegalArgumentException e) {
      return FlowError.Kind.INTERNAL; // a kind a newer Loupe added
    }
  }

  private void bodies(Connection c, FlowBuilder b, boolean withContent) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(
        "SELECT part, size, truncated, captured, " + (withContent ? "data" : "NULL") + ", file FROM body WHERE flow = ?")) {
      p.setLong(1, b.id);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          int part = r.getInt(1);
          long size = r.getLong(2);
          boolean truncated = r.getInt(3) != 0;
          long captured = r.getLong(4);
          StoredBody.Content content = null;
          if (withContent) {
            byte[] data = r.getBytes(5);
            String file = r.getString(6);
            if (data != null) {
              content = () -> new ByteArrayInputStream(data);
            } else if (file != null) {
              Path side = db.sideDirectory().resolve(file);
              content = () -> Files.newInputStream(side);
            } else {
              content = chunks(c, b.id, part);
            }
          }
          StoredBody body = new StoredBody(size, truncated, captured, content);
          switch (part) {
            case 0 -> b.requestBody = body;
            case 1 -> b.responseBody = body;
            case 2 -> b.originalRequestBody = body;
            case 3 -> b.originalResponseBody = body;
            default -> { } // a part a newer Loupe added
          }
        }
      }
    }
  }

  /** A folded body's chunks, read one at a time as the stream advances. */
  static StoredBody.Content chunks(Connection c, long flow, int part) {
    return () -> {
      List<Integer> seqs = new ArrayList<>();
      try (PreparedStatement p = c.prepareStatement(
          "SELECT seq FROM body_chunk WHERE flow = ? AND part = ? ORDER BY seq")) {
        p.setLong(1, flow);
        p.setInt(2, part);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            seqs.add(r.getInt(1));
          }
        }
      } catch (SQLException e) {
        throw new IOException("reading the body of flow " + flow + ": " + e.getMessage(), e);
      }
      java.util.Iterator<Integer> it = seqs.iterator();
      return new SequenceInputStream(new java.util.Enumeration<InputStream>() {
        @Override
        public boolean hasMoreElements() {
          return it.hasNext();
        }

        @Override
        public InputStream nextElement() {
          try (PreparedStatement p = c.prepareStatement(
              "SELECT data FROM body_chunk WHERE flow = ? AND part = ? AND seq = ?")) {
            p.setLong(1, flow);
            p.setInt(2, part);
            p.setInt(3, it.next());
            try (ResultSet r = p.executeQuery()) {
              return new ByteArrayInputStream(r.next() ? r.getBytes(1) : new byte[0]);
            }
          } catch (SQLException e) {
            throw new java.io.UncheckedIOException(new IOException("reading the body of flow " + flow, e));
          }
        }
      });
    };
  }

  private static void messages(Connection c, FlowBuilder b) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(
        "SELECT direction, opcode, length, time, payload FROM message WHERE flow = ? ORDER BY seq")) {
      p.setLong(1, b.id);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          b.messages.add(new WebSocketMessage(WebSocketMessage.Direction.values()[r.getInt(1)], r.getInt(2),
              r.getBytes(5), r.getLong(3), FlowWriter.instant(r.getLong(4))));
        }
      }
    }
  }

  private X509Certificate certificate(Connection c, byte[] sha256) {
    String key = HexFormat.of().formatHex(sha256);
    X509Certificate cached = certificates.get(key);
    if (cached != null) {
      return cached;
    }
    try (PreparedStatement p = c.prepareStatement("SELECT der FROM certificate WHERE sha256 = ?")) {
      p.setBytes(1, sha256);
      try (ResultSet r = p.executeQuery()) {
        if (!r.next()) {
          throw new BlobReader.CorruptBlobException("certificate " + key + " is missing");
        }
        X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(r.getBytes(1)));
        certificates.put(key, cert);
        return cert;
      }
    } catch (SQLException | CertificateException e) {
      throw new BlobReader.CorruptBlobException("certificate " + key + ": " + e.getMessage());
    }
  }
}
