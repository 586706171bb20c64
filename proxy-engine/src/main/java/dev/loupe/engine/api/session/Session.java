package dev.loupe.engine.api.session;

import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * A session file ({@code .loupe}, an SQLite database) open for recording and reading: every flow,
 * losslessly. The file and its SQL are the engine's (its internal store); this is what the window,
 * the control API, headless {@code --session} and {@code loupe convert} hold. Open one with {@link
 * #open} or {@link #openReadOnly}; the engine's implementation is found through {@link
 * ServiceLoader} ({@code META-INF/services/dev.loupe.engine.api.session.Session$Factory}), so this
 * package depends on no internal one.
 *
 * <h3>Recording</h3>
 * {@link #record} follows a live {@link FlowStore}: flows are written in batches by the session's
 * writer thread, and flows that are written and ended leave the store's memory (beyond the newest
 * thousand). The proxy never waits for the disk. If writing fails (a full disk), capture pauses and
 * {@link #problem()} says why; see {@link #resume()}.
 *
 * <h3>Indexes</h3>
 * Filters and column sorts look up secondary indexes of the file. Keeping them up to date costs
 * the writer most of its time per flow, so a session that is recorded but not browsed meanwhile
 * (headless {@code --session}) can be opened with {@link Indexing#DEFERRED}: it is written without
 * them and they are built when it closes. A file opened for writing that lacks them (a deferred
 * recording killed before it closed) gets them built in the background on the writer thread; until
 * then, and in a file opened read-only (never written to), filters give the same answers by
 * scanning. The window records with {@link Indexing#ON_DEMAND}: each index is built the first time a
 * query could use it. {@link #indexed()} tells.
 *
 * <h3>Reading</h3>
 * {@link #summaries} gives table rows by id, {@link #load} a whole flow, {@link #ids} the ids a
 * filter selects in a sort order, {@link #flows} whole flows one at a time (export). Reads run on
 * any thread and never wait for the writer.
 */
public interface Session extends AutoCloseable {
  /**
   * Opens {@code file} for recording and reading, creating it if it does not exist. An older
   * session format is migrated (a copy of the file is kept as {@code FILE.v<N>.bak}).
   *
   * @param spillDir where bodies read back from the file go beyond 1 MiB (temporary files)
   * @throws SessionException when the file is not a session, is damaged, or comes from a newer Loupe
   *     (the file is not changed then)
   */
  static Session open(Path file, Path spillDir) throws SessionException {
    return open(file, spillDir, Indexing.LIVE);
  }

  /**
   * {@link #open(Path, Path)} with the indexes kept as {@code indexing} says while the session is
   * open for writing.
   */
  static Session open(Path file, Path spillDir, Indexing indexing) throws SessionException {
    return Provider.FACTORY.open(file, spillDir, false, indexing);
  }

  /**
   * Opens {@code file} to read only (convert, diff): nothing is written to it. A file without its
   * indexes stays so; its filters scan.
   */
  static Session openReadOnly(Path file, Path spillDir) throws SessionException {
    return Provider.FACTORY.open(file, spillDir, true, Indexing.LIVE);
  }

  /** How a session open for writing keeps the indexes its filters and sorts look up. */
  enum Indexing {
    /**
     * Kept up to date as flows are written, so filters are quick while recording (the window). A file
     * that lacks them gets them built in the background after it opens (on the writer thread, one
     * index at a time, recording batches in between); until then filters scan and listing every id
     * reads the whole table (seconds for 10<sup>6</sup> flows instead of about one).
     */
    LIVE,
    /**
     * Dropped when the file opens and built when it closes: each flow costs the writer about a quarter
     * of what it does with {@link #LIVE} (docs/PERFORMANCE.md), and filters scan meanwhile (headless
     * {@code --session}). Closing takes longer: the build, 10-20 s per 10<sup>6</sup> flows on a shared
     * 2-core machine. A killed recording leaves the file without them until it is next opened for
     * writing.
     */
    DEFERRED,
    /**
     * Built when first needed (the window): a new file gets the indexes on the start time (new rows
     * append to it; counting reads it) and on the status (few values; the most common head filter)
     * only; every other index is built, on the writer thread between recording batches, the first time
     * a filter or a column sort could use it ({@link #ids}), and kept up to date from then on. That
     * query and those until the index is there scan, with the same answers. Until the user sorts or
     * filters on those columns the writer costs about what {@link #DEFERRED} costs (docs/PERFORMANCE.md,
     * "The window's writer and GC"). Indexes a file already has are kept; closing builds none (a file
     * without some is whole: see {@link #indexed()}).
     */
    ON_DEMAND
  }

  /** Opens session files; the engine's store is the one implementation. */
  interface Factory {
    /** See {@link Session#open} and {@link Session#openReadOnly}. */
    Session open(Path file, Path spillDir, boolean readOnly, Indexing indexing) throws SessionException;
  }

  /** The file's implementation, loaded once. */
  final class Provider {
    static final Factory FACTORY = ServiceLoader.load(Factory.class, Session.class.getClassLoader())
        .findFirst().orElseThrow(() -> new IllegalStateException("the engine's session store is missing from the"
            + " class path (META-INF/services/" + Factory.class.getName() + ")"));

    private Provider() {}
  }

  /** The session file. */
  Path file();

  boolean readOnly();

  /**
   * Records the flows of {@code live} into this session from now on (its flow ids continue after
   * the file's). At most once per session.
   *
   * @param problems told a sentence when writing fails and capture pauses, and null when writing
   *     works again (on the writer thread)
   */
  default void record(FlowStore live, Consumer<String> problems) throws SessionException {
    record(live, problems, KEEP_IN_MEMORY);
  }

  /** Ended flows {@link #record(FlowStore, Consumer)} keeps in the live store's memory once written (the newest). */
  int KEEP_IN_MEMORY = 1000;

  /**
   * {@link #record(FlowStore, Consumer)}, keeping at most the newest {@code keep} ended flows in the
   * live store's memory once they are written (0: each leaves it once it is on disk; the session
   * reads flows back from the file either way). A recording that nobody browses (headless) keeps
   * none: each flow kept longer in memory is one more the collector copies.
   */
  void record(FlowStore live, Consumer<String> problems, int keep) throws SessionException;

  /** The store being recorded, or null. */
  FlowStore live();

  /** Writes every flow event published so far; returns when it is on disk. */
  void flush() throws SessionException;

  /** Why recording stopped (a full disk), or null while it works. */
  String problem();

  /** Tries writing again after a {@link #problem()}; true when it works (capture is then back on). */
  boolean resume() throws SessionException;

  /**
   * Whether the file has every index its filters and sorts look up (false while a {@link
   * Indexing#DEFERRED} session is open, while they are being built after opening a file that lacked
   * them, and for such a file opened read-only). Filters give the same answers either way.
   */
  boolean indexed() throws SessionException;

  /** Flows in the file (those still waiting to be written are not counted). */
  long count() throws SessionException;

  /** The highest flow id in the file, or 0. */
  long maxId() throws SessionException;

  /** The summaries of the flows {@code ids[from, to)} that the file holds, by id. */
  Map<Long, FlowSummary> summaries(long[] ids, int from, int to) throws SessionException;

  /**
   * The whole flow {@code id}, or null: the live one while the recorded store still holds it (in
   * flight, or among the newest), else read back from the file (bodies beyond 1 MiB in temporary
   * files).
   */
  Flow load(long id) throws SessionException;

  /**
   * Deletes the temporary files of a flow {@link #load} read back from the file, once its reader is
   * done with it (the flow then reads as its in-memory part). A flow the live store still holds is
   * left alone.
   */
  void release(Flow loaded);

  /**
   * Feeds {@code sink} the ids of the flows in the file that {@code filter} matches, sorted by
   * {@code key}, until it returns false or {@code stop} is true. Streams: a body search over a
   * million flows holds one flow at a time.
   */
  void ids(Filter filter, SortKey key, boolean descending, LongPredicate sink, BooleanSupplier stop)
      throws SessionException;

  /** A whole flow, handed over one at a time. */
  @FunctionalInterface
  interface FlowVisitor {
    void visit(Flow flow) throws IOException;
  }

  /** Feeds {@code visitor} every flow {@code filter} matches, whole, in id order. */
  void flows(Filter filter, FlowVisitor visitor, BooleanSupplier stop) throws SessionException;

  /**
   * The flows in the file as digests, in the order a diff merges them ({@link DigestSource}); flows
   * still waiting to be written are written first. Close the source when done.
   */
  DigestSource digests(DiffOptions options) throws SessionException;

  /**
   * Adds the entries of the HAR file {@code har} as flows marked imported (after the flows
   * already here). Lenient: what can be read is imported, the rest is listed in the report.
   *
   * @throws SessionException when {@code har} is not a HAR at all (nothing is imported then)
   */
  ImportReport importHar(Path har) throws SessionException;

  /** Writes the flows {@code filter} matches as a HAR 1.2 file, atomically; returns how many. */
  long exportHar(Path har, Filter filter) throws SessionException;

  /**
   * Writes this session to {@code target} as one portable file (bodies folded in) and returns;
   * this session stays open on its own file. {@code target} is replaced atomically.
   */
  void saveAs(Path target) throws SessionException;

  /** Deletes every flow (and its side files) from the file. */
  void clear() throws SessionException;

  /** Stops recording, writes what is left, folds side files in and closes the file; again: nothing. */
  @Override
  void close() throws SessionException;
}
