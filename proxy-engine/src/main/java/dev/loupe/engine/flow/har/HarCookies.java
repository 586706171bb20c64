package dev.loupe.engine.flow.har;

import dev.loupe.engine.flow.Headers;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses {@code Cookie} and {@code Set-Cookie} fields into HAR cookie objects. Lenient, as
 * browsers are (<a href="https://datatracker.ietf.org/doc/html/rfc6265#section-5.2">RFC 6265
 * §5.2</a>): a malformed attribute is skipped, never an error. Stateless.
 */
final class HarCookies {
  private HarCookies() {}

  /**
   * One cookie as HAR writes it.
   *
   * @param expires null when the cookie is a session cookie or the date did not parse
   */
  record Cookie(
      String name, String value, String path, String domain, Instant expires, boolean httpOnly, boolean secure) {}

  /** The date forms seen in the wild, tried after the leading day name is removed. */
  private static final List<DateTimeFormatter> DATE_FORMS = List.of(
      pattern("d MMM uuuu HH:mm:ss z"), // RFC 1123 (the one RFC 6265 servers should send)
      pattern("d-MMM-uuuu HH:mm:ss z"), // Netscape
      pattern("d-MMM-yy HH:mm:ss z"), // RFC 850
      pattern("d MMM yy HH:mm:ss z"));

  /** asctime, which carries no zone: it is always GMT. */
  private static final DateTimeFormatter ASCTIME = pattern("MMM d HH:mm:ss uuuu");

  private static DateTimeFormatter pattern(String p) {
    return new DateTimeFormatterBuilder()
        .parseCaseInsensitive()
        .appendPattern(p)
        .toFormatter(Locale.US);
  }

  /** The cookies of every {@code Cookie} field (HTTP/2 may split them over several). */
  static List<Cookie> requestCookies(Headers headers) {
    List<Cookie> out = new ArrayList<>();
    for (String field : headers.getAll("Cookie")) {
      for (String pair : field.split(";")) {
        String p = pair.trim();
        if (p.isEmpty()) {
          continue;
        }
        int eq = p.indexOf('=');
        String name = eq < 0 ? "" : p.substring(0, eq).trim();
        String value = eq < 0 ? p : p.substring(eq + 1).trim();
        out.add(new Cookie(name, value, null, null, null, false, false));
      }
    }
    return out;
  }

  /** One cookie per {@code Set-Cookie} field; {@code received} anchors {@code Max-Age}. */
  static List<Cookie> responseCookies(Headers headers, Instant received) {
    List<Cookie> out = new ArrayList<>();
    for (String field : headers.getAll("Set-Cookie")) {
      Cookie c = parseSetCookie(field, received);
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  static Cookie parseSetCookie(String field, Instant received) {
    String[] parts = field.split(";");
    String first = parts[0].trim();
    if (first.isEmpty()) {
      return null;
    }
    int eq = first.indexOf('=');
    // RFC 6265bis: a pair without '=' is a cookie with an empty name
    String name = eq < 0 ? "" : first.substring(0, eq).trim();
    String value = eq < 0 ? first : first.substring(eq + 1).trim();
    String path = null;
    String domain = null;
    Instant expires = null;
    Instant maxAgeExpires = null;
    boolean httpOnly = false;
    boolean secure = false;
    for (int i = 1; i < parts.length; i++) {
      String attr = parts[i].trim();
      int aeq = attr.indexOf('=');
      String key = (aeq < 0 ? attr : attr.substring(0, aeq)).trim().toLowerCase(Locale.ROOT);
      String val = aeq < 0 ? "" : attr.substring(aeq + 1).trim();
      switch (key) {
        case "path" -> path = val;
        case "domain" -> domain = val;
        case "expires" -> expires = parseDate(val);
        case "max-age" -> maxAgeExpires = maxAge(val, received);
        case "httponly" -> httpOnly = true;
        case "secure" -> secure = true;
        default -> {
          // SameSite, Partitioned, Priority, extensions: not in HAR 1.2
        }
      }
    }
    // Max-Age wins over Expires (RFC 6265 §5.3 step 3)
    Instant effective = maxAgeExpires != null ? maxAgeExpires : expires;
    return new Cookie(name, value, path, domain, effective, httpOnly, secure);
  }

  private static Instant maxAge(String val, Instant received) {
    try {
      long seconds = Long.parseLong(val);
      if (seconds <= 0) {
        return Instant.EPOCH; // "the earliest representable date and time"
      }
      return received.plusSeconds(Math.min(seconds, 400L * 24 * 3600));
    } catch (NumberFormatException | DateTimeException e) {
      return null;
    }
  }

  /** An HTTP cookie date, or null. The day name is dropped first: servers get it wrong. */
  static Instant parseDate(String raw) {
    String s = raw.trim();
    if (s.length() > 1 && s.startsWith("\"") && s.endsWith("\"")) {
      s = s.substring(1, s.length() - 1).trim();
    }
    int i = 0;
    while (i < s.length() && Character.isLetter(s.charAt(i))) {
      i++;
    }
    if (i > 0 && i < s.length() && (s.charAt(i) == ',' || s.charAt(i) == ' ') && !startsWithMonth(s)) {
      s = s.substring(i + 1).trim();
    }
    s = s.replaceAll("\\s+", " ");
    for (DateTimeFormatter f : DATE_FORMS) {
      try {
        return ZonedDateTime.parse(s, f).toInstant();
      } catch (DateTimeParseException e) {
        // try the next form
      }
    }
    try {
      return LocalDateTime.parse(s, ASCTIME).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static boolean startsWithMonth(String s) {
    if (s.length() < 3) {
      return false;
    }
    String m = s.substring(0, 3).toLowerCase(Locale.ROOT);
    return "jan feb mar apr may jun jul aug sep oct nov dec".contains(m);
  }
}
