package dev.loupe.engine.flow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * An immutable, ordered list of header fields as they appeared on the wire (names keep their case;
 * lookups ignore it). Protocol neutral: HTTP/1.1 headers, HTTP/2 and HTTP/3 fields (pseudo-headers
 * excluded) and trailers all use it.
 */
public final class Headers {
  /** One header field. */
  public record Field(String name, String value) {
    public Field {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
    }
  }

  public static final Headers EMPTY = new Headers(List.of());

  /**
   * Names and values, alternating, as a protocol codec read them (e.g. Netty's {@code AsciiString}s),
   * when made by {@link #wrap}; else null. Never changed after construction.
   */
  private final CharSequence[] raw;
  private final int size;
  /** The fields as Strings, when given (final: safely published); else null. */
  private final List<Field> fields;
  /** The fields made from {@link #raw} on first use (idempotent and immutable, so a race is benign). */
  private List<Field> made;

  private Headers(List<Field> fields) {
    this.fields = fields;
    this.raw = null;
    this.size = fields.size();
  }

  private Headers(CharSequence[] raw, int size) {
    this.fields = null;
    this.raw = raw;
    this.size = size;
  }

  public static Headers of(List<Field> fields) {
    return fields.isEmpty() ? EMPTY : new Headers(List.copyOf(fields));
  }

  /**
   * Headers over {@code namesAndValues[0, 2 * size)} (name, value, name, value…) without copying
   * them into Strings: a codec that only forwards them hands the same character sequences on
   * ({@link #name(int)}, {@link #value(int)}); {@link #fields()} makes Strings on first use. The
   * array and its sequences must not change afterwards (the Headers owns the array).
   */
  public static Headers wrap(CharSequence[] namesAndValues, int size) {
    if (size == 0) {
      return EMPTY;
    }
    if (namesAndValues.length < 2 * size) {
      throw new IllegalArgumentException("names and values must come in pairs");
    }
    for (int i = 0; i < 2 * size; i++) {
      Objects.requireNonNull(namesAndValues[i], i % 2 == 0 ? "name" : "value");
    }
    return new Headers(namesAndValues, size);
  }

  /** The name of field {@code i}, as it was read (not necessarily a String). */
  public CharSequence name(int i) {
    Objects.checkIndex(i, size);
    return raw != null ? raw[2 * i] : fields.get(i).name();
  }

  /** The value of field {@code i}, as it was read (not necessarily a String). */
  public CharSequence value(int i) {
    Objects.checkIndex(i, size);
    return raw != null ? raw[2 * i + 1] : fields.get(i).value();
  }

  private List<Field> list() {
    if (fields != null) {
      return fields;
    }
    List<Field> f = made;
    if (f == null) {
      Field[] out = new Field[size];
      for (int i = 0; i < size; i++) {
        out[i] = new Field(raw[2 * i].toString(), raw[2 * i + 1].toString());
      }
      made = f = List.of(out);
    }
    return f;
  }

  private static boolean sameName(CharSequence a, String b) {
    if (a.length() != b.length()) {
      return false;
    }
    for (int i = 0; i < b.length(); i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y && Character.toLowerCase(x) != Character.toLowerCase(y)) {
        return false;
      }
    }
    return true;
  }

  /** Pairs of name, value. */
  public static Headers of(String... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("names and values must come in pairs");
    }
    List<Field> list = new ArrayList<>(namesAndValues.length / 2);
    for (int i = 0; i < namesAndValues.length; i += 2) {
      list.add(new Field(namesAndValues[i], namesAndValues[i + 1]));
    }
    return of(list);
  }

  public List<Field> fields() {
    return Collections.unmodifiableList(list());
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** The first value of {@code name} (case-insensitive), or null. */
  public String get(String name) {
    for (int i = 0; i < size; i++) {
      if (sameName(name(i), name)) {
        return value(i).toString();
      }
    }
    return null;
  }

  public List<String> getAll(String name) {
    List<String> out = new ArrayList<>(2);
    for (int i = 0; i < size; i++) {
      if (sameName(name(i), name)) {
        out.add(value(i).toString());
      }
    }
    return out;
  }

  public boolean contains(String name) {
    return get(name) != null;
  }

  /** A copy where {@code name} has the single value {@code value} (at the first occurrence's place, else appended). */
  public Headers with(String name, String value) {
    List<Field> out = new ArrayList<>(size + 1);
    boolean placed = false;
    for (Field f : list()) {
      if (f.name().equalsIgnoreCase(name)) {
        if (!placed) {
          out.add(new Field(name, value));
          placed = true;
        }
      } else {
        out.add(f);
      }
    }
    if (!placed) {
      out.add(new Field(name, value));
    }
    return of(out);
  }

  /** A copy with one more {@code name: value} field at the end. */
  public Headers plus(String name, String value) {
    List<Field> out = new ArrayList<>(list());
    out.add(new Field(name, value));
    return of(out);
  }

  /** A copy without any field named {@code name} (case-insensitive). */
  public Headers without(String name) {
    if (!contains(name)) {
      return this;
    }
    List<Field> out = new ArrayList<>(size);
    for (Field f : list()) {
      if (!f.name().equalsIgnoreCase(name)) {
        out.add(f);
      }
    }
    return of(out);
  }

  /** Approximate wire size ("name: value\r\n" per field), used for HAR headersSize and memory accounting. */
  public long wireSize() {
    long n = 0;
    for (int i = 0; i < size; i++) {
      n += name(i).length() + 2 + value(i).length() + 2;
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Headers h && h.list().equals(list());
  }

  @Override
  public int hashCode() {
    return list().hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Field f : list()) {
      sb.append(f.name()).append(": ").append(f.value()).append('\n');
    }
    return sb.toString();
  }

  /** Lower-cased name, for callers that key maps by header name. */
  public static String normalise(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
