package dev.loupe.ui.diff;

import dev.loupe.engine.flow.Headers;
import dev.loupe.ui.diff.LineDiff.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Compares two header lists by field name (case-insensitive): a name only on the left is
 * {@link Kind#REMOVED}, only on the right {@link Kind#ADDED}, on both with other values
 * {@link Kind#CHANGED}. Repeated fields ({@code Set-Cookie}) are paired in order, one row each.
 * Rows follow the left's field order, then the fields only the right has.
 */
public final class HeaderDiff {
  private HeaderDiff() {}

  /**
   * One header row of the comparison.
   *
   * @param left  the left value, or null when the left has no such field
   * @param right the right value, or null
   */
  public record Row(String name, String left, String right, Kind kind) {}

  /** The rows of {@code left} vs {@code right} (null counts as no headers). */
  public static List<Row> diff(Headers left, Headers right) {
    Map<String, List<Headers.Field>> l = byName(left);
    Map<String, List<Headers.Field>> r = byName(right);
    LinkedHashMap<String, Boolean> names = new LinkedHashMap<>();
    l.keySet().forEach(k -> names.put(k, true));
    r.keySet().forEach(k -> names.put(k, true));
    List<Row> out = new ArrayList<>();
    for (String key : names.keySet()) {
      List<Headers.Field> lv = l.getOrDefault(key, List.of());
      List<Headers.Field> rv = r.getOrDefault(key, List.of());
      for (int i = 0; i < Math.max(lv.size(), rv.size()); i++) {
        Headers.Field lf = i < lv.size() ? lv.get(i) : null;
        Headers.Field rf = i < rv.size() ? rv.get(i) : null;
        String name = lf != null ? lf.name() : rf.name();
        Kind kind = lf == null ? Kind.ADDED : rf == null ? Kind.REMOVED
            : lf.value().equals(rf.value()) ? Kind.SAME : Kind.CHANGED;
        out.add(new Row(name, lf == null ? null : lf.value(), rf == null ? null : rf.value(), kind));
      }
    }
    return out;
  }

  private static Map<String, List<Headers.Field>> byName(Headers h) {
    Map<String, List<Headers.Field>> out = new LinkedHashMap<>();
    if (h != null) {
      for (Headers.Field f : h.fields()) {
        out.computeIfAbsent(f.name().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(f);
      }
    }
    return out;
  }
}
