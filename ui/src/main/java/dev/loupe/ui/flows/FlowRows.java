package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.SortKey;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import javafx.collections.ObservableListBase;

/**
 * A flow table's rows as an observable list of ids in display order; a row is made only when the
 * table asks for it ({@link RowSource}). A million flows cost eight megabytes of ids here, nothing
 * per row that is not on screen or cached.
 *
 * <h3>Order</h3>
 * By {@link SortKey} and direction, ties by id. Ascending by id the ids are appended in place; the
 * descending id order reads the same array backwards, so new flows still cost an append.
 *
 * <h3>Changes</h3>
 * {@link #replace} swaps every id (a new filter or order: one change, its removed rows made only if
 * a listener reads them). Inside {@link #begin}/{@link #end}, {@link #insertAll}, {@link #removeAt}
 * and {@link #updated} report what a batch of live flows did, as one list change.
 *
 * <p>UI thread only.
 */
final class FlowRows extends ObservableListBase<FlowRow> {
  private final RowSource rows;
  /** Physical order: ascending by the key (ids ascending for {@link SortKey#ID}). */
  private long[] ids = new long[1024];
  private int size;
  private SortKey key = SortKey.ID;
  private boolean descending;
  private Comparator<FlowSummary> order = SortKey.ID.comparator();
  private int replacements;

  FlowRows(RowSource rows) {
    this.rows = rows;
  }

  SortKey key() {
    return key;
  }

  boolean descending() {
    return descending;
  }

  /** The display order of summaries. */
  Comparator<FlowSummary> order() {
    return order;
  }

  @Override
  public FlowRow get(int index) {
    if (index < 0 || index >= size) {
      throw new IndexOutOfBoundsException(index + " of " + size);
    }
    return rows.row(ids, physical(index), size);
  }

  @Override
  public int size() {
    return size;
  }

  /** The id shown at {@code index}. */
  long idAt(int index) {
    return ids[physical(index)];
  }

  /** Reversed id order reads the array from the end. */
  private int physical(int index) {
    return reversed() ? size - 1 - index : index;
  }

  private boolean reversed() {
    return key == SortKey.ID && descending;
  }

  /**
   * Every id at once, as the store answered for {@code key}: {@code display} in display order. One
   * change; the removed rows are made only if a listener reads them.
   */
  void replace(SortKey key, boolean descending, long[] display, int count) {
    long[] oldIds = ids;
    int oldSize = size;
    boolean oldReversed = reversed();
    this.key = key;
    this.descending = descending;
    Comparator<FlowSummary> c = key.comparator();
    this.order = descending ? c.reversed() : c;
    long[] next = Arrays.copyOf(display, Math.max(1024, count + count / 4));
    if (reversed()) {
      for (int i = 0, j = count - 1; i < j; i++, j--) {
        long t = next[i];
        next[i] = next[j];
        next[j] = t;
      }
    }
    ids = next;
    size = count;
    replacements++;
    if (oldSize == 0 && count == 0) {
      return;
    }
    // not nextRemove(0, list): JavaFX's change builder reads a removed list element by element, which read every
    // old row back from the session (a new filter over a million flows: a million rows, on the UI thread)
    List<FlowRow> removed = new AbstractList<>() {
      @Override
      public FlowRow get(int index) {
        return rows.row(oldIds, oldReversed ? oldSize - 1 - index : index, oldSize);
      }

      @Override
      public int size() {
        return oldSize;
      }
    };
    fireChange(new RangeChange<>(this, List.of(new RangeChange.Range<>(0, count, removed))));
  }

  /** How many times {@link #replace} swapped every id. */
  int replacements() {
    return replacements;
  }

  /** The row of {@code ids[i]}, read with its page from the catalog if it is not known. */
  FlowRow rowIn(long[] ids, int i) {
    return rows.row(ids, i, ids.length);
  }

  /** The last known row of {@code id}, or a stand-in for it; never reads the catalog. */
  FlowRow knownOrStub(long id) {
    FlowRow r = rows.known(id);
    return r != null ? r : rows.stub(id);
  }

  void begin() {
    beginChange();
  }

  void end() {
    endChange();
  }

  /**
   * Where {@code id} is shown, or -1. {@code was} is its row as last shown (its sort key), or null
   * when it is not known to be there.
   */
  int indexOf(long id, FlowRow was) {
    if (key == SortKey.ID) {
      int p = Arrays.binarySearch(ids, 0, size, id);
      return p < 0 ? -1 : reversed() ? size - 1 - p : p;
    }
    if (was == null) {
      return -1;
    }
    int lo = 0;
    int hi = size - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = order.compare(get(mid).summary(), was.summary());
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return idAt(mid) == id ? mid : scan(id);
      }
    }
    return scan(id); // its key changed without a repositioning (should not happen): look everywhere
  }

  private int scan(long id) {
    for (int i = 0; i < size; i++) {
      if (ids[i] == id) {
        return reversed() ? size - 1 - i : i;
      }
    }
    return -1;
  }

  /** Adds rows not shown yet at their places (inside begin/end). */
  void insertAll(List<FlowRow> added) {
    if (added.isEmpty()) {
      return;
    }
    if (key == SortKey.ID) {
      long[] adds = added.stream().mapToLong(FlowRow::id).sorted().toArray();
      if (size == 0 || adds[0] > ids[size - 1]) { // the usual case: newer than every row shown
        ensure(size + adds.length);
        System.arraycopy(adds, 0, ids, size, adds.length);
        int from = size;
        size += adds.length;
        if (reversed()) {
          nextAdd(0, adds.length);
        } else {
          nextAdd(from, size);
        }
        return;
      }
      mergeInPhysical(adds);
      return;
    }
    FlowRow[] sorted = added.toArray(new FlowRow[0]);
    Arrays.sort(sorted, (a, b) -> order.compare(a.summary(), b.summary()));
    // positions in the current list (display order = physical order for keys other than id)
    int[] at = new int[sorted.length];
    for (int k = 0; k < sorted.length; k++) {
      at[k] = insertionPoint(sorted[k].summary());
    }
    long[] next = new long[Math.max(ids.length, size + sorted.length + 1024)];
    int src = 0;
    int dst = 0;
    for (int k = 0; k < sorted.length; k++) {
      int n = at[k] - src;
      System.arraycopy(ids, src, next, dst, n);
      src += n;
      dst += n;
      next[dst] = sorted[k].id();
      nextAdd(dst, dst + 1);
      dst++;
    }
    System.arraycopy(ids, src, next, dst, size - src);
    ids = next;
    size += sorted.length;
  }

  /** Merges ascending {@code adds} into the ascending id array; reports the additions in display order. */
  private void mergeInPhysical(long[] adds) {
    long[] next = new long[Math.max(ids.length, size + adds.length + 1024)];
    int src = 0;
    int dst = 0;
    int[] positions = new int[adds.length];
    for (int k = 0; k < adds.length; k++) {
      int p = Arrays.binarySearch(ids, src, size, adds[k]);
      int at = p < 0 ? -p - 1 : p;
      int n = at - src;
      System.arraycopy(ids, src, next, dst, n);
      src += n;
      dst += n;
      positions[k] = dst;
      next[dst++] = adds[k];
    }
    System.arraycopy(ids, src, next, dst, size - src);
    ids = next;
    size += adds.length;
    if (reversed()) {
      for (int k = adds.length - 1; k >= 0; k--) {
        int d = size - 1 - positions[k];
        nextAdd(d, d + 1);
      }
    } else {
      for (int p : positions) {
        nextAdd(p, p + 1);
      }
    }
  }

  /** The first position whose row sorts after {@code s} (rows read as needed). */
  private int insertionPoint(FlowSummary s) {
    int lo = 0;
    int hi = size;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (order.compare(get(mid).summary(), s) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** Removes the row at {@code index} (inside begin/end); {@code was} is what it showed. */
  void removeAt(int index, FlowRow was) {
    int p = physical(index);
    System.arraycopy(ids, p + 1, ids, p, size - p - 1);
    size--;
    nextRemove(index, was);
  }

  /** The row at {@code index} shows new values (inside begin/end); {@code was} is what it showed. */
  void updated(int index, FlowRow was) {
    nextSet(index, was);
  }

  /** Whether the row at {@code index}, now showing {@code now}, is still in order with its neighbours. */
  boolean inOrder(int index, FlowRow now) {
    if (key == SortKey.ID) {
      return true;
    }
    return (index == 0 || order.compare(get(index - 1).summary(), now.summary()) <= 0)
        && (index == size - 1 || order.compare(now.summary(), get(index + 1).summary()) <= 0);
  }

  private void ensure(int capacity) {
    if (capacity > ids.length) {
      ids = Arrays.copyOf(ids, Math.max(capacity, ids.length + ids.length / 2));
    }
  }

  /** Every id, in display order (a copy). */
  long[] displayIds() {
    long[] out = new long[size];
    for (int i = 0; i < size; i++) {
      out[i] = idAt(i);
    }
    return out;
  }
}
