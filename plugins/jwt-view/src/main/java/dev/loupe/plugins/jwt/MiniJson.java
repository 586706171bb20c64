package dev.loupe.plugins.jwt;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader (RFC 8259) for the JWT view, so the plugin jar needs nothing beyond
 * Loupe's public packages. Objects become {@link LinkedHashMap}s (member order kept), arrays
 * {@link List}s, numbers {@link BigDecimal}s; strings, booleans and null as themselves. Nesting is
 * limited to {@value #MAX_DEPTH} levels. Stateless apart from one parse; not thread-safe per instance.
 */
final class MiniJson {
  static final int MAX_DEPTH = 64;

  /** Thrown for text that is not JSON; the message names the offset. */
  static final class SyntaxException extends Exception {
    SyntaxException(String message, int at) {
      super(message + " at offset " + at);
    }
  }

  private final String in;
  private int pos;

  private MiniJson(String in) {
    this.in = in;
  }

  static Object parse(String text) throws SyntaxException {
    MiniJson p = new MiniJson(text);
    p.space();
    Object v = p.value(0);
    p.space();
    if (p.pos != text.length()) {
      throw new SyntaxException("unexpected '" + text.charAt(p.pos) + "'", p.pos);
    }
    return v;
  }

  private Object value(int depth) throws SyntaxException {
    if (depth > MAX_DEPTH) {
      throw new SyntaxException("nested deeper than " + MAX_DEPTH, pos);
    }
    if (pos >= in.length()) {
      throw new SyntaxException("unexpected end", pos);
    }
    char c = in.charAt(pos);
    switch (c) {
      case '{':
        return object(depth);
      case '[':
        return array(depth);
      case '"':
        return string();
      case 't':
        return word("true", Boolean.TRUE);
      case 'f':
        return word("false", Boolean.FALSE);
      case 'n':
        return word("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw new SyntaxException("unexpected '" + c + "'", pos);
    }
  }

  private Map<String, Object> object(int depth) throws SyntaxException {
    Map<String, Object> out = new LinkedHashMap<>();
    pos++;
    space();
    if (peek() == '}') {
      pos++;
      return out;
    }
    while (true) {
      space();
      if (peek() != '"') {
        throw new SyntaxException("expected a member name", pos);
      }
      String key = string();
      space();
      expect(':');
      space();
      out.put(key, value(depth + 1));
      space();
      char c = next();
      if (c == '}') {
        return out;
      }
      if (c != ',') {
        throw new SyntaxException("expected ',' or '}'", pos - 1);
      }
    }
  }

  private List<Object> array(int depth) throws SyntaxException {
    List<Object> out = new ArrayList<>();
    pos++;
    space();
    if (peek() == ']') {
      pos++;
      return out;
    }
    while (true) {
      space();
      out.add(value(depth + 1));
      space();
      char c = next();
      if (c == ']') {
        return out;
      }
      if (c != ',') {
        throw new SyntaxException("expected ',' or ']'", pos - 1);
      }
    }
  }

  private String string() throws SyntaxException {
    pos++; // the opening quote
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = next();
      if (c == '"') {
        return sb.toString();
      }
      if (c < 0x20) {
        throw new SyntaxException("control character in a string", pos - 1);
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          if (pos + 4 > in.length()) {
            throw new SyntaxException("short \\u escape", pos);
          }
          try {
            sb.append((char) Integer.parseInt(in.substring(pos, pos + 4), 16));
          } catch (NumberFormatException ex) {
            throw new SyntaxException("bad \\u escape", pos);
          }
          pos += 4;
        }
        default -> throw new SyntaxException("bad escape '\\" + e + "'", pos - 1);
      }
    }
  }

  private BigDecimal number() throws SyntaxException {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    while (pos < in.length() && "0123456789.eE+-".indexOf(in.charAt(pos)) >= 0) {
      pos++;
    }
    String text = in.substring(start, pos);
    if (!text.matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?")) {
      throw new SyntaxException("bad number '" + text + "'", start);
    }
    return new BigDecimal(text);
  }

  private Object word(String w, Object value) throws SyntaxException {
    if (!in.startsWith(w, pos)) {
      throw new SyntaxException("unexpected '" + in.charAt(pos) + "'", pos);
    }
    pos += w.length();
    return value;
  }

  private void expect(char c) throws SyntaxException {
    if (next() != c) {
      throw new SyntaxException("expected '" + c + "'", pos - 1);
    }
  }

  private char peek() {
    return pos < in.length() ? in.charAt(pos) : '\0';
  }

  private char next() throws SyntaxException {
    if (pos >= in.length()) {
      throw new SyntaxException("unexpected end", pos);
    }
    return in.charAt(pos++);
  }

  private void space() {
    while (pos < in.length() && " \t\r\n".indexOf(in.charAt(pos)) >= 0) {
      pos++;
    }
  }
}
