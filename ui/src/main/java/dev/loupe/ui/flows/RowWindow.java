package dev.loupe.ui.flows;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableListBase;

/**
 * At most {@link #capacity()} consecutive rows of the visible rows: what the flow table's {@code TableView} holds.
 *
 * <h3>Why</h3>
 * JavaFX's {@code VirtualFlow} walks its item list from the top on every scroll and every layout that follows a change
 * of the item count ({@code computeCurrentIndex}, {@code recalculateAndImproveEstimatedSize}: a loop per item up to
 * the row shown, even with a fixed cell size). With a million rows that was 40 % of the UI thread's time and tens of
 * milliseconds per scroll; with a window of a few thousand it is nothing. The table's own scroll bar then spans the
 * window; {@code FlowTableView} lays a scroll bar over the whole list on top of it and moves the window as the user
 * scrolls ({@link #moveTo}).
 *
 * <h3>What the window follows</h3>
 * The same rows stay in it while the list changes around them: rows added or removed before the window move its
 * {@link #start()} and change nothing shown; rows added after a full window are not in it (the count the table sees
 * stays the same, so a burst of new flows costs the table nothing until the user scrolls to them). A window at the
 * top ({@code start() == 0}) stays at the top, so rows added there (newest first) are shown. A new filter or order
 * (the list replaced whole) replaces the window whole at the same start. Otherwise the window's change is the
 * difference between the ids it showed and the ids it shows, plus the rows the list updated in place.
 *
 * <p>UI thread only, like the list it follows.
 */
final class RowWindow extends ObservableListBase<FlowRow> {
  private final FlowRows source;
  private final int capacity;
  /** Index in {@link #source} of the window's first row. */
  private int start;
  /** The ids of the rows shown, in order: {@code source.idAt(start + i)}. */
  private long[] shown;
  /** The source's size and replacement count after the last change applied. */
  private int sourceSize;
  private int replacements;
  /** Reports a change that follows the source (not a move or a new filter or order); see {@link #reportUpdatesThrough}. */
  private java.util.function.Consumer<Runnable> updates = Runnable::run;

  RowWindow(FlowRows source, int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity " + capacity);
    }
    this.source = Objects.requireNonNull(source, "source");
    this.capacity = capacity;
    this.sourceSize = source.size();
    this.replacements = source.replacements();
    this.shown = ids(0, Math.min(capacity, sourceSize));
    source.addListener(this::sourceChanged);
  }

  @Override
  public FlowRow get(int index) {
    Objects.checkIndex(index, shown.length);
    return source.get(start + index);
  }

  @Override
  public int size() {
    return shown.length;
  }

  /**
   * Changes that follow the source's (rows arriving, updated in place, removed) are reported by running the runnable
   * {@code around} is given: the table keeps its selection across them (JavaFX's selection model clears it when a
   * change replaces every row it holds, as an update of the only row does).
   */
  void reportUpdatesThrough(java.util.function.Consumer<Runnable> around) {
    updates = Objects.requireNonNull(around, "around");
  }

  /** Where the window starts in the whole list. */
  int start() {
    return start;
  }

  int capacity() {
    return capacity;
  }

  /** How many rows the whole list has. */
  int total() {
    return source.size();
  }

  /** The id of the window's row {@code index}. */
  long idAt(int index) {
    return shown[index];
  }

  /**
   * Shows the rows from {@code first} on; clamped so that a window that can be full is. The rows still shown keep
   * their cells (a window moved by a few thousand rows is one removal and one addition).
   */
  void moveTo(int first) {
    int s = clamp(first);
    if (s == start) {
      return;
    }
    int n = shown.length;
    int d = Math.abs(s - start);
    if (d >= n || n != Math.min(capacity, source.size() - s)) {
      replaceAll(s); // nothing in common (a jump): every row is new
      return;
    }
    long[] a = shown;
    long[] b = ids(s, n);
    boolean down = s > start;
    for (int i = 0; i < n - d; i++) { // the rows kept, as a shift: else the difference says what changed
      if (down ? a[i + d] != b[i] : a[i] != b[i + d]) {
        show(s, List.of());
        return;
      }
    }
    start = s;
    shown = b;
    List<RangeChange.Range<FlowRow>> ranges = down
        ? List.of(new RangeChange.Range<>(0, 0, lazyRows(a, 0, d)), new RangeChange.Range<>(n - d, n, List.of()))
        : List.of(new RangeChange.Range<>(0, d, List.of()), new RangeChange.Range<>(n, n, lazyRows(a, n - d, n)));
    fireChange(new RangeChange<>(this, ranges));
  }

  /** The rows of {@code ids[from, to)}, read only if a listener reads them. */
  private List<FlowRow> lazyRows(long[] ids, int from, int to) {
    return new AbstractList<>() {
      @Override
      public FlowRow get(int index) {
        return source.rowIn(ids, from + Objects.checkIndex(index, to - from));
      }

      @Override
      public int size() {
        return to - from;
      }
    };
  }

  private int clamp(int first) {
    return Math.max(0, Math.min(first, source.size() - capacity));
  }

  private long[] ids(int from, int n) {
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      out[i] = source.idAt(from + i);
    }
    return out;
  }

  private void sourceChanged(ListChangeListener.Change<? extends FlowRow> c) {
    int before = sourceSize;
    sourceSize = source.size();
    if (replacements != source.replacements()) { // a new filter or order: every row is new
      replacements = source.replacements();
      replaceAll(clamp(start));
      return;
    }
    int s = start;
    if (start > 0) {
      int shift = 0;
      while (c.next()) {
        int oldFrom = c.getFrom() - shift;
        int removed = c.getRemovedSize();
        if (oldFrom + removed <= start) { // wholly before the window's first row (an insertion right before it too)
          shift += c.getAddedSize() - removed;
          continue;
        }
        if (oldFrom < start) { // the first row itself was removed: the window starts where the removal was
          shift = c.getFrom() - start;
        }
        break;
      }
      s = start + shift;
      c.reset();
    }
    // rows updated in place (FlowRows.updated) that may be in the window: they are shown again
    List<Updated> updated = new ArrayList<>(0);
    int from = clamp(s);
    int to = from + Math.min(capacity, sourceSize - from);
    while (c.next()) {
      if (c.wasReplaced() && c.getFrom() < to && c.getTo() > from && c.getRemovedSize() <= capacity) {
        updated.add(new Updated(c.getFrom(), c.getTo(), List.copyOf(c.getRemoved())));
      }
    }
    c.reset();
    if (before == 0 && sourceSize == 0) {
      return;
    }
    show(from, updated);
  }

  /** Rows {@code [from, to)} of the source were updated in place; {@code was} is what they showed. */
  private record Updated(int from, int to, List<? extends FlowRow> was) {
    /** What the row {@code id} at source index {@code at} showed, or null if it is not one of these. */
    FlowRow was(int at, long id) {
      if (at < from || at >= to) {
        return null;
      }
      for (FlowRow r : was) {
        if (r.id() == id) {
          return r;
        }
      }
      return null;
    }
  }

  private void replaceAll(int s) {
    long[] old = shown;
    start = s;
    shown = ids(s, Math.min(capacity, source.size() - s));
    if (old.length == 0 && shown.length == 0) {
      return;
    }
    fireChange(new RangeChange<>(this, List.of(new RangeChange.Range<>(0, shown.length, lazyRows(old, 0, old.length)))));
  }

  /**
   * Shows source rows from {@code s} on and reports the difference with what was shown: ids gone, ids new, and
   * {@code updated} rows still shown. O(capacity).
   */
  private void show(int s, List<Updated> updated) {
    long[] a = shown;
    long[] b = ids(s, Math.min(capacity, source.size() - s));
    start = s;
    shown = b;
    List<Edit> edits = new ArrayList<>();
    Edit open = null;
    Set<Long> oldRest = null;
    Set<Long> newRest = null;
    int endA = a.length; // the common end of both (same ids in the same order) starts here, and at endB
    int endB = b.length;
    int i = 0;
    int j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] == b[j]) {
        FlowRow was = null;
        for (int u = 0; u < updated.size() && was == null; u++) {
          was = updated.get(u).was(s + j, b[j]);
        }
        if (was != null) {
          open = edit(edits, open, j);
          open.removed.add(was);
          open.to++;
        }
        i++;
        j++;
        continue;
      }
      if (oldRest == null) { // the first difference: what differs up to the common end, to tell gone from moved
        int q = 0;
        while (q < a.length - i && q < b.length - j && a[a.length - 1 - q] == b[b.length - 1 - q]) {
          q++;
        }
        endA = a.length - q;
        endB = b.length - q;
        oldRest = new HashSet<>();
        for (int k = i; k < endA; k++) {
          oldRest.add(a[k]);
        }
        newRest = new HashSet<>();
        for (int k = j; k < endB; k++) {
          newRest.add(b[k]);
        }
      }
      open = edit(edits, open, j);
      boolean removeOld = i < endA && (j >= endB || !newRest.contains(a[i]) || oldRest.contains(b[j]));
      if (removeOld) {
        // gone, or shown further on (it is removed here and added where it is now)
        open.removed.add(source.knownOrStub(a[i]));
        oldRest.remove(a[i]);
        i++;
      } else {
        newRest.remove(b[j]);
        open.to++;
        j++;
      }
    }
    if (edits.isEmpty()) {
      return;
    }
    List<RangeChange.Range<FlowRow>> ranges = new ArrayList<>(edits.size());
    for (Edit e : edits) {
      ranges.add(new RangeChange.Range<>(e.from, e.to, e.removed));
    }
    updates.accept(() -> fireChange(new RangeChange<>(this, ranges)));
  }

  /** Rows {@code [from, to)} of the window after the change replace {@code removed}. */
  private static final class Edit {
    final int from;
    int to;
    final List<FlowRow> removed = new ArrayList<>();

    Edit(int from) {
      this.from = from;
      this.to = from;
    }
  }

  /** The edit at window index {@code at}: {@code open} when it ends there, else a new one. */
  private static Edit edit(List<Edit> edits, Edit open, int at) {
    if (open != null && open.to == at) {
      return open;
    }
    Edit e = new Edit(at);
    edits.add(e);
    return e;
  }
}
