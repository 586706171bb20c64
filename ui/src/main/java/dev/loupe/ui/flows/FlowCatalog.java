package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;

/**
 * The flows the table shows besides those the live store holds: a session file's, or none (every
 * flow in memory). Calls may block on disk; the view model makes them on its worker, and on the UI
 * thread only for a page of rows at a time.
 */
public interface FlowCatalog {
  /** No stored flows: the live store is everything. */
  FlowCatalog NONE = new FlowCatalog() {
    @Override
    public void ids(Filter filter, SortKey key, boolean descending, LongPredicate sink, BooleanSupplier stop) {}

    @Override
    public Map<Long, FlowSummary> summaries(long[] ids, int from, int to) {
      return Map.of();
    }

    @Override
    public Flow load(long id) {
      return null;
    }

    @Override
    public void release(Flow loaded) {}
  };

  /**
   * Feeds {@code sink} the ids of the stored flows {@code filter} matches, ordered by {@code key}, until
   * it returns false or {@code stop} says so.
   */
  void ids(Filter filter, SortKey key, boolean descending, LongPredicate sink, BooleanSupplier stop)
      throws SessionException;

  /** The summaries of the stored flows among {@code ids[from, to)}, by id. */
  Map<Long, FlowSummary> summaries(long[] ids, int from, int to) throws SessionException;

  /** The whole stored flow {@code id}, or null. */
  Flow load(long id) throws SessionException;

  /** Deletes the temporary files of a flow {@link #load} returned, which nobody reads any more. */
  void release(Flow loaded);

  /** The flows of {@code session}'s file. */
  static FlowCatalog of(Session session) {
    return new FlowCatalog() {
      @Override
      public void ids(Filter filter, SortKey key, boolean descending, LongPredicate sink, BooleanSupplier stop)
          throws SessionException {
        session.ids(filter, key, descending, sink, stop);
      }

      @Override
      public Map<Long, FlowSummary> summaries(long[] ids, int from, int to) throws SessionException {
        return session.summaries(ids, from, to);
      }

      @Override
      public Flow load(long id) throws SessionException {
        return session.load(id);
      }

      @Override
      public void release(Flow loaded) {
        session.release(loaded);
      }
    };
  }
}
