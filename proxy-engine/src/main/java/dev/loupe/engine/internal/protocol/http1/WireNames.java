package dev.loupe.engine.internal.protocol.http1;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Header field names and status-line words as HTTP/1 peers spell them, made once: an HTTP/1
 * decoder that finds one of them on the wire takes the constant instead of copying the bytes into a
 * new {@link AsciiString} (or {@code String}) per message. Lookups are <em>case-exact</em>: a name
 * is relayed as it was received, so {@code Content-Type} and {@code content-type} are two entries
 * and any other spelling gets its own copy, as before.
 *
 * <p>The names: every {@link HttpHeaderNames} constant in lower case (that object itself) and
 * capitalised ({@code Content-Type}), plus names servers and browsers send often that Netty lacks
 * or capitalises otherwise ({@code ETag}, {@code WWW-Authenticate}, {@code Sec-WebSocket-Accept}).
 * Tables are open-addressed on a hash of the bytes; they are read-only after class initialisation,
 * so any event loop may use them.
 */
public final class WireNames {
  private static final String[] EXTRA = {
      "ETag", "WWW-Authenticate", "Proxy-Authenticate", "Content-MD5", "TE", "DNT",
      "Sec-WebSocket-Accept", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol",
      "Sec-WebSocket-Extensions", "Sec-WebSocket-Location", "Sec-WebSocket-Origin",
      "X-Content-Type-Options", "X-Frame-Options", "X-XSS-Protection", "Strict-Transport-Security",
      "X-Request-Id", "X-Request-ID", "X-Powered-By", "Alt-Svc", "Priority", "Content-Security-Policy",
      "Referrer-Policy", "Permissions-Policy", "Cross-Origin-Opener-Policy",
      "Cross-Origin-Resource-Policy", "Cross-Origin-Embedder-Policy", "Report-To", "NEL",
      "Server-Timing", "Timing-Allow-Origin", "X-Cache", "X-Served-By", "X-Forwarded-For",
      "X-Forwarded-Proto", "X-Forwarded-Host", "X-Real-IP", "Forwarded", "Sec-Fetch-Site",
      "Sec-Fetch-Mode", "Sec-Fetch-Dest", "Sec-Fetch-User", "Sec-CH-UA", "Sec-CH-UA-Mobile",
      "Sec-CH-UA-Platform", "Upgrade-Insecure-Requests", "Sec-GPC", "Keep-Alive",
  };

  private static final Table<AsciiString> NAMES;
  private static final Table<String> REASONS;
  /** Status codes 100–599 as Strings, made on first sight (a Java String publishes safely). */
  private static final String[] CODES = new String[600];

  static {
    Set<AsciiString> names = new LinkedHashSet<>();
    for (Field f : HttpHeaderNames.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == AsciiString.class) {
        try {
          AsciiString n = (AsciiString) f.get(null);
          names.add(n);
          names.add(AsciiString.cached(capitalised(n.toString())));
        } catch (IllegalAccessException e) {
          throw new ExceptionInInitializerError(e);
        }
      }
    }
    for (String n : EXTRA) {
      names.add(AsciiString.cached(n));
      names.add(AsciiString.cached(n.toLowerCase(java.util.Locale.ROOT)));
    }
    NAMES = new Table<>(names.toArray(new AsciiString[0]), AsciiString::toByteArray);
    Set<String> reasons = new LinkedHashSet<>();
    for (Field f : HttpResponseStatus.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == HttpResponseStatus.class) {
        try {
          reasons.add(((HttpResponseStatus) f.get(null)).reasonPhrase());
        } catch (IllegalAccessException e) {
          throw new ExceptionInInitializerError(e);
        }
      }
    }
    REASONS = new Table<>(reasons.toArray(new String[0]), s -> s.getBytes(StandardCharsets.US_ASCII));
  }

  private WireNames() {}

  /**
   * The header name in {@code bytes[offset, offset + length)}: a constant when it is a common name
   * spelt exactly so, else a new {@link AsciiString} copy (what Netty's decoder makes).
   */
  public static AsciiString name(byte[] bytes, int offset, int length) {
    AsciiString known = NAMES.find(bytes, offset, length);
    return known != null ? known : new AsciiString(bytes, offset, length, true);
  }

  /**
   * A status line's version, {@code HTTP/1.1} or {@code HTTP/1.0} as a constant, else null (the
   * caller makes its String).
   */
  public static String version(byte[] bytes, int offset, int length) {
    if (length == 8 && bytes[offset] == 'H' && bytes[offset + 1] == 'T' && bytes[offset + 2] == 'T'
        && bytes[offset + 3] == 'P' && bytes[offset + 4] == '/' && bytes[offset + 5] == '1'
        && bytes[offset + 6] == '.') {
      byte minor = bytes[offset + 7];
      return minor == '1' ? "HTTP/1.1" : minor == '0' ? "HTTP/1.0" : null;
    }
    return null;
  }

  /** A status code of three digits 100–599 as a shared String, else null. */
  public static String code(byte[] bytes, int offset, int length) {
    if (length != 3) {
      return null;
    }
    int a = bytes[offset] - '0';
    int b = bytes[offset + 1] - '0';
    int c = bytes[offset + 2] - '0';
    if (a < 1 || a > 5 || b < 0 || b > 9 || c < 0 || c > 9) {
      return null;
    }
    int code = a * 100 + b * 10 + c;
    String s = CODES[code];
    if (s == null) {
      s = Integer.toString(code);
      CODES[code] = s;
    }
    return s;
  }

  /** A standard reason phrase ({@code OK}, {@code Not Modified}, …) spelt exactly so, or null. */
  public static String reason(byte[] bytes, int offset, int length) {
    return REASONS.find(bytes, offset, length);
  }

  /** {@code content-type} → {@code Content-Type}. */
  private static String capitalised(String lower) {
    char[] c = lower.toCharArray();
    boolean start = true;
    for (int i = 0; i < c.length; i++) {
      if (start && c[i] >= 'a' && c[i] <= 'z') {
        c[i] = (char) (c[i] - 'a' + 'A');
      }
      start = c[i] == '-';
    }
    return new String(c);
  }

  private static int hash(byte[] bytes, int offset, int length) {
    int h = length;
    for (int i = offset, end = offset + length; i < end; i++) {
      h = 31 * h + bytes[i];
    }
    return h ^ (h >>> 16);
  }

  /** Read-only open addressing from exact bytes to a constant. */
  private static final class Table<T> {
    private final Object[] keys;
    private final byte[][] bytes;
    private final int mask;

    Table(T[] entries, java.util.function.Function<T, byte[]> toBytes) {
      int size = Integer.highestOneBit(Math.max(entries.length, 1) * 4 - 1) << 1;
      keys = new Object[size];
      bytes = new byte[size][];
      mask = size - 1;
      for (T e : entries) {
        byte[] b = toBytes.apply(e);
        int i = hash(b, 0, b.length) & mask;
        while (keys[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = e;
        bytes[i] = b;
      }
    }

    @SuppressWarnings("unchecked")
    T find(byte[] b, int offset, int length) {
      for (int i = hash(b, offset, length) & mask; keys[i] != null; i = (i + 1) & mask) {
        byte[] k = bytes[i];
        if (k.length == length && Arrays.equals(k, 0, length, b, offset, offset + length)) {
          return (T) keys[i];
        }
      }
      return null;
    }
  }
}
