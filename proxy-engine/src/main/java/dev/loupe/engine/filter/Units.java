package dev.loupe.engine.filter;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Numbers with units in comparison values. Sizes are binary: {@code KB} and {@code KiB} both mean
 * 1024 bytes, because that is how Loupe shows sizes ({@code 1.5M} is 1.5 × 1024 × 1024 bytes), so
 * {@code size>1MB} keeps exactly the flows shown as more than {@code 1.0M}.
 */
final class Units {
  private Units() {}

  /** A value that did not parse: {@code offset} and {@code length} locate the bad part within it. */
  static final class BadValue extends Exception {
    private static final long serialVersionUID = 1L;

    final int offset;
    final int length;

    BadValue(String message, int offset, int length) {
      super(message, null, false, false);
      this.offset = offset;
      this.length = length;
    }
  }

  /** A byte count: {@code 512}, {@code 10KB}, {@code 1.5MiB}; no unit means bytes. */
  static long bytes(String text) throws BadValue {
    return scaled(text, "a size", Units::bytesPerUnit);
  }

  /** A duration in nanoseconds: {@code 500ms}, {@code 2s}, {@code 1.5m}, {@code 250us}; no unit means ms. */
  static long nanos(String text) throws BadValue {
    return scaled(text, "a duration", Units::nanosPerUnit);
  }

  /** A plain non-negative integer, as for {@code status} and {@code port}. */
  static long integer(String text) throws BadValue {
    int digits = digits(text, 0);
    if (digits == 0 || digits != text.length()) {
      throw new BadValue("expected a whole number, got '" + text + "'", 0, text.length());
    }
    if (digits > 18) {
      throw new BadValue("number too large: " + text, 0, text.length());
    }
    return Long.parseLong(text);
  }

  private interface UnitTable {
    /** Multiplier for {@code unit} (lower case), or 0 when unknown. */
    long multiplier(String unit);
  }

  private static long scaled(String text, String what, UnitTable units) throws BadValue {
    int end = digits(text, 0);
    if (end == 0) {
      throw new BadValue("expected " + what + ", got '" + text + "'", 0, text.length());
    }
    if (end < text.length() && text.charAt(end) == '.') {
      int fraction = digits(text, end + 1);
      if (fraction == end + 1) {
        throw new BadValue("expected digits after '.'", end, 1);
      }
      end = fraction;
    }
    String unit = text.substring(end);
    long multiplier = units.multiplier(unit.toLowerCase(Locale.ROOT));
    if (multiplier == 0) {
      throw new BadValue("unknown unit '" + unit + "'", end, unit.length());
    }
    BigDecimal value = new BigDecimal(text.substring(0, end)).multiply(BigDecimal.valueOf(multiplier));
    if (value.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new BadValue("number too large: " + text, 0, text.length());
    }
    return value.longValue();
  }

  /** Index after the run of ASCII digits starting at {@code from}. */
  private static int digits(String text, int from) {
    int i = from;
    while (i < text.length() && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
      i++;
    }
    return i;
  }

  private static long bytesPerUnit(String unit) {
    return switch (unit) {
      case "", "b" -> 1;
      case "k", "kb", "kib" -> 1L << 10;
      case "m", "mb", "mib" -> 1L << 20;
      case "g", "gb", "gib" -> 1L << 30;
      default -> 0;
    };
  }

  private static long nanosPerUnit(String unit) {
    return switch (unit) {
      case "us", "µs" -> 1_000L;
      case "", "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      default -> 0;
    };
  }
}
