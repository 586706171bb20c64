package dev.loupe.engine.internal.upstream;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code Alt-Svc} response header field (RFC 7838 §3):
 *
 * <pre>
 * Alt-Svc       = clear / 1#alt-value
 * clear         = %s"clear"; "clear", case-sensitive
 * alt-value     = alternative *( OWS ";" OWS parameter )
 * alternative   = protocol-id "=" alt-authority
 * protocol-id   = token ; percent-encoded ALPN protocol name
 * alt-authority = quoted-string ; containing [ uri-host ] ":" port
 * parameter     = token "=" ( token / quoted-string )
 * </pre>
 *
 * {@code ma} (max-age, delta-seconds) defaults to 24 hours; {@code persist} is read but not used
 * (Loupe keeps nothing across runs). A malformed alternative is skipped, the others still count
 * (a client "MUST ignore" what it does not understand); a field value that cannot be parsed at all
 * gives no alternatives.
 */
public final class AltSvc {
  /** RFC 7838 §3.1: "ma" defaults to 24 hours. */
  public static final long DEFAULT_MAX_AGE_SECONDS = 86_400;

  /**
   * One alternative service.
   *
   * @param protocol      the ALPN protocol id, percent-decoded (e.g. {@code h3})
   * @param host          the alternative's host, or null for "the origin's host"
   * @param port          the alternative's port
   * @param maxAgeSeconds how long it stays fresh (from the response's generation)
   */
  public record Alternative(String protocol, String host, int port, long maxAgeSeconds) {}

  /** A parsed field: {@code clear}, or the alternatives in the origin's order of preference. */
  public record Parsed(boolean clear, List<Alternative> alternatives) {
    static final Parsed NONE = new Parsed(false, List.of());
  }

  private AltSvc() {}

  /** Parses all {@code Alt-Svc} field lines of one response, in order (as one comma-joined list). */
  public static Parsed parse(List<String> fieldValues) {
    boolean clear = false;
    List<Alternative> all = new ArrayList<>();
    for (String v : fieldValues) {
      Parsed p = parse(v);
      clear |= p.clear();
      all.addAll(p.alternatives());
    }
    return clear ? new Parsed(true, List.of()) : new Parsed(false, List.copyOf(all));
  }

  /** Parses one field value. */
  public static Parsed parse(String value) {
    if (value == null) {
      return Parsed.NONE;
    }
    String v = value.strip();
    if (v.equals("clear")) {
      return new Parsed(true, List.of());
    }
    List<Alternative> out = new ArrayList<>();
    Cursor c = new Cursor(v);
    while (true) {
      c.skipWhitespace();
      if (c.atEnd()) {
        break;
      }
      if (c.peek() == ',') {
        c.pos++; // empty list element (RFC 9110 §5.6.1 allows them)
        continue;
      }
      Alternative a = alternative(c);
      if (a != null) {
        out.add(a);
      }
      // To the next list element, past anything this alternative left unread.
      if (!c.skipToNextElement()) {
        break;
      }
    }
    return new Parsed(false, List.copyOf(out));
  }

  /** One alt-value at the cursor, or null if malformed (the cursor is then somewhere inside it). */
  private static Alternative alternative(Cursor c) {
    String protocol = c.token();
    if (protocol == null || !c.accept('=')) {
      return null;
    }
    String authority = c.quoted();
    if (authority == null) {
      return null;
    }
    int colon = authority.lastIndexOf(':');
    if (colon < 0) {
      return null;
    }
    String host = authority.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(authority.substring(colon + 1));
    } catch (NumberFormatException e) {
      return null;
    }
    if (port < 1 || port > 65535 || host.indexOf(' ') >= 0) {
      return null;
    }
    long maxAge = DEFAULT_MAX_AGE_SECONDS;
    while (true) {
      c.skipWhitespace();
      if (!c.accept(';')) {
        break;
      }
      c.skipWhitespace();
      String name = c.token();
      if (name == null || !c.accept('=')) {
        return null;
      }
      String pv = c.atEnd() ? null : c.peek() == '"' ? c.quoted() : c.token();
      if (pv == null) {
        return null;
      }
      if (name.equalsIgnoreCase("ma")) {
        maxAge = deltaSeconds(pv);
        if (maxAge < 0) {
          return null;
        }
      }
    }
    String decoded = percentDecode(protocol);
    return decoded == null ? null
        : new Alternative(decoded, host.isEmpty() ? null : host.toLowerCase(Locale.ROOT), port, maxAge);
  }

  /** RFC 9111 §1.2.2 delta-seconds; a value too large to hold is the largest (2^31 as the RFC advises). */
  private static long deltaSeconds(String s) {
    if (s.isEmpty()) {
      return -1;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return -1;
      }
    }
    return s.length() > 10 ? 2_147_483_648L : Math.min(Long.parseLong(s), 2_147_483_648L);
  }

  /** RFC 7838 §3: the protocol-id is percent-encoded ("h3" stays "h3", "w%3Dx%3Ay" is "w=x:y"). */
  private static String percentDecode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch != '%') {
        b.append(ch);
        continue;
      }
      if (i + 2 >= s.length()) {
        return null;
      }
      int hi = Character.digit(s.charAt(i + 1), 16);
      int lo = Character.digit(s.charAt(i + 2), 16);
      if (hi < 0 || lo < 0) {
        return null;
      }
      b.append((char) (hi << 4 | lo));
      i += 2;
    }
    return b.toString();
  }

  private static final class Cursor {
    final String s;
    int pos;

    Cursor(String s) {
      this.s = s;
    }

    boolean atEnd() {
      return pos >= s.length();
    }

    char peek() {
      return s.charAt(pos);
    }

    void skipWhitespace() {
      while (!atEnd() && (peek() == ' ' || peek() == '\t')) {
        pos++;
      }
    }

    boolean accept(char ch) {
      if (!atEnd() && peek() == ch) {
        pos++;
        return true;
      }
      return false;
    }

    /** An RFC 9110 token, or null. */
    String token() {
      int start = pos;
      while (!atEnd() && isTchar(peek())) {
        pos++;
      }
      return pos == start ? null : s.substring(start, pos);
    }

    /** A quoted-string's content (backslash escapes undone), or null. */
    String quoted() {
      if (!accept('"')) {
        return null;
      }
      StringBuilder b = new StringBuilder();
      while (!atEnd()) {
        char ch = s.charAt(pos++);
        if (ch == '"') {
          return b.toString();
        }
        if (ch == '\\') {
          if (atEnd()) {
            return null;
          }
          ch = s.charAt(pos++);
        }
        b.append(ch);
      }
      return null; // unterminated
    }

    /** Past the next top-level comma (commas inside quoted strings do not count); false at the end. */
    boolean skipToNextElement() {
      boolean inQuotes = false;
      while (!atEnd()) {
        char ch = s.charAt(pos++);
        if (inQuotes && ch == '\\') {
          pos++;
        } else if (ch == '"') {
          inQuotes = !inQuotes;
        } else if (ch == ',' && !inQuotes) {
          return true;
        }
      }
      return false;
    }

    private static boolean isTchar(char ch) {
      return ch < 128 && (Character.isLetterOrDigit(ch) || "!#$%&'*+-.^_`|~".indexOf(ch) >= 0);
    }
  }
}
