package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.FlowTier;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the table's rows come from, by id: the live store's flows (their rows made once per UI batch),
 * else a bounded cache of rows read from the catalog a page at a time. Memory stays bounded by the
 * live store plus {@link #CACHE} rows and {@link #LOADED} whole flows, however long the session.
 *
 * <h3>Which rows hold their flow</h3>
 * A live row ({@link FlowRow.LiveRef}) holds its flow: the store has it (in flight, at a breakpoint, or
 * not yet written) and the table, the detail pane and the breakpoint editor work on that very object.
 * Once the store lets a flow go (the session wrote it, {@link FlowStore#forget}), {@link #sweep} turns
 * its row into a stored one ({@link StoredRef}: same columns, the flow read back from the catalog when
 * asked): the UI then holds no flow the store does not, so a long ingest leaves nothing behind on the heap
 * for the collector to copy. Without a catalog ({@link FlowCatalog#NONE}) a flow the store let go is in
 * no file, and its row keeps it.
 *
 * <h3>Which swept rows are kept</h3>
 * In id order (the table's default, ascending or descending), only those the table read while they were live
 * (on screen, or read for a list change): the rest are dropped, and read back from the catalog a page at a
 * time if the table ever asks for them. In another order every swept row is kept: there a batch finds a
 * row's place by its last shown columns (a binary search that reads rows). At 5,000 flows
 * a second, caching every swept row kept the newest 8,192 rows (1.6 s of flows) alive: every one of them
 * outlived a young collection, was copied and promoted (docs/PERFORMANCE.md, "The 10^6-flow window's UI p99").
 * A state of a flow still pending when its row was dropped finds its last columns through {@link #lastShown}.
 *
 * <p>UI thread only, apart from {@link #load} (any thread).
 */
final class RowSource {
  private static final Logger LOG = Logger.getLogger(RowSource.class.getName());
  /** Rows read from the catalog kept (a few screens either side of what is shown). */
  static final int CACHE = 8192;
  /** Rows read around a missing one: what the table shows next is usually near. */
  static final int PAGE = 256;
  /** Whole stored flows kept after {@link #load} (the detail pane, replay, compare). */
  static final int LOADED = 16;

  private final FlowStore store;
  private volatile FlowCatalog catalog;
  /** Rows of flows the live store held at the last batch. */
  private final Map<Long, FlowRow> live = new HashMap<>();
  /** Ids of {@link #live} rows the table read ({@link #row}): the rows {@link #sweep} keeps in the cache. */
  private final Set<Long> read = new HashSet<>();
  /** Every row {@link #sweep} dropped has an id below this. */
  private long droppedBelow;
  private final LinkedHashMap<Long, FlowRow> cache = new LinkedHashMap<>(1024, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, FlowRow> eldest) {
      return size() > CACHE;
    }
  };
  private final LinkedHashMap<Long, Flow> loaded = new LinkedHashMap<>(32, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Flow> eldest) {
      if (size() <= LOADED) {
        return false;
      }
      catalog.release(eldest.getValue()); // its spill files, if any, were made for this copy only
      return true;
    }
  };

  RowSource(FlowStore store, FlowCatalog catalog) {
    this.store = store;
    this.catalog = catalog;
  }

  FlowCatalog catalog() {
    return catalog;
  }

  /** Forgets every row (the catalog changed, or the table was cleared). */
  void reset(FlowCatalog next) {
    catalog = next;
    live.clear();
    read.clear();
    droppedBelow = 0;
    cache.clear();
    synchronized (loaded) {
      loaded.clear();
    }
  }

  /**
   * The row of the live flow {@code f} as it is now (any thread). With a catalog, the row of an ended flow (not paused
   * at a breakpoint) refers to it by id ({@link StoredRef}): the store's own object while the store holds it, the
   * file's copy once the session wrote it and the store let it go. So the UI holds no ended flow itself: a flow
   * leaves the heap as soon as the store lets it go, not a sweep later (every flow held across a young collection
   * is copied by it: docs/PERFORMANCE.md, "The UI thread at 10^6, fifth pass"). A flow in flight or at a breakpoint
   * keeps its object ({@link FlowRow.LiveRef}): the engine still changes it, and the detail pane and the breakpoint
   * editor work on that very object. Without a catalog a flow the store let go is in no file: every row keeps its
   * flow.
   */
  FlowRow rowOf(Flow f) {
    Flow.Paused paused = f.paused();
    if (catalog == FlowCatalog.NONE || paused != null || f.state() == FlowState.IN_FLIGHT) {
      return new FlowRow(FlowSummary.of(f), paused, new FlowRow.LiveRef(f));
    }
    return new FlowRow(FlowSummary.of(f), null, new StoredRef(f.id(), this));
  }

  /** The row of a flow the live store holds, made in this batch; returns the previous one. */
  FlowRow putLive(FlowRow row) {
    cache.remove(row.id());
    return live.put(row.id(), row);
  }

  /** The row of {@code id} among the live store's (made by a batch and not swept yet), or null. */
  FlowRow liveRow(long id) {
    return live.get(id);
  }

  /** The last known row of {@code id} without reading the catalog, or null. */
  FlowRow known(long id) {
    FlowRow r = live.get(id);
    return r != null ? r : cache.get(id);
  }

  /**
   * Moves the rows of flows the store no longer holds (written to the file) to the cache, as stored rows: their
   * columns as last shown, their flow read back from the catalog when asked. Flows the store still holds (in
   * flight, paused at a breakpoint, not written yet) keep their live rows. {@code dropUnread}: rows the table did
   * not read while they were live are dropped instead (see the class comment).
   */
  void sweep(boolean dropUnread) {
    boolean stored = catalog != FlowCatalog.NONE;
    for (Iterator<Map.Entry<Long, FlowRow>> it = live.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Long, FlowRow> e = it.next();
      long id = e.getKey();
      if (store.get(id) == null) {
        it.remove();
        FlowRow r = e.getValue();
        if (!read.remove(id) && stored && dropUnread) {
          // never read: the catalog has it, a page read away if the table asks (see the class comment)
          droppedBelow = Math.max(droppedBelow, id + 1);
          continue;
        }
        // the store publishes nothing more for a flow it forgot, so these columns are its last ones; a state
        // still pending for it comes as a new live row (putLive) and takes the place of this one
        cache.put(id, !stored || r.ref() instanceof StoredRef ? r : new FlowRow(r.summary(), null,
            new StoredRef(r.id(), this)));
      }
    }
  }

  /**
   * The row of {@code id} as last shown, for a state of it a batch brings: {@link #known}, else, if {@link #sweep}
   * may have dropped its row, the catalog's (one read; only for a flow the store let go before the UI applied its
   * last state), else null (a flow new to the table).
   */
  FlowRow lastShown(long id) {
    FlowRow r = known(id);
    if (r != null || id >= droppedBelow) {
      return r;
    }
    try {
      FlowSummary s = catalog.summaries(new long[] {id}, 0, 1).get(id);
      if (s != null) {
        r = stored(s);
        cache.put(id, r);
      }
    } catch (SessionException e) {
      LOG.log(Level.WARNING, "reading a row of the session", e);
    }
    return r;
  }

  /** Rows read from the catalog or swept, kept (tests). */
  int cachedRows() {
    return cache.size();
  }

  int liveRows() {
    return live.size();
  }

  /** The row at {@code ids[i]}, reading the page around it from the catalog when it is not known. */
  FlowRow row(long[] ids, int i, int size) {
    long id = ids[i];
    FlowRow r = live.get(id);
    if (r != null) {
      if (catalog != FlowCatalog.NONE) { // without a catalog no row is dropped: reads need no mark
        read.add(id);
      }
      return r;
    }
    r = cache.get(id);
    if (r != null) {
      return r;
    }
    int from = Math.max(0, i - PAGE / 4);
    int to = Math.min(size, from + PAGE);
    long[] missing = new long[to - from];
    int n = 0;
    for (int k = from; k < to; k++) {
      if (known(ids[k]) == null) {
        missing[n++] = ids[k];
      }
    }
    try {
      for (FlowSummary s : catalog.summaries(missing, 0, n).values()) {
        cache.put(s.id(), stored(s));
      }
    } catch (SessionException e) {
      LOG.log(Level.WARNING, "reading rows of the session", e);
    }
    r = known(id);
    if (r == null) {
      r = gone(id);
      cache.put(id, r);
    }
    return r;
  }

  /** A row read from the catalog. */
  FlowRow stored(FlowSummary s) {
    return new FlowRow(s, null, new StoredRef(s.id(), this));
  }

  /** A stand-in row for {@code id} when its columns do not matter (a removed row nobody had read); not cached. */
  FlowRow stub(long id) {
    return gone(id);
  }

  /** A row for an id neither the store nor the catalog has (anymore). */
  private FlowRow gone(long id) {
    return new FlowRow(new FlowSummary(id, Instant.EPOCH, "", "", "", "", 0, "", 0, 0, null, null, FlowTier.RELAY,
        FlowState.FAILED, "not in the session any more", List.of(), -1, false, false, null), null, new StoredRef(id, this));
  }

  /** The whole flow {@code id}: the live one, else read from the catalog (kept for a while); null if gone. */
  Flow load(long id) {
    Flow f = store.get(id);
    if (f != null) {
      return f;
    }
    synchronized (loaded) {
      f = loaded.get(id);
      if (f != null) {
        return f;
      }
    }
    try {
      f = catalog.load(id);
    } catch (SessionException e) {
      LOG.log(Level.WARNING, "reading flow " + id + " of the session", e);
      return null;
    }
    if (f != null) {
      synchronized (loaded) {
        loaded.put(id, f);
      }
    }
    return f;
  }

  /** A stored flow, read when asked. Equal to another ref of the same id from the same source. */
  record StoredRef(long id, RowSource source) implements FlowRow.FlowRef {
    @Override
    public Flow flow() {
      return source.load(id);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof StoredRef s && s.id == id && s.source == source;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(id);
    }
  }

  /** A plain copy of what is known (tests). */
  Map<Long, FlowRow> liveSnapshot() {
    return new HashMap<>(live);
  }
}
