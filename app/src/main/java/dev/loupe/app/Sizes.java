package dev.loupe.app;

import java.util.Locale;

/** Prints byte sizes for the per-flow lines: {@code 335B}, {@code 1.2k}, {@code 18M} (parsing: {@code ByteSizes}). */
final class Sizes {
  private Sizes() {}

  static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + "B";
    }
    double v = bytes;
    String[] units = {"k", "M", "G", "T"};
    int i = -1;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return String.format(Locale.ROOT, v < 10 ? "%.1f%s" : "%.0f%s", v, units[i]);
  }
}
