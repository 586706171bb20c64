package dev.loupe.engine.api;

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
}
