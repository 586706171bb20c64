package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.api.util.BackgroundThreads;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.common.FxThread;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.ObservableList;

/**
 * The flow table's model: the flows of the live store and of a {@link FlowCatalog} (a session file),
 * as rows made only when shown, kept up with the engine by <b>batches</b>.
 *
 * <h3>Live flows</h3>
 * Flow events arrive on the store's delivery thread and are only recorded (the newest state per
 * flow wins); at most {@value #DEFAULT_PULSES_PER_SECOND} times a second the pending flows are turned
 * into rows on the pulse thread (their columns read once: half of a batch's cost, off the UI thread) and
 * applied on the UI thread in one go, so a burst of thousands of flows per second costs a few list
 * changes, not one per event.
 *
 * <h3>Filter and order</h3>
 * {@link #visibleRows()} is the rows the filter lets through ({@link #filter(String)}, the shared
 * filter language), in the order {@link #sort} asked for. A new filter or order is answered on a
 * worker thread: by the catalog for stored flows (SQL where the filter allows, a streamed scan
 * otherwise), by {@link Filter#test} for the live ones; the UI thread then only places the answer.
 * Live flows that change meanwhile are matched again as they come. While the user types, only the
 * newest expression's answer is applied. A syntax error leaves the previous filter in force and is
 * reported in {@link #filterErrorProperty()}.
 *
 * <h3>Memory</h3>
 * The lists hold ids (eight bytes a flow); rows exist for the live store's flows and a bounded cache
 * of stored ones ({@link RowSource}), so a million-flow session costs what is on screen plus a cache.
 * Only the rows of flows the store holds keep their flows: a few batches after the store lets a flow
 * go, its row is swept to a stored one, read back from the catalog when opened.
 *
 * <p>All list and property changes happen on the UI thread ({@link FxThread}); the view model holds
 * no JavaFX nodes and is tested without a display.
 */
public final class FlowListViewModel implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(FlowListViewModel.class.getName());
  static final int DEFAULT_PULSES_PER_SECOND = 30;

  private final FxThread fx;
  private final FlowStore store;
  private final RowSource rows;
  /** Every flow, by id. */
  private final FlowRows all;
  /** The flows the shown filter lets through, in the shown order. */
  private final FlowRows visible;
  private final ObservableList<FlowRow> readOnlyAll;
  private final ObservableList<FlowRow> readOnlyVisible;
  private final ReadOnlyIntegerWrapper count = new ReadOnlyIntegerWrapper(this, "count");
  private final ReadOnlyStringWrapper filterError = new ReadOnlyStringWrapper(this, "filterError", "");
  private final ReadOnlyBooleanWrapper filtering = new ReadOnlyBooleanWrapper(this, "filtering");
  private final Object lock = new Object();
  /** Flows changed since the last batch, newest state wins, first-arrival order (guarded by lock). */
  private LinkedHashMap<Long, Flow> pending = new LinkedHashMap<>();
  private boolean batchPosted;
  /** Increases when the pending flows are dropped (clear, a new catalog): rows made before are dropped too. */
  private long epoch;
  private final FlowStore.Subscription subscription;
  private final ScheduledExecutorService pulse;
  private final Executor worker;
  /** What the visible rows show (UI thread). */
  private Filter shownFilter = Filter.ALL;
  /** {@link #shownFilter} for the pulse thread, which matches a batch's flows with it. */
  private volatile Filter batchFilter = Filter.ALL;
  /** What was asked for last (UI thread); shown once its answer arrives. */
  private Filter filter = Filter.ALL;
  private SortKey key = SortKey.ID;
  private boolean descending;
  /** Increases with each new filter, order or catalog; an older answer is dropped, an older scan stops. */
  private volatile long generation;
  /** Increases with each new catalog (or clear): an older answer for the "all" list is dropped. */
  private volatile long allGeneration;
  /** Answers asked for and not applied yet (UI thread). */
  private int waiting;
  /** Live flows batched while answers were pending: matched again when one arrives (UI thread). */
  private final Set<Long> touched = new HashSet<>();
  private int pulses;
  /** Pulses that found no flow pending (pulse thread, under {@code lock}). */
  private int idlePulses;

  /** Follows {@code store}, every flow in memory (flows already in it are loaded first). */
  public FlowListViewModel(FlowStore store, FxThread fx) {
    this(store, FlowCatalog.NONE, fx, DEFAULT_PULSES_PER_SECOND, null);
  }

  /** Follows {@code store} and shows the flows of {@code catalog} (a session file) with them. */
  public FlowListViewModel(FlowStore store, FlowCatalog catalog, FxThread fx) {
    this(store, catalog, fx, DEFAULT_PULSES_PER_SECOND, null);
  }

  FlowListViewModel(FlowStore store, FxThread fx, int pulsesPerSecond, Executor filterWorker) {
    this(store, FlowCatalog.NONE, fx, pulsesPerSecond, filterWorker);
  }

  /** {@code filterWorker} null: a daemon thread of its own. */
  FlowListViewModel(FlowStore store, FlowCatalog catalog, FxThread fx, int pulsesPerSecond, Executor filterWorker) {
    this.fx = fx;
    this.store = store;
    this.rows = new RowSource(store, catalog);
    this.all = new FlowRows(rows);
    this.visible = new FlowRows(rows);
    this.readOnlyAll = javafx.collections.FXCollections.unmodifiableObservableList(all);
    this.readOnlyVisible = javafx.collections.FXCollections.unmodifiableObservableList(visible);
    // The worker and the pulse run below the UI thread (docs/PERFORMANCE.md, "The UI thread at 10^6, fifth pass")
    this.worker = filterWorker != null ? filterWorker
        : Executors.newSingleThreadExecutor(BackgroundThreads.factory("loupe-ui-filter", false));
    this.subscription = store.subscribe(this::onEvent, 100_000);
    if (catalog == FlowCatalog.NONE) {
      for (Flow f : store.snapshot()) { // all in memory: the first rows come at once
        record(f);
      }
    } else {
      query(true);
    }
    pulse = pulsesPerSecond <= 0 ? null
        : Executors.newSingleThreadScheduledExecutor(BackgroundThreads.factory("loupe-ui-pulse", false));
    if (pulse != null) {
      long period = 1_000_000 / pulsesPerSecond;
      pulse.scheduleAtFixedRate(this::postBatch, period, period, TimeUnit.MICROSECONDS);
    }
  }

  /** Every row, in arrival (id) order (UI thread). */
  public ObservableList<FlowRow> rows() {
    // One wrapper for everyone: an unmodifiable wrapper forwards changes only while it is reachable,
    // so a listener added to a fresh one per call would stop hearing once that wrapper is collected.
    return readOnlyAll;
  }

  /** The rows the current filter lets through, in the current order (UI thread). */
  public ObservableList<FlowRow> visibleRows() {
    return readOnlyVisible;
  }

  /** The visible rows themselves (the table's window reads their ids). */
  FlowRows visibleList() {
    return visible;
  }

  /** How many flows the table holds. */
  public ReadOnlyIntegerProperty countProperty() {
    return count.getReadOnlyProperty();
  }

  /** The filter's syntax error ("expected ')' at 12"), or empty. */
  public ReadOnlyStringProperty filterErrorProperty() {
    return filterError.getReadOnlyProperty();
  }

  /** True from a {@link #filter} or {@link #sort} call until its answer is applied. */
  public ReadOnlyBooleanProperty filteringProperty() {
    return filtering.getReadOnlyProperty();
  }

  /** The filter shown (after its answer arrived). */
  public Filter shownFilter() {
    return shownFilter;
  }

  public SortKey sortKey() {
    return key;
  }

  public boolean sortDescending() {
    return descending;
  }

  /**
   * Applies {@code expression} (blank: everything). A syntax error keeps the previous filter and
   * sets {@link #filterErrorProperty()}. Call on the UI thread.
   */
  public void filter(String expression) {
    try {
      filter = Filter.parse(expression == null ? "" : expression);
      filterError.set("");
    } catch (FilterSyntaxException e) {
      filterError.set(e.getMessage());
      return;
    }
    query(false);
  }

  /** Orders the visible rows by {@code key} (ties by id). Call on the UI thread. */
  public void sort(SortKey key, boolean descending) {
    if (key == this.key && descending == this.descending) {
      return;
    }
    this.key = key;
    this.descending = descending;
    query(false);
  }

  /** Shows {@code next}'s flows instead (a session opened); the rows are read again. UI thread. */
  public void catalog(FlowCatalog next) {
    synchronized (lock) {
      pending = new LinkedHashMap<>();
      epoch++;
    }
    rows.reset(next);
    allGeneration++;
    all.replace(SortKey.ID, false, new long[0], 0);
    visible.replace(key, descending, new long[0], 0);
    count.set(0);
    query(true);
  }

  /**
   * Asks the worker for the ids of the visible rows (and of every row, {@code everything}: a new
   * catalog); the newest request of each wins. Everything in the live store and in the catalog,
   * filter and order as now.
   */
  private void query(boolean everything) {
    long gen = ++generation;
    Filter f = filter;
    SortKey k = key;
    boolean desc = descending;
    FlowCatalog catalog = rows.catalog();
    if (everything) {
      long allGen = ++allGeneration;
      ask(() -> Answer.of(store, catalog, Filter.ALL, SortKey.ID, false, () -> allGen != allGeneration),
          a -> {
            if (allGen == allGeneration) {
              place(all, a);
              count.set(all.size());
              if (shownFilter == Filter.ALL && key == SortKey.ID && !filtering.get()) {
                visible.replace(key, descending, everyId(descending), all.size());
              }
            }
          });
    }
    if (f == Filter.ALL && k == SortKey.ID) {
      // every row in id order is what the "all" list holds (or will, when its answer comes): no query
      filtering.set(false);
      shownFilter = f;
      batchFilter = f;
      visible.replace(k, desc, everyId(desc), all.size());
      return;
    }
    filtering.set(true);
    ask(() -> Answer.of(store, catalog, f, k, desc, () -> gen != generation), a -> {
      if (gen == generation) {
        shownFilter = f;
        batchFilter = f;
        place(visible, a);
        filtering.set(false);
      }
    });
  }

  /** Every id, ascending or descending. */
  private long[] everyId(boolean desc) {
    long[] ids = all.displayIds();
    if (desc) {
      for (int i = 0, j = ids.length - 1; i < j; i++, j--) {
        long t = ids[i];
        ids[i] = ids[j];
        ids[j] = t;
      }
    }
    return ids;
  }

  /** Runs {@code question} on the worker and {@code answer} with its result on the UI thread. */
  private void ask(java.util.concurrent.Callable<Answer> question, java.util.function.Consumer<Answer> answer) {
    waiting++;
    worker.execute(() -> {
      Answer a;
      try {
        a = question.call();
      } catch (Exception e) {
        LOG.log(Level.WARNING, "reading the flows", e);
        fx.post(() -> {
          done();
          filtering.set(false);
          filterError.set("cannot read the session: " + e.getMessage());
        });
        return;
      }
      fx.post(() -> {
        if (a != null) {
          answer.accept(a);
        }
        done();
      });
    });
  }

  /** An answer arrived (or gave up): live flows batched meanwhile are matched again with what is shown. */
  private void done() {
    waiting--;
    List<Flow> again = new ArrayList<>();
    for (long id : touched) {
      Flow live = store.get(id);
      if (live != null) {
        again.add(live);
      }
    }
    if (waiting <= 0) {
      waiting = 0;
      touched.clear();
    }
    if (!again.isEmpty()) {
      boolean[] matches = new boolean[again.size()];
      for (int i = 0; i < matches.length; i++) {
        matches[i] = shownFilter.test(again.get(i));
      }
      applyRows(new Batch(again.stream().map(rows::rowOf).toList(), again, shownFilter, matches));
    }
  }

  /** Puts the stored ids and the live matches of an answer in order into {@code list}. */
  private void place(FlowRows list, Answer a) {
    List<FlowRow> live = new ArrayList<>(a.live().size());
    for (Flow f : a.live()) {
      FlowRow known = rows.liveRow(f.id());
      FlowRow row = known != null ? known : rows.rowOf(f);
      rows.putLive(row);
      live.add(row);
    }
    list.replace(a.key(), a.descending(), a.stored(), a.storedCount());
    list.begin();
    list.insertAll(live);
    list.end();
  }

  /** Forgets every row (the store and the catalog are cleared separately). UI thread. */
  public void clear() {
    synchronized (lock) {
      pending = new LinkedHashMap<>();
      epoch++;
    }
    rows.reset(rows.catalog());
    allGeneration++;
    generation++;
    all.replace(SortKey.ID, false, new long[0], 0);
    visible.replace(key, descending, new long[0], 0);
    count.set(0);
  }

  private void onEvent(FlowEvent e) {
    record(e.flow());
  }

  private void record(Flow f) {
    synchronized (lock) {
      pending.put(f.id(), f);
    }
  }

  /** Waits until every flow event published so far has been recorded (tests). */
  boolean awaitRecorded(long timeout, TimeUnit unit) {
    return subscription.awaitIdle(timeout, unit);
  }

  /** Live rows beyond the store's size that make a batch sweep (see {@code applyBatch}). */
  static final int SWEEP_SLACK = 4096;
  /**
   * Batches between sweeps (see {@code applyBatch}): at 30 batches a second, a flow the session wrote leaves the
   * UI's memory within about 130 ms of leaving the store's. A sweep looks up each live row in the store: as many as
   * the store holds (a few thousand while the session's writer keeps up, tens of thousands while it catches up).
   */
  static final int SWEEP_EVERY = 4;

  /**
   * On the pulse thread: turns the pending flows into rows and posts them; one batch in flight at most;
   * while no flow arrives, an empty batch every 64 pulses, so rows of flows the store let go after the
   * last arrivals are swept too.
   */
  void postBatch() {
    LinkedHashMap<Long, Flow> batch;
    long of;
    synchronized (lock) {
      if (batchPosted || (pending.isEmpty() && ++idlePulses % 64 != 0)) {
        return;
      }
      batchPosted = true;
      batch = pending;
      pending = new LinkedHashMap<>();
      of = epoch;
    }
    List<FlowRow> made = new ArrayList<>(batch.size());
    Filter filter = batchFilter;
    boolean[] matches = new boolean[batch.size()];
    int i = 0;
    for (Flow f : batch.values()) {
      matches[i++] = filter.test(f); // first: a row made after shows at least what matched
      made.add(rows.rowOf(f)); // a snapshot of the flow's columns, as the UI thread would have read them
    }
    List<Flow> flows = new ArrayList<>(batch.values());
    fx.post(() -> applyBatch(new Batch(made, flows, filter, matches), of));
  }

  /**
   * Rows of live flows, their flows (held only until the batch is applied: a row of an ended flow refers to it by
   * id), and whether each matched {@code filter}.
   */
  private record Batch(List<FlowRow> rows, List<Flow> flows, Filter filter, boolean[] matches) {
    /** Whether row {@code i} matches {@code shown} (matched again if the filter changed since). */
    boolean matches(int i, Filter shown) {
      return shown == filter ? matches[i] : shown.test(flows.get(i));
    }
  }

  /** On the UI thread: applies a batch of rows, one list change per list. */
  private void applyBatch(Batch made, long of) {
    List<FlowRow> batch = made.rows();
    synchronized (lock) {
      batchPosted = false;
      if (of != epoch) {
        return; // made before a clear or a new catalog
      }
    }
    if (batch.isEmpty()) {
      if (rows.liveRows() > store.size()) {
        rows.sweep(visible.key() == SortKey.ID);
      }
      return;
    }
    if (waiting > 0) {
      for (FlowRow r : batch) {
        touched.add(r.id());
      }
    }
    applyRows(made);
    // rows of flows the session wrote and the store let go become stored rows, without their flows: every few
    // batches, and whenever the live rows outgrow the store by a few thousand (a starved UI thread makes few, big
    // batches: counting batches alone let a whole ingest's rows, and their flows, pile up here). Flows held here
    // after the store let them go outlive young collections and are copied by each (docs/PERFORMANCE.md, issue 15)
    if (++pulses % SWEEP_EVERY == 0 || rows.liveRows() > store.size() + SWEEP_SLACK) {
      rows.sweep(visible.key() == SortKey.ID);
    }
  }

  /** Rows of live flows ({@link FlowRow#of}), in arrival order. */
  private void applyRows(Batch made) {
    List<FlowRow> addAll = new ArrayList<>();
    List<FlowRow> addVisible = new ArrayList<>();
    all.begin();
    visible.begin();
    for (int i = 0; i < made.rows().size(); i++) {
      FlowRow row = made.rows().get(i);
      // as last shown: a live row, or a swept one (a state of the flow still pending when the sweep took its row); in
      // id order the place is found by id, in another the last shown columns say where the row is (read back if the
      // sweep dropped the row)
      FlowRow was = visible.key() == SortKey.ID ? rows.known(row.id()) : rows.lastShown(row.id());
      int inAll = all.indexOf(row.id(), was);
      int inVisible = visible.indexOf(row.id(), was);
      rows.putLive(row);
      upsert(all, inAll, was, row, true, addAll);
      upsert(visible, inVisible, was, row, made.matches(i, shownFilter), addVisible);
    }
    all.insertAll(addAll);
    visible.insertAll(addVisible);
    all.end();
    visible.end();
    count.set(all.size());
  }

  private static void upsert(FlowRows list, int index, FlowRow was, FlowRow row, boolean matches, List<FlowRow> adds) {
    if (index < 0) {
      if (matches) {
        adds.add(row);
      }
    } else if (!matches) {
      list.removeAt(index, was != null ? was : row);
    } else if (list.inOrder(index, row)) {
      list.updated(index, was != null ? was : row);
    } else {
      list.removeAt(index, was != null ? was : row);
      adds.add(row);
    }
  }

  /** Live rows held (tests, diagnostics). */
  int liveRows() {
    return rows.liveRows();
  }

  /** Stored rows kept in the row cache (tests, diagnostics). */
  int cachedRows() {
    return rows.cachedRows();
  }

  @Override
  public void close() {
    generation++;
    allGeneration++;
    if (worker instanceof ExecutorService own) {
      own.shutdownNow();
    }
    if (pulse != null) {
      pulse.shutdownNow();
    }
    subscription.close();
  }

  /**
   * What the worker found for one filter and order: the stored flows' ids in order (live ones left
   * out) and the live flows that match.
   */
  record Answer(SortKey key, boolean descending, long[] stored, int storedCount, List<Flow> live) {
    /** Null when {@code stop} said to give up. */
    static Answer of(FlowStore store, FlowCatalog catalog, Filter f, SortKey key, boolean desc,
        java.util.function.BooleanSupplier stop) throws SessionException {
      List<Flow> liveFlows = store.snapshot();
      Set<Long> liveIds = new HashSet<>(liveFlows.size() * 2);
      List<Flow> matching = new ArrayList<>();
      int n = 0;
      for (Flow fl : liveFlows) {
        liveIds.add(fl.id());
        if ((++n & 1023) == 0 && stop.getAsBoolean()) {
          return null;
        }
        if (f.test(fl)) {
          matching.add(fl);
        }
      }
      long[][] ids = {new long[1024]};
      int[] count = {0};
      catalog.ids(f, key, desc, id -> {
        if (!liveIds.contains(id)) {
          if (count[0] == ids[0].length) {
            ids[0] = Arrays.copyOf(ids[0], ids[0].length * 2);
          }
          ids[0][count[0]++] = id;
        }
        return true;
      }, stop);
      if (stop.getAsBoolean()) {
        return null;
      }
      return new Answer(key, desc, ids[0], count[0], matching);
    }
  }
}
