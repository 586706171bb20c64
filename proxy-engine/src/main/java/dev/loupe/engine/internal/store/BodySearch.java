package dev.loupe.engine.internal.store;

import dev.loupe.engine.filter.BodyScan;
import dev.loupe.engine.filter.FilterSql;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.api.util.BackgroundThreads;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * A body search ({@code ~b}, see {@link BodyScan}) over a session file, reading only what it looks
 * at: per flow, its head flags and its request and response body rows (one joined query, no
 * statement per flow), the detail blob only to learn a {@code Content-Encoding} (and only decoded
 * when it holds one), WebSocket messages only when the bodies did not decide. No flow is rebuilt.
 *
 * <h3>In parallel, in order</h3>
 * Sorted by id (the table's default), the id range is cut into chunks of {@link #chunk} ids that
 * worker threads (one per core, at most four) scan on their own reader connections, a few chunks
 * ahead of the caller; the caller hands each chunk's hits to the sink in order, so the first page
 * arrives after the first chunk and the sink sees the same ids in the same order as a single scan.
 * When the sink has enough (returns false) or {@code stop} turns true, the workers stop at their
 * next row batch and the call returns once they have. Other sort orders scan on the caller's thread.
 * Flows written after the search started (ids beyond the maximum it saw) are not searched.
 */
final class BodySearch {
  /** Ids per chunk of a parallel scan: about a tenth of a second of work on one core. */
  static final int DEFAULT_CHUNK = 16_384;
  private static final int THREADS = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
  private static final ExecutorService POOL = pool();

  private final SessionDb db;
  private final int chunk;

  BodySearch(SessionDb db, int chunk) {
    this.db = db;
    this.chunk = chunk;
  }

  private static ExecutorService pool() {
    ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), BackgroundThreads.factory("loupe-body-search", true)); // below the UI thread
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** Feeds {@code sink} the ids of the rows {@code where} selects that {@code scan} matches, as {@link FlowReader#ids}. */
  void ids(FilterSql where, BodyScan scan, SortKey key, boolean descending, FlowReader.IdSink sink, BooleanSupplier stop)
      throws SQLException, IOException {
    long[] bounds = key == SortKey.ID ? bounds() : null;
    if (key != SortKey.ID || THREADS == 1 || bounds == null || bounds[1] - bounds[0] < chunk) {
      Connection c = db.borrowReader();
      try {
        scan(c, where, scan, key, descending, Long.MIN_VALUE, Long.MAX_VALUE, sink::accept, stop);
      } finally {
        db.returnReader(c);
      }
      return;
    }
    long low = bounds[0];
    long high = bounds[1];
    long chunks = (high - low) / chunk + 1;
    AtomicBoolean cancelled = new AtomicBoolean();
    BooleanSupplier stopWorker = cancelled::get;
    ArrayDeque<Future<long[]>> pending = new ArrayDeque<>();
    long next = 0;
    try {
      while (true) {
        while (next < chunks && pending.size() < THREADS * 2) {
          long k = next++;
          long lo = descending ? Math.max(low, high - (k + 1) * chunk + 1) : low + k * chunk;
          long hi = descending ? high - k * chunk : Math.min(high, low + (k + 1) * chunk - 1);
          pending.add(POOL.submit(() -> chunk(where, scan, descending, lo, hi, stopWorker)));
        }
        Future<long[]> f = pending.poll();
        if (f == null) {
          return;
        }
        long[] hits = await(f, stop);
        if (hits == null) {
          return; // stopped
        }
        for (long id : hits) {
          if (!sink.accept(id)) {
            return;
          }
        }
      }
    } finally {
      cancelled.set(true);
      for (Future<long[]> f : pending) {
        try {
          f.get(); // the workers stop at their next batch; none outlives the call
        } catch (ExecutionException e) {
          // the caller has its answer or its own failure
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** {@code {min(id), max(id)}}, or null for an empty file. */
  private long[] bounds() throws SQLException {
    Connection c = db.borrowReader();
    try (PreparedStatement p = c.prepareStatement("SELECT min(id), max(id) FROM flow"); ResultSet r = p.executeQuery()) {
      if (!r.next()) {
        return null;
      }
      long min = r.getLong(1);
      return r.wasNull() ? null : new long[] {min, r.getLong(2)};
    } finally {
      db.returnReader(c);
    }
  }

  /** The hits of one chunk, or null when it waited on {@code stop}. */
  private static long[] await(Future<long[]> f, BooleanSupplier stop) throws SQLException, IOException {
    while (true) {
      if (stop.getAsBoolean()) {
        return null;
      }
      try {
        return f.get(50, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // check stop again
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof SQLException s) {
          throw s;
        }
        if (cause instanceof IOException io) {
          throw io;
        }
        if (cause instanceof RuntimeException r) {
          throw r;
        }
        throw new IllegalStateException(cause);
      }
    }
  }

  /** Scans ids {@code [lo, hi]} on a worker: the hits in order. */
  private long[] chunk(FilterSql where, BodyScan scan, boolean descending, long lo, long hi, BooleanSupplier stop)
      throws SQLException, IOException {
    long[][] hits = {new long[64]};
    int[] n = {0};
    Connection c = db.borrowReader();
    try {
      scan(c, where, scan, SortKey.ID, descending, lo, hi, id -> {
        if (n[0] == hits[0].length) {
          hits[0] = Arrays.copyOf(hits[0], n[0] * 2);
        }
        hits[0][n[0]++] = id;
        return true;
      }, stop);
    } finally {
      db.returnReader(c);
    }
    return Arrays.copyOf(hits[0], n[0]);
  }

  /** A consumer of hits that may end the scan by returning false. */
  @FunctionalInterface
  private interface Hits {
    boolean accept(long id);
  }

  /** Scans the rows with ids in {@code [lo, hi]} that {@code where} selects, in {@code key} order, on {@code c}. */
  private void scan(Connection c, FilterSql where, BodyScan scan, SortKey key, boolean descending, long lo, long hi,
      Hits hits, BooleanSupplier stop) throws SQLException, IOException {
    String dir = descending ? " DESC" : "";
    String parts = scan.readsRequest() && scan.readsResponse() ? "IN (0, 1)" : scan.readsRequest() ? "= 0" : "= 1";
    // the flow columns in a subquery, as the filter's condition names them unqualified; a body of
    // no bytes on the wire is no body to a search (as Body.size() == 0 is), and a data blob is
    // read as a rebuilt flow reads it: its first `captured` bytes
    String sql = "SELECT f.id, f.flags, f.detail, b.part, CASE WHEN length(b.data) > b.captured"
        + " THEN substr(b.data, 1, b.captured) ELSE b.data END, b.file, b.captured FROM"
        + " (SELECT id, (method IS NOT NULL) | ((status IS NOT NULL) << 1) | ((websocket != 0) << 2) AS flags, detail, "
        + key.column() + " AS sort_key FROM flow WHERE id BETWEEN ? AND ? AND (" + where.where() + ")) AS f"
        + " LEFT JOIN body AS b ON b.flow = f.id AND b.part " + parts + " AND b.size != 0"
        + " ORDER BY " + (key == SortKey.ID ? "f.id" + dir : "f.sort_key" + dir + ", f.id" + dir);
    try (PreparedStatement p = c.prepareStatement(sql); Row row = new Row(c)) {
      p.setLong(1, lo);
      p.setLong(2, hi);
      List<Object> args = where.arguments();
      for (int i = 0; i < args.size(); i++) {
        if (args.get(i) instanceof Long l) {
          p.setLong(i + 3, l);
        } else {
          p.setString(i + 3, (String) args.get(i));
        }
      }
      try (ResultSet r = p.executeQuery()) {
        boolean more = r.next();
        long id = more ? r.getLong(1) : 0;
        int rows = 0;
        while (more) {
          if ((++rows & 255) == 0 && stop.getAsBoolean()) {
            return;
          }
          row.start(r, id);
          long next = 0;
          do {
            row.part(r);
            more = r.next();
            next = more ? r.getLong(1) : 0;
          } while (more && next == id);
          try {
            if (scan.test(row) && !hits.accept(id)) {
              return;
            }
          } catch (ReadFailure e) {
            throw e.sql;
          }
          id = next;
        }
      }
    }
  }

  /** An SQL failure from inside a {@link BodyScan.Source} call, unwrapped by {@link #scan}. */
  private static final class ReadFailure extends RuntimeException {
    final SQLException sql;

    ReadFailure(SQLException sql) {
      super(sql);
      this.sql = sql;
    }
  }

  /** The flow of the current rows, as the scan reads it. One per scan; reused row after row. */
  private final class Row implements BodyScan.Source, AutoCloseable {
    private final Connection c;
    private PreparedStatement messageQuery;
    private long id;
    private boolean request;
    private boolean response;
    private boolean webSocket;
    private byte[] detail;
    private String[] encodings;
    /** 0 without a body, else not 0 (what a search needs to know of the size). */
    private final long[] size = new long[2];
    private final byte[][] data = new byte[2][];
    private final String[] file = new String[2];
    private final boolean[] chunked = new boolean[2];

    Row(Connection c) {
      this.c = c;
    }

    /** The first row of flow {@code id}: its head flags, and its detail blob when it has a body. */
    void start(ResultSet r, long id) throws SQLException {
      this.id = id;
      int flags = r.getInt(2);
      request = (flags & 1) != 0;
      response = (flags & 2) != 0;
      webSocket = (flags & 4) != 0;
      r.getInt(4);
      detail = r.wasNull() ? null : r.getBytes(3);
      encodings = null;
      for (int i = 0; i < 2; i++) {
        size[i] = 0;
        data[i] = null;
        file[i] = null;
        chunked[i] = false;
      }
    }

    /** One body row of the flow (none when the LEFT JOIN found none). */
    void part(ResultSet r) throws SQLException {
      int part = r.getInt(4);
      if (r.wasNull()) {
        return;
      }
      size[part] = 1; // not 0: the query leaves bodies of no bytes out
      data[part] = r.getBytes(5);
      if (data[part] == null) {
        file[part] = r.getString(6);
        if (file[part] == null) {
          chunked[part] = r.getLong(7) > 0;
          data[part] = chunked[part] ? null : new byte[0];
        }
      }
    }

    @Override
    public boolean hasHead(boolean req) {
      return req ? request : response;
    }

    @Override
    public String contentEncoding(boolean req) {
      if (encodings == null) {
        encodings = detail == null ? new String[2] : contentEncodings(detail);
      }
      return encodings[req ? 0 : 1];
    }

    private String[] contentEncodings(byte[] blob) {
      try {
        return FlowCodec.contentEncodings(blob);
      } catch (BlobReader.CorruptBlobException e) {
        throw new ReadFailure(new SQLException("flow " + id + ": " + e.getMessage(), "corrupt", 11, e));
      }
    }

    @Override
    public long size(boolean req) {
      return size[req ? 0 : 1];
    }

    @Override
    public byte[] inline(boolean req) {
      return data[req ? 0 : 1];
    }

    @Override
    public InputStream open(boolean req) throws IOException {
      int i = req ? 0 : 1;
      if (data[i] != null) {
        return new ByteArrayInputStream(data[i]);
      }
      if (file[i] != null) {
        return Files.newInputStream(db.sideDirectory().resolve(file[i]));
      }
      if (chunked[i]) {
        return FlowReader.chunks(c, id, i).open();
      }
      return InputStream.nullInputStream();
    }

    @Override
    public boolean webSocket() {
      return webSocket;
    }

    @Override
    public List<WebSocketMessage> messages() {
      try {
        if (messageQuery == null) {
          messageQuery = c.prepareStatement(
              "SELECT direction, opcode, length, time, payload FROM message WHERE flow = ? ORDER BY seq");
        }
        messageQuery.setLong(1, id);
        List<WebSocketMessage> out = new ArrayList<>();
        try (ResultSet r = messageQuery.executeQuery()) {
          while (r.next()) {
            out.add(new WebSocketMessage(WebSocketMessage.Direction.values()[r.getInt(1)], r.getInt(2), r.getBytes(5),
                r.getLong(3), FlowWriter.instant(r.getLong(4))));
          }
        }
        return out;
      } catch (SQLException e) {
        throw new ReadFailure(e);
      }
    }

    @Override
    public void close() {
      SessionDb.closeQuietly(messageQuery);
    }
  }
}
