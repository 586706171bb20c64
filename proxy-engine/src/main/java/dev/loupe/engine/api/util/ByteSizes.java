package dev.loupe.engine.api.util;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Byte sizes as the command line and the settings take them: {@code 1048576}, {@code 512k},
 * {@code 1MiB} (binary), {@code 2MB} (decimal: 2,000,000).
 */
public final class ByteSizes {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmg]?)(i?b)?", Pattern.CASE_INSENSITIVE);

  private ByteSizes() {}

  /** The byte count; {@link IllegalArgumentException} naming the bad text otherwise. */
  public static long parse(String s) {
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

  /** {@code n} in the largest binary unit that keeps it whole or to one decimal: {@code 256 KiB}, {@code 1.5 MiB}. */
  public static String format(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int i = -1;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v)) + " " + units[i];
  }
}
