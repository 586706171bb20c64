package dev.loupe.ui.flows;

import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.common.FxThread;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import javafx.collections.transformation.FilteredList;

/**
 * The live flow table's model: one {@link FlowRow} per flow, in arrival order, kept up with the
 * engine by <b>batches</b>. Flow events arrive on the store's delivery thread and are only recorded
 * (the newest state per flow wins); at most {@value #DEFAULT_PULSES_PER_SECOND} times a second the
 * pending flows are turned into rows and applied on the UI thread in one go, so a burst of thousands
 * of flows per second costs a few list changes, not one per event.
 *
 * <p>{@link #visibleRows()} is the rows the filter lets through ({@link #filter(String)}, the shared
 * filter language); a syntax error leaves the previous filter in force and is reported in
 * {@link #filterErrorProperty()}. A new filter is matched against the rows already there on a
 * worker thread (a body search over 100,000 flows takes a while); the UI thread then only looks
 * the answers up, and rows that arrived or changed meanwhile are matched as they come. While
 * the user types, only the newest expression's answer is applied.
 *
 * <p>All list and property changes happen on the UI thread ({@link FxThread}); the view model holds
 * no JavaFX nodes and is tested without a display.
 */
public final class FlowListViewModel implements AutoCloseable {
  static final int DEFAULT_PULSES_PER_SECOND = 30;

  private final FxThread fx;
  private final ObservableList<FlowRow> rows = FXCollections.observableArrayList();
  private final ObservableList<FlowRow> readOnlyRows = FXCollections.unmodifiableObservableList(rows);
  private final FilteredList<FlowRow> visible = new FilteredList<>(rows, r -> true);
  /** Row index by flow id (UI thread only). */
  private final Map<Long, Integer> indexById = new HashMap<>();
  private final ReadOnlyIntegerWrapper count = new ReadOnlyIntegerWrapper(this, "count");
  private final ReadOnlyStringWrapper filterError = new ReadOnlyStringWrapper(this, "filterError", "");
  private final Object lock = new Object();
  /** Flows changed since the last batch, newest state wins, first-arrival order (guarded by lock). */
  private LinkedHashMap<Long, Flow> pending = new LinkedHashMap<>();
  private boolean batchPosted;
  private final FlowStore.Subscription subscription;
  private final ScheduledExecutorService pulse;
  private Filter filter = Filter.ALL;
  private final Executor filterWorker;
  /** Increases with each {@link #filter} call; an older answer is dropped, an older scan stops. */
  private volatile long filterGeneration;
  private final ReadOnlyBooleanWrapper filtering = new ReadOnlyBooleanWrapper(this, "filtering");

  /** Follows {@code store} from now on (flows already in it are loaded first). */
  public FlowListViewModel(FlowStore store, FxThread fx) {
    this(store, fx, DEFAULT_PULSES_PER_SECOND, null);
  }

  /** {@code filterWorker} null: a daemon thread of its own. */
  FlowListViewModel(FlowStore store, FxThread fx, int pulsesPerSecond, Executor filterWorker) {
    this.fx = fx;
    this.filterWorker = filterWorker != null ? filterWorker : Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-filter");
      t.setDaemon(true);
      return t;
    });
    this.subscription = store.subscribe(this::onEvent, 100_000);
    for (Flow f : store.snapshot()) {
      record(f);
    }
    pulse = pulsesPerSecond <= 0 ? null : Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "loupe-ui-pulse");
      t.setDaemon(true);
      return t;
    });
    if (pulse != null) {
      long period = 1_000_000 / pulsesPerSecond;
      pulse.scheduleAtFixedRate(this::postBatch, period, period, TimeUnit.MICROSECONDS);
    }
  }

  /** Every row, in arrival order (UI thread). */
  public ObservableList<FlowRow> rows() {
    // One wrapper for everyone: an unmodifiable wrapper forwards changes only while it is reachable,
    // so a listener added to a fresh one per call would stop hearing once that wrapper is collected.
    return readOnlyRows;
  }

  /** The rows the current filter lets through, in arrival order (UI thread). */
  public ObservableList<FlowRow> visibleRows() {
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
    Filter f = filter;
    long generation = ++filterGeneration;
    if (f == Filter.ALL) {
      filtering.set(false);
      visible.setPredicate(null);
      return;
    }
    FlowRow[] snapshot = rows.toArray(new FlowRow[0]);
    filtering.set(true);
    filterWorker.execute(() -> {
      BitSet matches = new BitSet(snapshot.length);
      for (int i = 0; i < snapshot.length; i++) {
        if ((i & 1023) == 0 && generation != filterGeneration) {
          return; // the user typed on: a newer scan is queued
        }
        if (f.test(snapshot[i].flow())) {
          matches.set(i);
        }
      }
      fx.post(() -> {
        if (generation != filterGeneration) {
          return; // the user typed on
        }
        filtering.set(false);
        visible.setPredicate(r -> {
          Integer i = indexById.get(r.id());
          // the answer computed on the worker, unless the row was replaced (updated) since
          return i != null && i < snapshot.length && snapshot[i] == r ? matches.get(i) : f.test(r.flow());
        });
      });
    });
  }

  /** True from a {@link #filter} call until its answer is applied. */
  public ReadOnlyBooleanProperty filteringProperty() {
    return filtering.getReadOnlyProperty();
  }

  /** Forgets every row (the store is cleared separately). Call on the UI thread. */
  public void clear() {
    synchronized (lock) {
      pending = new LinkedHashMap<>();
    }
    rows.clear();
    indexById.clear();
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

  /** On the pulse thread: one batch in flight at most. */
  void postBatch() {
    synchronized (lock) {
      if (batchPosted || pending.isEmpty()) {
        return;
      }
      batchPosted = true;
    }
    fx.post(this::applyBatch);
  }

  /** On the UI thread: turns the pending flows into rows, one list change per kind. */
  void applyBatch() {
    LinkedHashMap<Long, Flow> batch;
    synchronized (lock) {
      batch = pending;
      pending = new LinkedHashMap<>();
      batchPosted = false;
    }
    List<FlowRow> added = new ArrayList<>();
    for (Flow f : batch.values()) {
      FlowRow row = FlowRow.of(f);
      Integer at = indexById.get(f.id());
      if (at != null) {
        rows.set(at, row);
      } else {
        indexById.put(f.id(), rows.size() + added.size());
        added.add(row);
      }
    }
    if (!added.isEmpty()) {
      rows.addAll(added);
    }
    count.set(rows.size());
  }

  @Override
  public void close() {
    if (filterWorker instanceof ExecutorService own) {
      own.shutdownNow();
    }
    if (pulse != null) {
      pulse.shutdownNow();
    }
    subscription.close();
  }
}
