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

  private final List<Field> fields;

  private Headers(List<Field> fields) {
    this.fields = fields;
  }

  public static Headers of(List<Field> fields) {
    return fields.isEmpty() ? EMPTY : new Headers(List.copyOf(fields));
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
    return Collections.unmodifiableList(fields);
  }

  public int size() {
    return fields.size();
  }

  public boolean isEmpty() {
    return fields.isEmpty();
  }

  /** The first value of {@code name} (case-insensitive), or null. */
  public String get(String name) {
    for (Field f : fields) {
      if (f.name().equalsIgnoreCase(name)) {
        return f.value();
      }
    }
    return null;
  }

  public List<String> getAll(String name) {
    List<String> out = new ArrayList<>(2);
    for (Field f : fields) {
      if (f.name().equalsIgnoreCase(name)) {
        out.add(f.value());
      }
    }
    return out;
  }

  public boolean contains(String name) {
    return get(name) != null;
  }

  /** A copy where {@code name} has the single value {@code value} (at the first occurrence's place, else appended). */
  public Headers with(String name, String value) {
    List<Field> out = new ArrayList<>(fields.size() + 1);
    boolean placed = false;
    for (Field f : fields) {
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
    List<Field> out = new ArrayList<>(fields);
    out.add(new Field(name, value));
    return of(out);
  }

  /** A copy without any field named {@code name} (case-insensitive). */
  public Headers without(String name) {
    if (!contains(name)) {
      return this;
    }
    List<Field> out = new ArrayList<>(fields.size());
    for (Field f : fields) {
      if (!f.name().equalsIgnoreCase(name)) {
        out.add(f);
      }
    }
    return of(out);
  }

  /** Approximate wire size ("name: value\r\n" per field), used for HAR headersSize and memory accounting. */
  public long wireSize() {
    long n = 0;
    for (Field f : fields) {
      n += f.name().length() + 2 + f.value().length() + 2;
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Headers h && h.fields.equals(fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Field f : fields) {
      sb.append(f.name()).append(": ").append(f.value()).append('\n');
    }
    return sb.toString();
  }

  /** Lower-cased name, for callers that key maps by header name. */
  public static String normalise(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
