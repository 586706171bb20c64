package dev.loupe.app;

import java.util.Locale;

/** Parses and prints byte sizes: {@code 1048576}, {@code 512k}, {@code 1MiB}, {@code 2MB}. */
final class Sizes {
  private Sizes() {}

  static long parse(String s) {
    return dev.loupe.engine.api.ByteSizes.parse(s);
  }

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
