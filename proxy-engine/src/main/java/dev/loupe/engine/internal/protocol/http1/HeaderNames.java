package dev.loupe.engine.internal.protocol.http1;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

/**
 * The common header field names, lower-cased, made once: a codec that must send a name in lower
 * case (HTTP/2, HTTP/3) takes the constant instead of lower-casing a copy per message. Netty's
 * {@link HttpHeaderNames} plus a few names origins send often that it lacks.
 */
public final class HeaderNames {
  /** Open addressing on {@link AsciiString#hashCode(CharSequence)}, which ignores case. */
  private static final AsciiString[] TABLE;
  private static final int MASK;

  static {
    List<AsciiString> names = new ArrayList<>();
    for (Field f : HttpHeaderNames.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == AsciiString.class) {
        try {
          names.add((AsciiString) f.get(null));
        } catch (IllegalAccessException e) {
          throw new ExceptionInInitializerError(e);
        }
      }
    }
    for (String n : new String[] {"x-content-type-options", "x-frame-options", "x-xss-protection",
        "strict-transport-security", "x-request-id", "x-powered-by", "alt-svc", "priority"}) {
      names.add(AsciiString.cached(n));
    }
    int size = Integer.highestOneBit(names.size() * 4 - 1) << 1;
    TABLE = new AsciiString[size];
    MASK = size - 1;
    for (AsciiString n : names) {
      if (lowerCase(n) == null) {
        int i = AsciiString.hashCode(n) & MASK;
        while (TABLE[i] != null) {
          i = (i + 1) & MASK;
        }
        TABLE[i] = n;
      }
    }
  }

  private HeaderNames() {}

  /** The lower-case constant for {@code name} in any case, or null when it is not a common name. */
  public static AsciiString lowerCase(CharSequence name) {
    int n = name.length();
    for (int i = AsciiString.hashCode(name) & MASK; TABLE[i] != null; i = (i + 1) & MASK) {
      AsciiString k = TABLE[i];
      if (k.length() == n && AsciiString.contentEqualsIgnoreCase(k, name)) {
        return k;
      }
    }
    return null;
  }
}
