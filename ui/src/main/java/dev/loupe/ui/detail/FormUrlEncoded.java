package dev.loupe.ui.detail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code application/x-www-form-urlencoded} bodies and query strings as name/value pairs, in
 * order, duplicates kept (WHATWG URL, "application/x-www-form-urlencoded parsing"): {@code +} is a
 * space, {@code %XX} a byte, and a malformed escape stays as it is written.
 */
public final class FormUrlEncoded {
  /** One pair; {@code value} is empty for {@code name} alone. */
  public record Param(String name, String value) {}

  private FormUrlEncoded() {}

  public static List<Param> parse(String text, Charset charset) {
    List<Param> out = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return out;
    }
    for (String pair : text.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      out.add(new Param(decode(name, charset), decode(value, charset)));
    }
    return out;
  }

  /** Percent-decodes {@code s} with {@code +} as space; bad escapes are kept literally. */
  public static String decode(String s, Charset charset) {
    if (s.indexOf('%') < 0 && s.indexOf('+') < 0) {
      return s;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
    StringBuilder out = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length() && hex(s.charAt(i + 1)) >= 0 && hex(s.charAt(i + 2)) >= 0) {
        bytes.write(hex(s.charAt(i + 1)) << 4 | hex(s.charAt(i + 2)));
        i += 2;
        continue;
      }
      flush(bytes, out, charset);
      out.append(c == '+' ? ' ' : c);
    }
    flush(bytes, out, charset);
    return out.toString();
  }

  private static void flush(ByteArrayOutputStream bytes, StringBuilder out, Charset charset) {
    if (bytes.size() > 0) {
      out.append(new String(bytes.toByteArray(), charset));
      bytes.reset();
    }
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
