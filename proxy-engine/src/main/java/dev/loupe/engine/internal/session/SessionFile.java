package dev.loupe.engine.internal.session;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.har.HarWriter;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.store.DigestCursor;
import dev.loupe.engine.internal.store.FlowReader;
import dev.loupe.engine.internal.store.Recorder;
import dev.loupe.engine.internal.store.SessionDb;
import dev.loupe.engine.internal.store.SessionFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A session file ({@code .loupe}, an SQLite database in WAL mode) open for recording and reading:
 * every flow, losslessly (heads, trailers, 1xx, timings, connection and TLS facts with certificate
 * chains, protocols, tier, rule and breakpoint marks, originals of changed messages, replay links,
 * WebSocket messages and bodies).
 *
 * <h3>Recording</h3>
 * {@link #record} follows a live {@link FlowStore}: flows are written in batches at least every
 * 200 ms by the session's writer thread (a killed Loupe loses at most that), and flows that are
 * written and ended leave the store's memory (beyond the newest thousand). The proxy never waits for
 * the disk. If writing fails (a full disk), capture pauses and {@link #problem()} says why; see
 * {@link #resume()}.
 *
 * <h3>Reading</h3>
 * {@link #summaries} gives table rows by id, {@link #load} a whole flow, {@link #ids} the ids a
 * filter selects in a sort order (in the database where the filter's columns allow, as a streamed
 * scan otherwise), {@link #flows} whole flows one at a time (export). Reads run on any thread and
 * never wait for the writer (WAL).
 *
 * <h3>Files</h3>
 * Bodies larger than 1 MiB wait in {@code FILE-bodies/} while a session is recorded; {@link #close}
 * and {@link #saveAs} fold them into the database, so a saved session is one portable file.
 */
public final class SessionFile implements Session {
  /** The service {@link Session#open} finds. */
  public static final class Factory implements Session.Factory {
    @Override
    public Session open(Path file, Path spillDir, boolean readOnly, Indexing indexing) throws SessionException {
      return readOnly ? SessionFile.openReadOnly(file, spillDir) : SessionFile.open(file, spillDir, indexing);
    }
  }

  private static final Logger LOG = Logger.getLogger(SessionFile.class.getName());

  private final SessionDb db;
  private final FlowReader reader;
  private final SessionFiles files;
  private final ScheduledExecutorService writerThread;
  private volatile Recorder recorder;
  private volatile FlowStore store;
  /** Once set, never cleared: a second close does nothing. Guarded by this. */
  private boolean closed;
  /** Set when closing starts: index builds queued on demand and not started yet are skipped. */
  private volatile boolean closing;
  private final Indexing indexing;
  /** Indexes already queued on demand ({@link Indexing#ON_DEMAND}): each once per open session. */
  private final java.util.Set<String> requested = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private SessionFile(SessionDb db, Path spillDir, Indexing indexing) {
    this.db = db;
    this.indexing = indexing;
    this.reader = new FlowReader(db, spillDir);
    // At the normal priority, not BackgroundThreads': lowered, the writer fell behind on a busy machine (its backlog
    // is flows each young collection copies; at Recorder.MAX_BACKLOG capture pauses) and the UI thread waited no
    // less (docs/PERFORMANCE.md, "The UI thread at 10^6, fifth pass")
    this.writerThread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loupe-session-writer");
      t.setDaemon(true);
      return t;
    });
    this.files = new SessionFiles(db, reader);
    if (!db.readOnly() && indexing == Indexing.LIVE) {
      buildMissingIndexesLater(SessionDb.allIndexes());
    } else if (!db.readOnly() && indexing == Indexing.ON_DEMAND) {
      buildMissingIndexesLater(SessionDb.alwaysIndexes());
      requested.addAll(SessionDb.alwaysIndexes());
    }
  }

  /**
   * Opens {@code file} for recording and reading, creating it if it does not exist. An older
   * session format is migrated (a copy of the file is kept as {@code FILE.v<N>.bak}).
   *
   * @param spillDir where bodies read back from the file go beyond 1 MiB (temporary files)
   * @throws SessionException when the file is not a session, is damaged, or comes from a newer Loupe
   *     (the file is not changed then)
   */
  public static SessionFile open(Path file, Path spillDir) throws SessionException {
    return open(file, spillDir, Indexing.LIVE);
  }

  /** {@link #open(Path, Path)} with the indexes kept as {@code indexing} says (see {@link Session.Indexing}). */
  public static SessionFile open(Path file, Path spillDir, Indexing indexing) throws SessionException {
    return new SessionFile(SessionDb.open(file, indexing), spillDir, indexing);
  }

  /** Opens {@code file} to read only (convert, diff): nothing is written to it. */
  public static SessionFile openReadOnly(Path file, Path spillDir) throws SessionException {
    return new SessionFile(SessionDb.open(file, true), spillDir, Indexing.LIVE);
  }

  /**
   * Queues on the writer thread one task per index of {@code wanted} the file lacks (a recording that
   * deferred them was killed, or built them on demand): recording batches run between them, reads are
   * never blocked (WAL) and filters scan until their index is there. Opening returns at once, so the
   * first page shows as quickly as ever.
   */
  private void buildMissingIndexesLater(java.util.List<String> wanted) {
    java.util.List<String> missing;
    try {
      missing = db.missingIndexes().stream().filter(wanted::contains).toList();
    } catch (SQLException e) {
      LOG.log(Level.WARNING, "cannot read the indexes of " + file(), e);
      return;
    }
    if (missing.isEmpty()) {
      return;
    }
    long t0 = System.nanoTime();
    LOG.info(() -> file() + " lacks " + missing.size() + " indexes (a recording that deferred them was stopped"
        + " before it closed, or one that built them on demand); building them in the background");
    for (int i = 0; i < missing.size(); i++) {
      String sql = missing.get(i);
      boolean last = i == missing.size() - 1;
      writerThread.execute(() -> {
        try {
          files.buildIndex(sql);
          if (last) {
            LOG.info(() -> String.format("indexed %s in %.1f s", file(), (System.nanoTime() - t0) / 1e9));
          }
        } catch (SQLException e) {
          // the file is whole without it (filters scan); the next open for writing tries again
          LOG.log(Level.WARNING, "cannot build an index of " + file() + " (" + sql + ")", e);
        }
      });
    }
  }

  /** The session file. */
  @Override
  public Path file() {
    return db.file();
  }

  @Override
  public boolean readOnly() {
    return db.readOnly();
  }

  // ---- recording -------------------------------------------------------------------------------

  /**
   * Records the flows of {@code live} into this session from now on (its flow ids continue after
   * the file's). At most once per session.
   *
   * @param problems told a sentence when writing fails and capture pauses, and null when writing
   *     works again (on the writer thread)
   * @param keep ended flows kept in {@code live}'s memory once written (the newest)
   */
  @Override
  public synchronized void record(FlowStore live, Consumer<String> problems, int keep) throws SessionException {
    if (readOnly()) {
      throw new IllegalStateException("read-only session " + file());
    }
    if (recorder != null) {
      throw new IllegalStateException("already recording");
    }
    RecordingStore.of(live).continueAfter(maxId());
    this.store = live;
    this.recorder = call(() -> new Recorder(db, files.writer(), live, writerThread,
        Objects.requireNonNull(problems, "problems"), keep), "cannot record");
  }

  /** The store being recorded, or null. */
  @Override
  public FlowStore live() {
    return store;
  }

  /** Writes every flow event published so far; returns when it is on disk. */
  @Override
  public void flush() throws SessionException {
    Recorder r = recorder;
    if (r == null) {
      return;
    }
    r.awaitNoted(10_000);
    boolean ok = call(() -> files.flush(r), "cannot write");
    if (!ok) {
      throw new SessionException(SessionException.Reason.IO, file(), r.problem());
    }
  }

  /** Why recording stopped (a full disk), or null while it works. */
  @Override
  public String problem() {
    Recorder r = recorder;
    return r == null ? null : r.problem();
  }

  /** Tries writing again after a {@link #problem()}; true when it works (capture is then back on). */
  @Override
  public boolean resume() throws SessionException {
    Recorder r = recorder;
    return r == null || call(() -> files.resume(r), "cannot write");
  }

  /** Writing statistics, or null when not recording. */
  public Recorder.Stats stats() {
    Recorder r = recorder;
    return r == null ? null : r.stats();
  }

  // ---- reading ---------------------------------------------------------------------------------

  @Override
  public boolean indexed() throws SessionException {
    return read(() -> db.missingIndexes().isEmpty());
  }

  /** Flows in the file (those still waiting to be written are not counted). */
  @Override
  public long count() throws SessionException {
    return read(reader::count);
  }

  /** The highest flow id in the file, or 0. */
  @Override
  public long maxId() throws SessionException {
    return read(reader::maxId);
  }

  /** The summaries of the flows {@code ids[from, to)} that the file holds, by id. */
  @Override
  public Map<Long, FlowSummary> summaries(long[] ids, int from, int to) throws SessionException {
    return read(() -> reader.summaries(ids, from, to));
  }

  /**
   * The whole flow {@code id}, or null: the live one while the recorded store still holds it (in
   * flight, or among the newest), else read back from the file (bodies beyond 1 MiB in temporary
   * files).
   */
  @Override
  public Flow load(long id) throws SessionException {
    FlowStore live = store;
    Flow f = live == null ? null : live.get(id);
    return f != null ? f : read(() -> reader.load(id));
  }

  @Override
  public void release(Flow loaded) {
    FlowStore live = store;
    if (loaded == null || (live != null && live.get(loaded.id()) == loaded)) {
      return;
    }
    RecordedFlow f = RecordedFlow.of(loaded);
    for (RecordedBody b : new RecordedBody[] {f.requestBody(), f.responseBody(), f.originalRequestBody(),
        f.originalResponseBody()}) {
      if (b != null) {
        b.release();
      }
    }
  }

  /** The live flow of {@code stored}'s id while the recorded store holds it (its newest state), else {@code stored}. */
  private Flow liveOr(Flow stored) {
    FlowStore live = store;
    Flow f = live == null ? null : live.get(stored.id());
    return f != null ? f : stored;
  }

  /**
   * Feeds {@code sink} the ids of the flows in the file that {@code filter} matches, sorted by
   * {@code key}, until it returns false or {@code stop} is true. Streams: a body search over a
   * million flows holds one flow at a time.
   */
  @Override
  public void ids(Filter filter, SortKey key, boolean descending, LongPredicate sink, BooleanSupplier stop)
      throws SessionException {
    if (indexing == Indexing.ON_DEMAND && !readOnly()) {
      indexOnDemand(filter, key);
    }
    read(() -> {
      reader.ids(filter, key, descending, sink::test, stop);
      return null;
    });
  }

  /**
   * Queues on the writer thread the build of each index a query of {@code filter} sorted by {@code key}
   * could use and that was not asked for before ({@link Indexing#ON_DEMAND}). The query itself does not
   * wait: until the index is there it scans, with the same answers.
   */
  private void indexOnDemand(Filter filter, SortKey key) {
    for (String sql : SessionDb.indexesFor(filter, key)) {
      if (closing || !requested.add(sql)) {
        continue;
      }
      try {
        writerThread.execute(() -> buildOnDemand(sql));
      } catch (java.util.concurrent.RejectedExecutionException closedMeanwhile) {
        return; // the session closed while this query started: it answers (or fails) as any read then does
      }
    }
  }

  /** Writer thread: builds {@code sql}'s index unless the session is closing. */
  private void buildOnDemand(String sql) {
    if (closing) {
      return; // closing builds none: the file is whole without it, and the next open asks again
    }
    try {
      long t0 = System.nanoTime();
      files.buildIndex(sql);
      LOG.fine(() -> String.format("%s: %s in %.1f s", file(), sql, (System.nanoTime() - t0) / 1e9));
    } catch (SQLException e) {
      requested.remove(sql); // filters scan meanwhile; the next query asks again
      LOG.log(Level.WARNING, "cannot build an index of " + file() + " (" + sql + ")", e);
    }
  }

  /** Feeds {@code visitor} every flow {@code filter} matches, whole, in id order. */
  @Override
  public void flows(Filter filter, FlowVisitor visitor, BooleanSupplier stop) throws SessionException {
    read(() -> {
      reader.flows(filter, visitor::visit, stop);
      return null;
    });
  }

  /**
   * The flows in the file as digests, in the order a diff merges them ({@link DigestSource}); flows
   * still waiting to be written are written first. Close the source when done.
   */
  @Override
  public DigestSource digests(DiffOptions options) throws SessionException {
    if (!readOnly() && recorder != null) {
      flush();
    }
    return read(() -> new DigestCursor(db, reader, options.mode()));
  }

  // ---- files -----------------------------------------------------------------------------------

  /**
   * Adds the entries of the HAR file {@code har} as flows marked imported (after the flows
   * already here). Lenient: what can be read is imported, the rest is listed in the report.
   *
   * @throws SessionException when {@code har} is not a HAR at all (nothing is imported then)
   */
  @Override
  public ImportReport importHar(Path har) throws SessionException {
    FlowStore live = store;
    return call(() -> files.importHar(har, live), "cannot import " + har);
  }

  /** Writes the flows {@code filter} matches as a HAR 1.2 file, atomically; returns how many. */
  @Override
  public long exportHar(Path har, Filter filter) throws SessionException {
    flush();
    long[] n = {0};
    try {
      HarWriter.writeAtomically(() -> new FlowIterator(filter, n), har);
    } catch (IOException | RuntimeException e) {
      Throwable cause = e.getCause() instanceof SessionException s ? s : e;
      throw new SessionException(SessionException.Reason.IO, har, "cannot write " + har + ": " + cause.getMessage(), e);
    }
    return n[0];
  }

  /** Streams flows to the HAR writer from a thread reading the file, a few at a time. */
  private final class FlowIterator implements java.util.Iterator<Flow> {
    private final java.util.concurrent.BlockingQueue<Object> queue = new java.util.concurrent.ArrayBlockingQueue<>(16);
    private final long[] count;
    private Object next;
    private volatile boolean abandoned;
    private static final Object END = new Object();

    FlowIterator(Filter filter, long[] count) {
      this.count = count;
      Thread t = new Thread(() -> {
        try {
          flows(filter, f -> put(liveOr(f)), () -> abandoned);
          put(END);
        } catch (SessionException e) {
          put(e);
        }
      }, "loupe-session-export");
      t.setDaemon(true);
      t.start();
    }

    private void put(Object o) {
      try {
        while (!abandoned && !queue.offer(o, 100, TimeUnit.MILLISECONDS)) {
          // the writer is slow; wait
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    @Override
    public boolean hasNext() {
      if (next == null) {
        try {
          next = queue.take();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          abandoned = true;
          throw new IllegalStateException("interrupted", e);
        }
      }
      if (next instanceof SessionException e) {
        abandoned = true;
        throw new IllegalStateException(e.getMessage(), e);
      }
      return next != END;
    }

    @Override
    public Flow next() {
      if (!hasNext()) {
        throw new java.util.NoSuchElementException();
      }
      Flow f = (Flow) next;
      next = null;
      count[0]++;
      return f;
    }
  }

  /**
   * Writes this session to {@code target} as one portable file (bodies folded in) and returns;
   * this session stays open on its own file. {@code target} is replaced atomically.
   */
  @Override
  public void saveAs(Path target) throws SessionException {
    flush();
    call(() -> {
      files.saveAs(target);
      return null;
    }, "cannot save to " + target);
  }

  /** Deletes every flow (and its side files) from the file. */
  @Override
  public void clear() throws SessionException {
    Recorder r = recorder;
    call(() -> {
      files.clear(r);
      return null;
    }, "cannot clear");
  }

  /** Stops recording, writes what is left, folds side files in and closes the file; again: nothing. */
  @Override
  public void close() throws SessionException {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    closing = true;
    SessionException failure = null;
    Recorder r = recorder;
    if (r != null) {
      try {
        flush();
      } catch (SessionException e) {
        failure = e;
      }
      r.close();
    }
    if (!readOnly()) {
      try {
        call(() -> {
          files.fold();
          return null;
        }, "cannot fold bodies into");
      } catch (SessionException e) {
        failure = failure == null ? e : failure;
      }
      // on demand: none (closing the window stays quick; the next open builds what its queries use)
      if (indexing != Indexing.ON_DEMAND) {
        try { // a deferred recording's indexes, or those a background build has not reached yet
          call(() -> {
            files.buildIndexes();
            return null;
          }, "cannot index");
        } catch (SessionException e) {
          // every flow is saved; the file is whole without them (filters scan) and the next open builds them
          LOG.log(Level.WARNING, e.getMessage() + "; it is built when the file is next opened for writing", e);
        }
      }
    }
    writerThread.shutdown();
    try {
      writerThread.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    db.close();
    if (failure != null) {
      throw failure;
    }
  }

  // ---- plumbing --------------------------------------------------------------------------------

  /** Runs {@code task} on the writer thread and waits for it. */
  private <T> T call(Callable<T> task, String doing) throws SessionException {
    try {
      return writerThread.submit(task).get();
    } catch (ExecutionException e) {
      throw failure(e.getCause(), doing);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SessionException(SessionException.Reason.IO, file(), doing + " " + file() + ": interrupted", e);
    }
  }

  /** A read on the calling thread. */
  private <T> T read(Callable<T> task) throws SessionException {
    try {
      return task.call();
    } catch (Exception e) {
      throw failure(e, "cannot read");
    }
  }

  private SessionException failure(Throwable e, String doing) {
    if (e instanceof SessionException s) {
      return s;
    }
    if (e instanceof SQLException sql) {
      return SessionDb.translate(file(), sql, doing);
    }
    if (e instanceof java.io.UncheckedIOException u) {
      e = u.getCause();
    }
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    return new SessionException(SessionException.Reason.IO, file(), file() + ": " + doing + ": " + message, e);
  }
}
