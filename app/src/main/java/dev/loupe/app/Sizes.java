package dev.loupe.app;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses and prints byte sizes: {@code 1048576}, {@code 512k}, {@code 1MiB}, {@code 2MB}. */
final class Sizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)(i?b)?", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  static long parse(String s) {
    Matcher m = SIZE.matcher(s.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a size: '" + s + "' (try 1048576, 512k or 1MiB)");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2).toLowerCase(Locale.ROOT);
    boolean binary = m.group(3) == null || m.group(3).equalsIgnoreCase("ib");
    long base = binary ? 1024 : 1000;
    return switch (unit) {
      case "k" -> n * base;
      case "m" -> n * base * base;
      case "g" -> n * base * base * base;
      default -> n;
    };
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
