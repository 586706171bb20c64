package dev.loupe.ui.diff;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A line diff (Myers' O(ND) algorithm, linear-space "middle snake" variant) laid out for a
 * side-by-side view: equal lines side by side, a run of removed lines next to the run of added
 * lines that replaced it ({@link Kind#CHANGED}), and the leftovers as {@link Kind#REMOVED} or
 * {@link Kind#ADDED}.
 *
 * <h3>Bounds</h3>
 * Only the first {@link #MAX_LINES} lines of each side are compared ({@link Result#truncated()}).
 * A stretch of lines that needs more than {@link #MAX_EDITS} edits is given up on and shown as
 * replaced as a whole ({@link Result#approximate()}): Myers costs O((N+M)·D), which for two
 * unrelated 10,000-line texts would take seconds, and such a diff is unreadable anyway.
 *
 * <p>Pure and thread-safe; meant to run off the UI thread.
 */
public final class LineDiff {
  /** Lines of each side compared at most. */
  public static final int MAX_LINES = 10_000;
  /** Edits one middle-snake search may take before the stretch counts as replaced. */
  static final int MAX_EDITS = 4_096;

  /** How a row of the side-by-side view differs. */
  public enum Kind {
    /** The same on both sides. */
    SAME,
    /** Different on the two sides (a removed line paired with the added line that replaced it). */
    CHANGED,
    /** Only on the left. */
    REMOVED,
    /** Only on the right. */
    ADDED
  }

  /**
   * One row of the side-by-side view.
   *
   * @param leftNumber  the left line's number (from 1), or 0 when the row has no left line
   * @param left        the left line, or null
   * @param rightNumber the right line's number (from 1), or 0
   * @param right       the right line, or null
   */
  public record Row(Kind kind, int leftNumber, String left, int rightNumber, String right) {}

  /**
   * The rows, in order.
   *
   * @param truncated   whether a side had more than {@link #MAX_LINES} lines (the rest is not compared)
   * @param approximate whether a stretch was too different to align line by line
   */
  public record Result(List<Row> rows, boolean truncated, boolean approximate) {
    public Result {
      rows = List.copyOf(rows);
    }

    /** Rows that are not {@link Kind#SAME}. */
    public int changes() {
      return (int) rows.stream().filter(r -> r.kind() != Kind.SAME).count();
    }

    /** Whether the compared lines are all equal. */
    public boolean identical() {
      return changes() == 0;
    }
  }

  private final int[] a;
  private final int[] b;
  /** matchA[i] = the right index line i of the left is paired with, or -1. */
  private final int[] matchA;
  private final int[] matchB;
  private boolean approximate;

  private LineDiff(int[] a, int[] b) {
    this.a = a;
    this.b = b;
    this.matchA = new int[a.length];
    this.matchB = new int[b.length];
    Arrays.fill(matchA, -1);
    Arrays.fill(matchB, -1);
  }

  /** Diffs two texts line by line ({@code \n}, {@code \r\n} or {@code \r} end a line). */
  public static Result diff(String left, String right) {
    return diff(lines(left), lines(right));
  }

  /** Diffs two lists of lines. */
  public static Result diff(List<String> left, List<String> right) {
    boolean truncated = left.size() > MAX_LINES || right.size() > MAX_LINES;
    List<String> l = left.size() > MAX_LINES ? left.subList(0, MAX_LINES) : left;
    List<String> r = right.size() > MAX_LINES ? right.subList(0, MAX_LINES) : right;
    // Lines as small ints: comparisons in the inner loop are then int compares, not string compares.
    Map<String, Integer> ids = new HashMap<>();
    int[] a = new int[l.size()];
    int[] b = new int[r.size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = ids.computeIfAbsent(l.get(i), k -> ids.size());
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = ids.computeIfAbsent(r.get(i), k -> ids.size());
    }
    LineDiff d = new LineDiff(a, b);
    d.align(0, a.length, 0, b.length);
    return new Result(d.rows(l, r), truncated, d.approximate);
  }

  /** The lines of {@code text}; an empty text has no lines, a final line break adds none. */
  public static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return out;
    }
    int start = 0;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\r') {
        out.add(text.substring(start, i));
        if (c == '\r' && i + 1 < n && text.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    if (start < n) {
      out.add(text.substring(start));
    }
    return out;
  }

  /** Pairs the equal lines of a[aLo, aHi) and b[bLo, bHi) along a shortest edit script. */
  private void align(int aLo, int aHi, int bLo, int bHi) {
    while (aLo < aHi && bLo < bHi && a[aLo] == b[bLo]) {
      pair(aLo++, bLo++);
    }
    while (aLo < aHi && bLo < bHi && a[aHi - 1] == b[bHi - 1]) {
      pair(--aHi, --bHi);
    }
    if (aLo == aHi || bLo == bHi) {
      return; // only removals or only additions left
    }
    // Both ends differ now, so at least two edits remain and both halves below have fewer.
    int[] snake = middleSnake(aLo, aHi, bLo, bHi);
    if (snake == null) {
      approximate = true; // too different: leave the stretch unpaired (shown as replaced)
      return;
    }
    int x = snake[0];
    int y = snake[1];
    int u = snake[2];
    int v = snake[3];
    align(aLo, aLo + x, bLo, bLo + y);
    for (int i = x, j = y; i < u; i++, j++) {
      pair(aLo + i, bLo + j);
    }
    align(aLo + u, aHi, bLo + v, bHi);
  }

  private void pair(int i, int j) {
    matchA[i] = j;
    matchB[j] = i;
  }

  /**
   * Myers' middle snake of the stretch: {x, y, u, v} (offsets into the stretch) such that the
   * diagonal run (x, y)→(u, v) lies on a shortest edit script and splits it in two halves of about
   * equal cost. Null when more than {@link #MAX_EDITS} edits would be needed to find it.
   */
  private int[] middleSnake(int aLo, int aHi, int bLo, int bHi) {
    int n = aHi - aLo;
    int m = bHi - bLo;
    int delta = n - m;
    boolean odd = (delta & 1) != 0;
    int max = Math.min((n + m + 1) / 2, MAX_EDITS);
    int off = max + 1;
    int[] vf = new int[2 * max + 3];
    int[] vb = new int[2 * max + 3];
    // vf[k]: furthest x on diagonal k (x - y = k) going forward from (0, 0); vb[k]: the same going
    // backward from (n, m), in reversed coordinates (x' = n - x, y' = m - y, diagonal k' = x' - y').
    for (int d = 0; d <= max; d++) {
      for (int k = -d; k <= d; k += 2) {
        int x = k == -d || (k != d && vf[off + k - 1] < vf[off + k + 1]) ? vf[off + k + 1] : vf[off + k - 1] + 1;
        int y = x - k;
        int x0 = x;
        int y0 = y;
        while (x < n && y < m && a[aLo + x] == b[bLo + y]) {
          x++;
          y++;
        }
        vf[off + k] = x;
        int kb = delta - k;
        if (odd && kb >= -(d - 1) && kb <= d - 1 && x + vb[off + kb] >= n) {
          return new int[] {x0, y0, x, y};
        }
      }
      for (int k = -d; k <= d; k += 2) {
        int x = k == -d || (k != d && vb[off + k - 1] < vb[off + k + 1]) ? vb[off + k + 1] : vb[off + k - 1] + 1;
        int y = x - k;
        int x0 = x;
        int y0 = y;
        while (x < n && y < m && a[aHi - 1 - x] == b[bHi - 1 - y]) {
          x++;
          y++;
        }
        vb[off + k] = x;
        int kf = delta - k;
        if (!odd && kf >= -d && kf <= d && x + vf[off + kf] >= n) {
          return new int[] {n - x, m - y, n - x0, m - y0};
        }
      }
    }
    return null;
  }

  private List<Row> rows(List<String> l, List<String> r) {
    List<Row> out = new ArrayList<>(Math.max(l.size(), r.size()));
    int i = 0;
    int j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && matchA[i] == j) {
        out.add(new Row(Kind.SAME, i + 1, l.get(i), j + 1, r.get(j)));
        i++;
        j++;
        continue;
      }
      int i2 = i;
      while (i2 < a.length && matchA[i2] < 0) {
        i2++;
      }
      int j2 = j;
      while (j2 < b.length && matchB[j2] < 0) {
        j2++;
      }
      int removed = i2 - i;
      int added = j2 - j;
      if (removed == 0 && added == 0) {
        throw new IllegalStateException("crossing pairs at " + i + ", " + j); // pairs are monotonic
      }
      for (int t = 0; t < Math.max(removed, added); t++) {
        if (t < removed && t < added) {
          out.add(new Row(Kind.CHANGED, i + t + 1, l.get(i + t), j + t + 1, r.get(j + t)));
        } else if (t < removed) {
          out.add(new Row(Kind.REMOVED, i + t + 1, l.get(i + t), 0, null));
        } else {
          out.add(new Row(Kind.ADDED, 0, null, j + t + 1, r.get(j + t)));
        }
      }
      i = i2;
      j = j2;
    }
    return out;
  }

  /** The number of paired (equal) lines: the LCS length (for tests). */
  static int pairedLines(Result r) {
    return (int) r.rows().stream().filter(x -> x.kind() == Kind.SAME).count();
  }
}
