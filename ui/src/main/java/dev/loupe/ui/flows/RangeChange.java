package dev.loupe.ui.flows;

import java.util.List;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;

/**
 * A list change made of whole ranges, each with its removed rows as a list the caller supplies. JavaFX's own change
 * builder asks for every removed element one at a time ({@code ListChangeBuilder.nextRemove} walks the list), so
 * replacing a million rows read a million rows back from the session just to report them; here a removed list is read
 * only if a listener reads it (the table and its selection model do not, for such changes).
 */
final class RangeChange<E> extends ListChangeListener.Change<E> {
  /** One range: rows {@code [from, to)} of the list after the change replace {@code removed}. */
  record Range<E>(int from, int to, List<E> removed) {}

  private final List<Range<E>> ranges;
  private int cursor = -1;

  /** {@code ranges} in ascending order, each in the coordinates of the list after the change, not touching. */
  RangeChange(ObservableList<E> list, List<Range<E>> ranges) {
    super(list);
    this.ranges = ranges;
  }

  @Override
  public boolean next() {
    return ++cursor < ranges.size();
  }

  @Override
  public void reset() {
    cursor = -1;
  }

  @Override
  public int getFrom() {
    return current().from();
  }

  @Override
  public int getTo() {
    return current().to();
  }

  @Override
  public List<E> getRemoved() {
    return current().removed();
  }

  @Override
  protected int[] getPermutation() {
    return new int[0];
  }

  private Range<E> current() {
    if (cursor < 0 || cursor >= ranges.size()) {
      throw new IllegalStateException("call next() first");
    }
    return ranges.get(cursor);
  }
}
