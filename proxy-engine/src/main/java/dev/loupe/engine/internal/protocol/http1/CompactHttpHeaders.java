package dev.loupe.engine.internal.protocol.http1;

import io.netty.handler.codec.CharSequenceValueConverter;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.DefaultHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.util.AsciiString;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Collections;
import java.util.Date;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * Netty {@link HttpHeaders} as one array of names and values in wire order, for the HTTP/1 codecs'
 * messages: a relayed message's head has a handful of fields, which a linear scan finds as fast as
 * a hash, without {@code DefaultHttpHeaders}' 16-bucket table and an entry object per field (about
 * 0.3–0.5 KB per message; four messages per relayed exchange, plus their trailers). The array is
 * made on the first field, so a body's empty trailers cost one small object.
 *
 * <h3>Same behaviour as {@code DefaultHttpHeaders}</h3>
 * Names match in any case, values as given; fields keep insertion order, {@code set} removes every
 * field of the name and appends one at the end; names and values are checked by the validators of
 * {@link DefaultHttpHeadersFactory#headersFactory()} (or {@link
 * DefaultHttpHeadersFactory#trailersFactory()} for trailers), so the decoders refuse the same
 * fields with the same messages (the smuggling defences of issue 13 depend on that); values are
 * converted as {@code DefaultHttpHeaders} converts them (a {@link CharSequence} as it is, a
 * {@link Date} or {@link Calendar} as an HTTP date, anything else by {@code toString()}).
 * {@code CompactHttpHeadersTest} runs the same operations on both and compares.
 *
 * <p>Not thread-safe (a message belongs to one event loop).
 */
public final class CompactHttpHeaders extends HttpHeaders {
  /** Headers for the HTTP/1 decoders: validated as Netty's defaults validate them. */
  public static final HttpHeadersFactory HEADERS = new Factory(DefaultHttpHeadersFactory.headersFactory());
  /** Trailers for the HTTP/1 decoders: validated as Netty's default trailers (no framing fields). */
  public static final HttpHeadersFactory TRAILERS = new Factory(DefaultHttpHeadersFactory.trailersFactory());

  private final DefaultHeaders.NameValidator<CharSequence> nameValidator;
  private final DefaultHeaders.ValueValidator<CharSequence> valueValidator;
  /** name0, value0, name1, value1, …; null until the first field. */
  private CharSequence[] fields;
  private int size;
  /** {@link #fields} was handed out by {@link #shareArray}: copy it before the next change. */
  private boolean shared;

  /** Empty headers, validated as {@code new DefaultHttpHeaders()} validates them. */
  public CompactHttpHeaders() {
    this(DefaultHttpHeadersFactory.headersFactory());
  }

  private CompactHttpHeaders(DefaultHttpHeadersFactory validation) {
    this(validation.getNameValidator(), validation.getValueValidator());
  }

  private CompactHttpHeaders(DefaultHeaders.NameValidator<CharSequence> nameValidator,
      DefaultHeaders.ValueValidator<CharSequence> valueValidator) {
    this.nameValidator = nameValidator;
    this.valueValidator = valueValidator;
  }

  private static final class Factory implements HttpHeadersFactory {
    private final DefaultHttpHeadersFactory validation;

    Factory(DefaultHttpHeadersFactory validation) {
      this.validation = validation;
    }

    @Override
    public HttpHeaders newHeaders() {
      return new CompactHttpHeaders(validation);
    }

    @Override
    public HttpHeaders newEmptyHeaders() {
      return validation.newEmptyHeaders();
    }
  }

  // ---- reading -----------------------------------------------------------------------------

  /** A copy of the fields as name0, value0, name1, value1, … (wire order), exactly {@code 2 * size()} long. */
  public CharSequence[] toArray() {
    return size == 0 ? new CharSequence[0] : Arrays.copyOf(fields, 2 * size);
  }

  /**
   * The fields as name0, value0, … (wire order, at least {@code 2 * size()} long) without a copy
   * when the array has at most two unused field slots (a decoded head usually fills it), else
   * {@link #toArray()}. A shared array is never written again: a later change here copies it first.
   */
  public CharSequence[] shareArray() {
    if (size == 0 || fields.length - 2 * size > 4) {
      return toArray();
    }
    shared = true;
    return fields;
  }

  private void unshare() {
    if (shared) {
      fields = Arrays.copyOf(fields, fields.length);
      shared = false;
    }
  }

  private int indexOf(CharSequence name, int from) {
    for (int i = from; i < size; i++) {
      if (AsciiString.contentEqualsIgnoreCase(fields[2 * i], name)) {
        return i;
      }
    }
    return -1;
  }

  private CharSequence first(CharSequence name) {
    int i = indexOf(name, 0);
    return i < 0 ? null : fields[2 * i + 1];
  }

  @Override
  public String get(String name) {
    return get((CharSequence) name);
  }

  @Override
  public String get(CharSequence name) {
    CharSequence v = first(name);
    return v == null ? null : v.toString();
  }

  @Override
  public String get(CharSequence name, String defaultValue) {
    String v = get(name);
    return v == null ? defaultValue : v;
  }

  @Override
  public Integer getInt(CharSequence name) {
    CharSequence v = first(name);
    if (v == null) {
      return null;
    }
    try {
      return v instanceof AsciiString a ? a.parseInt() : Integer.parseInt(v.toString());
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public int getInt(CharSequence name, int defaultValue) {
    Integer v = getInt(name);
    return v == null ? defaultValue : v;
  }

  @Override
  public Short getShort(CharSequence name) {
    CharSequence v = first(name);
    if (v == null) {
      return null;
    }
    try {
      return v instanceof AsciiString a ? a.parseShort() : Short.parseShort(v.toString());
    } catch (RuntimeException e) {
      return null;
    }
  }

  @Override
  public short getShort(CharSequence name, short defaultValue) {
    Short v = getShort(name);
    return v == null ? defaultValue : v;
  }

  @Override
  public Long getTimeMillis(CharSequence name) {
    CharSequence v = first(name);
    // As DefaultHeaders: the converter's ParseException for a value that is no date goes through.
    return v == null ? null : CharSequenceValueConverter.INSTANCE.convertToTimeMillis(v);
  }

  @Override
  public long getTimeMillis(CharSequence name, long defaultValue) {
    Long v = getTimeMillis(name);
    return v == null ? defaultValue : v;
  }

  @Override
  public List<String> getAll(String name) {
    return getAll((CharSequence) name);
  }

  @Override
  public List<String> getAll(CharSequence name) {
    List<String> out = null;
    for (int i = indexOf(name, 0); i >= 0; i = indexOf(name, i + 1)) {
      if (out == null) {
        out = new ArrayList<>(2);
      }
      out.add(fields[2 * i + 1].toString());
    }
    return out == null ? Collections.emptyList() : out;
  }

  @Override
  public Iterator<String> valueStringIterator(CharSequence name) {
    return getAll(name).iterator();
  }

  @Override
  public Iterator<? extends CharSequence> valueCharSequenceIterator(CharSequence name) {
    return new Iterator<CharSequence>() {
      private int next = indexOf(name, 0);

      @Override
      public boolean hasNext() {
        return next >= 0;
      }

      @Override
      public CharSequence next() {
        if (next < 0) {
          throw new NoSuchElementException();
        }
        CharSequence v = fields[2 * next + 1];
        next = indexOf(name, next + 1);
        return v;
      }
    };
  }

  @Override
  public List<Map.Entry<String, String>> entries() {
    if (size == 0) {
      return Collections.emptyList();
    }
    List<Map.Entry<String, String>> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(new AbstractMap.SimpleImmutableEntry<>(fields[2 * i].toString(), fields[2 * i + 1].toString()));
    }
    return out;
  }

  @Override
  public boolean contains(String name) {
    return indexOf(name, 0) >= 0;
  }

  @Override
  public boolean contains(CharSequence name) {
    return indexOf(name, 0) >= 0;
  }

  @Override
  public boolean contains(String name, String value, boolean ignoreCase) {
    return contains((CharSequence) name, (CharSequence) value, ignoreCase);
  }

  @Override
  public boolean contains(CharSequence name, CharSequence value, boolean ignoreCase) {
    for (int i = indexOf(name, 0); i >= 0; i = indexOf(name, i + 1)) {
      CharSequence v = fields[2 * i + 1];
      if (ignoreCase ? AsciiString.contentEqualsIgnoreCase(v, value) : AsciiString.contentEquals(v, value)) {
        return true;
      }
    }
    return false;
  }

  /**
   * As {@link HttpHeaders#containsValue}: whether a comma-separated element of a value of {@code
   * name}, trimmed, is {@code value}. The same comparisons, without the iterator the inherited one
   * makes per call ({@code HttpUtil.isKeepAlive} and the framing checks ask several times per message).
   */
  @Override
  public boolean containsValue(CharSequence name, CharSequence value, boolean ignoreCase) {
    for (int i = indexOf(name, 0); i >= 0; i = indexOf(name, i + 1)) {
      if (containsCommaSeparatedTrimmed(fields[2 * i + 1], value, ignoreCase)) {
        return true;
      }
    }
    return false;
  }

  /** Netty's {@code HttpHeaders.containsCommaSeparatedTrimmed} (private there), step for step. */
  private static boolean containsCommaSeparatedTrimmed(CharSequence raw, CharSequence expected, boolean ignoreCase) {
    int begin = 0;
    int end = AsciiString.indexOf(raw, ',', begin);
    if (end == -1) {
      return matches(AsciiString.trim(raw), expected, ignoreCase);
    }
    do {
      if (matches(AsciiString.trim(raw.subSequence(begin, end)), expected, ignoreCase)) {
        return true;
      }
      begin = end + 1;
    } while ((end = AsciiString.indexOf(raw, ',', begin)) != -1);
    return begin < raw.length() && matches(AsciiString.trim(raw.subSequence(begin, raw.length())), expected, ignoreCase);
  }

  private static boolean matches(CharSequence trimmed, CharSequence expected, boolean ignoreCase) {
    return ignoreCase ? AsciiString.contentEqualsIgnoreCase(trimmed, expected)
        : AsciiString.contentEquals(trimmed, expected);
  }

  @Override
  public Iterator<Map.Entry<String, String>> iterator() {
    return entries().iterator();
  }

  /**
   * The fields in wire order, without an object per field: each {@code next()} returns the
   * iterator itself as the entry, which holds that field until the following {@code next()}.
   * Netty's encoder, {@code HttpConversionUtil} and {@link Http1Messages#toHeaders} read each entry
   * before the next; a caller that keeps entries uses {@link #iterator()} or {@link #entries()}.
   */
  @Override
  public Iterator<Map.Entry<CharSequence, CharSequence>> iteratorCharSequence() {
    return new FieldCursor();
  }

  private final class FieldCursor implements Iterator<Map.Entry<CharSequence, CharSequence>>,
      Map.Entry<CharSequence, CharSequence> {
    private int next;
    private int at = -1;

    @Override
    public boolean hasNext() {
      return next < size;
    }

    @Override
    public Map.Entry<CharSequence, CharSequence> next() {
      if (next >= size) {
        throw new NoSuchElementException();
      }
      at = next++;
      return this;
    }

    @Override
    public CharSequence getKey() {
      return fields[2 * at];
    }

    @Override
    public CharSequence getValue() {
      return fields[2 * at + 1];
    }

    @Override
    public CharSequence setValue(CharSequence value) {
      throw new UnsupportedOperationException("read-only");
    }

    @Override
    public String toString() {
      return getKey() + "=" + getValue();
    }
  }

  @Override
  public boolean isEmpty() {
    return size == 0;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Set<String> names() {
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < size; i++) {
      out.add(fields[2 * i].toString());
    }
    return out;
  }

  // ---- writing -----------------------------------------------------------------------------

  private void append(CharSequence name, CharSequence value) {
    unshare();
    if (fields == null) {
      fields = new CharSequence[16];
    } else if (2 * size == fields.length) {
      fields = Arrays.copyOf(fields, 2 * fields.length);
    }
    fields[2 * size] = name;
    fields[2 * size + 1] = value;
    size++;
  }

  /** Validates, converts and appends one field (as {@code DefaultHeaders.addObject} does). */
  private void addObject(CharSequence name, Object value) {
    nameValidator.validateName(name);
    if (value == null) {
      throw new NullPointerException("value");
    }
    CharSequence v = convert(value);
    validateValue(name, v);
    append(name, v);
  }

  /** As {@code DefaultHeaders.validateValue}: the validator's refusal, wrapped with the field's name. */
  private void validateValue(CharSequence name, CharSequence value) {
    try {
      valueValidator.validate(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Validation failed for header '" + name + "'", e);
    }
  }

  private static CharSequence convert(Object value) {
    if (value instanceof CharSequence cs) {
      return cs;
    }
    if (value instanceof Date d) {
      return DateFormatter.format(d);
    }
    if (value instanceof Calendar c) {
      return DateFormatter.format(c.getTime());
    }
    return value.toString();
  }

  private void removeAll(CharSequence name) {
    unshare();
    int w = 0;
    for (int i = 0; i < size; i++) {
      if (!AsciiString.contentEqualsIgnoreCase(fields[2 * i], name)) {
        fields[2 * w] = fields[2 * i];
        fields[2 * w + 1] = fields[2 * i + 1];
        w++;
      }
    }
    if (w != size) {
      Arrays.fill(fields, 2 * w, 2 * size, null);
      size = w;
    }
  }

  @Override
  public HttpHeaders add(String name, Object value) {
    return add((CharSequence) name, value);
  }

  @Override
  public HttpHeaders add(CharSequence name, Object value) {
    addObject(name, value);
    return this;
  }

  @Override
  public HttpHeaders add(String name, Iterable<?> values) {
    return add((CharSequence) name, values);
  }

  @Override
  public HttpHeaders add(CharSequence name, Iterable<?> values) {
    nameValidator.validateName(name);
    for (Object v : values) {
      addObject(name, v);
    }
    return this;
  }

  @Override
  public HttpHeaders addInt(CharSequence name, int value) {
    addObject(name, Integer.toString(value));
    return this;
  }

  @Override
  public HttpHeaders addShort(CharSequence name, short value) {
    addObject(name, Short.toString(value));
    return this;
  }

  @Override
  public HttpHeaders set(String name, Object value) {
    return set((CharSequence) name, value);
  }

  @Override
  public HttpHeaders set(CharSequence name, Object value) {
    nameValidator.validateName(name);
    if (value == null) {
      throw new NullPointerException("value");
    }
    CharSequence v = convert(value);
    validateValue(name, v);
    removeAll(name);
    append(name, v);
    return this;
  }

  @Override
  public HttpHeaders set(String name, Iterable<?> values) {
    return set((CharSequence) name, values);
  }

  @Override
  public HttpHeaders set(CharSequence name, Iterable<?> values) {
    nameValidator.validateName(name);
    removeAll(name);
    for (Object v : values) {
      if (v == null) {
        break; // as DefaultHeaders.setObject: the values up to the first null
      }
      CharSequence cv = convert(v);
      validateValue(name, cv);
      append(name, cv);
    }
    return this;
  }

  @Override
  public HttpHeaders setInt(CharSequence name, int value) {
    return set(name, Integer.toString(value));
  }

  @Override
  public HttpHeaders setShort(CharSequence name, short value) {
    return set(name, Short.toString(value));
  }

  @Override
  public HttpHeaders remove(String name) {
    return remove((CharSequence) name);
  }

  @Override
  public HttpHeaders remove(CharSequence name) {
    if (size > 0) {
      removeAll(name);
    }
    return this;
  }

  @Override
  public HttpHeaders clear() {
    if (size > 0) {
      if (shared) {
        fields = null;
        shared = false;
      } else {
        Arrays.fill(fields, 0, 2 * size, null);
      }
      size = 0;
    }
    return this;
  }

  @Override
  public HttpHeaders copy() {
    CompactHttpHeaders c = new CompactHttpHeaders(nameValidator, valueValidator);
    if (size > 0) {
      c.fields = Arrays.copyOf(fields, fields.length);
      c.size = size;
    }
    return c;
  }
}
