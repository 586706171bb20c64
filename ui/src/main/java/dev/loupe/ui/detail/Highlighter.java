package dev.loupe.ui.detail;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Small, forgiving lexers for the text views: JSON, HTML/XML (with {@code <script>} and
 * {@code <style>} contents as JavaScript and CSS), JavaScript and CSS. They never fail on bad input
 * (a body may be cut anywhere) and return spans in order, never overlapping, inside the text.
 * Linear in the text's length. Style classes: {@value #KEY}, {@value #STRING}, {@value #NUMBER},
 * {@value #LITERAL}, {@value #PUNCT}, {@value #COMMENT}, {@value #KEYWORD}, {@value #TAG},
 * {@value #ATTR}, {@value #ENTITY}, {@value #SELECTOR}, {@value #PROPERTY}, {@value #AT_RULE}.
 */
public final class Highlighter {
  public static final String KEY = "hl-key";
  public static final String STRING = "hl-string";
  public static final String NUMBER = "hl-number";
  public static final String LITERAL = "hl-literal";
  public static final String PUNCT = "hl-punct";
  public static final String COMMENT = "hl-comment";
  public static final String KEYWORD = "hl-keyword";
  public static final String TAG = "hl-tag";
  public static final String ATTR = "hl-attr";
  public static final String ENTITY = "hl-entity";
  public static final String SELECTOR = "hl-selector";
  public static final String PROPERTY = "hl-property";
  public static final String AT_RULE = "hl-at-rule";

  private static final Set<String> JS_KEYWORDS = Set.of(
      "async", "await", "break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete",
      "do", "else", "export", "extends", "finally", "for", "function", "if", "import", "in", "instanceof", "let",
      "new", "of", "return", "static", "super", "switch", "this", "throw", "try", "typeof", "var", "void",
      "while", "with", "yield", "from", "as", "get", "set");
  private static final Set<String> JS_LITERALS = Set.of("true", "false", "null", "undefined", "NaN", "Infinity");

  private Highlighter() {}

  public static List<Span> spans(Language language, String text) {
    List<Span> out = new ArrayList<>();
    switch (language) {
      case JSON -> json(text, 0, text.length(), out);
      case HTML -> markup(text, true, out);
      case XML -> markup(text, false, out);
      case JAVASCRIPT -> javascript(text, 0, text.length(), out);
      case CSS -> css(text, 0, text.length(), out);
      default -> { }
    }
    return out;
  }

  // ---- JSON -------------------------------------------------------------------------------------

  static void json(String s, int from, int to, List<Span> out) {
    int i = from;
    while (i < to) {
      char c = s.charAt(i);
      if (c == '"') {
        int end = stringEnd(s, i, to, '"');
        int j = end;
        while (j < to && Character.isWhitespace(s.charAt(j))) {
          j++;
        }
        out.add(new Span(i, end, j < to && s.charAt(j) == ':' ? KEY : STRING));
        i = end;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        int end = i + 1;
        while (end < to && isNumberChar(s.charAt(end))) {
          end++;
        }
        out.add(new Span(i, end, NUMBER));
        i = end;
      } else if (Character.isLetter(c)) {
        int end = i + 1;
        while (end < to && Character.isLetter(s.charAt(end))) {
          end++;
        }
        String word = s.substring(i, end);
        if (word.equals("true") || word.equals("false") || word.equals("null")) {
          out.add(new Span(i, end, LITERAL));
        }
        i = end;
      } else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':') {
        out.add(new Span(i, i + 1, PUNCT));
        i++;
      } else {
        i++;
      }
    }
  }

  private static boolean isNumberChar(char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  }

  /** End (exclusive) of a string starting at the quote {@code at}; the bound when unterminated. */
  private static int stringEnd(String s, int at, int to, char quote) {
    int i = at + 1;
    while (i < to) {
      char c = s.charAt(i);
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == quote) {
        return i + 1;
      }
      if ((c == '\n') && quote != '`') {
        return i; // unterminated on this line
      }
      i++;
    }
    return to;
  }

  // ---- HTML / XML -------------------------------------------------------------------------------

  private static void markup(String s, boolean html, List<Span> out) {
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '&') {
        int end = i + 1;
        while (end < n && end - i < 12 && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '#')) {
          end++;
        }
        if (end < n && s.charAt(end) == ';' && end > i + 1) {
          out.add(new Span(i, end + 1, ENTITY));
          i = end + 1;
        } else {
          i++;
        }
        continue;
      }
      if (c != '<') {
        i++;
        continue;
      }
      if (s.startsWith("<!--", i)) {
        int end = indexOrEnd(s, "-->", i + 4, 3);
        out.add(new Span(i, end, COMMENT));
        i = end;
      } else if (s.startsWith("<![CDATA[", i)) {
        int end = indexOrEnd(s, "]]>", i + 9, 3);
        out.add(new Span(i, end, STRING));
        i = end;
      } else if (i + 1 < n && (s.charAt(i + 1) == '!' || s.charAt(i + 1) == '?')) {
        int end = indexOrEnd(s, ">", i + 2, 1);
        out.add(new Span(i, end, KEYWORD));
        i = end;
      } else if (i + 1 < n && (Character.isLetter(s.charAt(i + 1)) || s.charAt(i + 1) == '/')) {
        i = tag(s, i, html, out);
      } else {
        i++;
      }
    }
  }

  /** Lexes the tag at {@code i} (and, in HTML, a script or style element's content); returns where lexing goes on. */
  private static int tag(String s, int i, boolean html, List<Span> out) {
    int n = s.length();
    int nameEnd = i + 1;
    if (s.charAt(nameEnd) == '/') {
      nameEnd++;
    }
    int nameStart = nameEnd;
    while (nameEnd < n && !Character.isWhitespace(s.charAt(nameEnd)) && s.charAt(nameEnd) != '>'
        && s.charAt(nameEnd) != '/') {
      nameEnd++;
    }
    String name = s.substring(nameStart, nameEnd).toLowerCase(Locale.ROOT);
    boolean closing = nameStart > i + 1;
    out.add(new Span(i, nameEnd, TAG));
    int j = nameEnd;
    while (j < n) {
      char c = s.charAt(j);
      if (c == '>' || (c == '/' && j + 1 < n && s.charAt(j + 1) == '>')) {
        int end = c == '>' ? j + 1 : j + 2;
        out.add(new Span(j, end, TAG));
        if (html && !closing && c == '>' && (name.equals("script") || name.equals("style"))) {
          int close = indexOfIgnoreCase(s, "</" + name, end);
          int contentEnd = close < 0 ? n : close;
          if (name.equals("script")) {
            javascript(s, end, contentEnd, out);
          } else {
            css(s, end, contentEnd, out);
          }
          return contentEnd;
        }
        return end;
      }
      if (c == '<') {
        return j; // a broken tag: start over at the next one
      }
      if (Character.isWhitespace(c)) {
        j++;
        continue;
      }
      int attrEnd = j;
      while (attrEnd < n && !Character.isWhitespace(s.charAt(attrEnd)) && "=>/<".indexOf(s.charAt(attrEnd)) < 0) {
        attrEnd++;
      }
      if (attrEnd == j) { // a stray '=' or '/'
        j++;
        continue;
      }
      out.add(new Span(j, attrEnd, ATTR));
      j = attrEnd;
      int k = j;
      while (k < n && Character.isWhitespace(s.charAt(k))) {
        k++;
      }
      if (k < n && s.charAt(k) == '=') {
        k++;
        while (k < n && Character.isWhitespace(s.charAt(k))) {
          k++;
        }
        if (k < n && (s.charAt(k) == '"' || s.charAt(k) == '\'')) {
          int close = s.indexOf(s.charAt(k), k + 1);
          int end = close < 0 ? n : close + 1;
          out.add(new Span(k, end, STRING));
          j = end;
        } else {
          int end = k;
          while (end < n && !Character.isWhitespace(s.charAt(end)) && s.charAt(end) != '>') {
            end++;
          }
          if (end > k) {
            out.add(new Span(k, end, STRING));
          }
          j = end;
        }
      }
    }
    return n;
  }

  private static int indexOrEnd(String s, String what, int from, int len) {
    int at = s.indexOf(what, from);
    return at < 0 ? s.length() : at + len;
  }

  private static int indexOfIgnoreCase(String s, String what, int from) {
    int n = s.length() - what.length();
    for (int i = from; i <= n; i++) {
      if (s.regionMatches(true, i, what, 0, what.length())) {
        return i;
      }
    }
    return -1;
  }

  // ---- JavaScript -------------------------------------------------------------------------------

  static void javascript(String s, int from, int to, List<Span> out) {
    int i = from;
    boolean regexAllowed = true; // at the start of an expression a '/' begins a regex literal
    while (i < to) {
      char c = s.charAt(i);
      if (c == '/' && i + 1 < to && s.charAt(i + 1) == '/') {
        int end = s.indexOf('\n', i);
        end = end < 0 || end > to ? to : end;
        out.add(new Span(i, end, COMMENT));
        i = end;
      } else if (c == '/' && i + 1 < to && s.charAt(i + 1) == '*') {
        int end = s.indexOf("*/", i + 2);
        end = end < 0 || end + 2 > to ? to : end + 2;
        out.add(new Span(i, end, COMMENT));
        i = end;
      } else if (c == '"' || c == '\'' || c == '`') {
        int end = stringEnd(s, i, to, c);
        out.add(new Span(i, end, STRING));
        i = end;
        regexAllowed = false;
      } else if (c == '/' && regexAllowed) {
        int end = regexEnd(s, i, to);
        out.add(new Span(i, end, STRING));
        i = end;
        regexAllowed = false;
      } else if (c >= '0' && c <= '9' || (c == '.' && i + 1 < to && Character.isDigit(s.charAt(i + 1)))) {
        int end = i + 1;
        while (end < to && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '.' || s.charAt(end) == '_')) {
          end++;
        }
        out.add(new Span(i, end, NUMBER));
        i = end;
        regexAllowed = false;
      } else if (Character.isJavaIdentifierStart(c)) {
        int end = i + 1;
        while (end < to && Character.isJavaIdentifierPart(s.charAt(end))) {
          end++;
        }
        String word = s.substring(i, end);
        if (JS_KEYWORDS.contains(word)) {
          out.add(new Span(i, end, KEYWORD));
          regexAllowed = !word.equals("this") && !word.equals("super");
        } else if (JS_LITERALS.contains(word)) {
          out.add(new Span(i, end, LITERAL));
          regexAllowed = false;
        } else {
          regexAllowed = false;
        }
        i = end;
      } else {
        if (!Character.isWhitespace(c)) {
          regexAllowed = c != ')' && c != ']' && c != '}';
        }
        i++;
      }
    }
  }

  /** End of a regex literal at {@code i} ('/'), flags included; the line's end when unterminated. */
  private static int regexEnd(String s, int i, int to) {
    boolean inClass = false;
    int j = i + 1;
    while (j < to) {
      char c = s.charAt(j);
      if (c == '\n') {
        return j;
      }
      if (c == '\\') {
        j += 2;
        continue;
      }
      if (c == '[') {
        inClass = true;
      } else if (c == ']') {
        inClass = false;
      } else if (c == '/' && !inClass) {
        j++;
        while (j < to && Character.isLetter(s.charAt(j))) {
          j++;
        }
        return j;
      }
      j++;
    }
    return Math.min(j, to);
  }

  // ---- CSS --------------------------------------------------------------------------------------

  static void css(String s, int from, int to, List<Span> out) {
    int i = from;
    int depth = 0;
    boolean inValue = false; // after a property's ':' until ';' or '}'
    int stop = -1; // the '{', ';' or '}' that ends the current statement (computed once per statement)
    boolean prelude = false; // after an at-rule's name, until its '{' or ';': left plain
    while (i < to) {
      char c = s.charAt(i);
      if (c == '/' && i + 1 < to && s.charAt(i + 1) == '*') {
        int end = s.indexOf("*/", i + 2);
        end = end < 0 || end + 2 > to ? to : end + 2;
        out.add(new Span(i, end, COMMENT));
        i = end;
      } else if (c == '"' || c == '\'') {
        int end = stringEnd(s, i, to, c);
        out.add(new Span(i, end, STRING));
        i = end;
      } else if (c == '{') {
        depth++;
        inValue = false;
        prelude = false;
        i++;
      } else if (c == '}') {
        depth = Math.max(0, depth - 1);
        inValue = false;
        prelude = false;
        i++;
      } else if (c == ';') {
        inValue = false;
        prelude = false;
        i++;
      } else if (c == '@') {
        int end = i + 1;
        while (end < to && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '-')) {
          end++;
        }
        out.add(new Span(i, end, AT_RULE));
        i = end;
        prelude = true;
      } else if (prelude) {
        i++;
      } else if (inValue) {
        if (c == '#' || Character.isDigit(c) || (c == '.' && i + 1 < to && Character.isDigit(s.charAt(i + 1)))
            || (c == '-' && i + 1 < to && Character.isDigit(s.charAt(i + 1)))) {
          int end = i + 1;
          while (end < to && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '.' || s.charAt(end) == '%')) {
            end++;
          }
          out.add(new Span(i, end, NUMBER));
          i = end;
        } else if (c == '!') {
          int end = i + 1;
          while (end < to && Character.isLetter(s.charAt(end))) {
            end++;
          }
          out.add(new Span(i, end, KEYWORD));
          i = end;
        } else {
          i++;
        }
      } else if (Character.isWhitespace(c) || c == ',') {
        i++;
      } else {
        // A selector (at depth 0, or a nested rule) or a property name: look at what ends the statement.
        if (stop < i) {
          stop = i;
          while (stop < to && "{;}".indexOf(s.charAt(stop)) < 0) {
            stop++;
          }
        }
        boolean rule = stop < to && s.charAt(stop) == '{';
        if (depth > 0 && !rule) {
          int end = i;
          while (end < to && (Character.isLetterOrDigit(s.charAt(end)) || s.charAt(end) == '-' || s.charAt(end) == '_')) {
            end++;
          }
          if (end == i) {
            i++;
            continue;
          }
          int colon = end;
          while (colon < to && Character.isWhitespace(s.charAt(colon))) {
            colon++;
          }
          if (colon < to && s.charAt(colon) == ':') {
            out.add(new Span(i, end, PROPERTY));
            inValue = true;
            i = colon + 1;
          } else {
            i = end;
          }
        } else {
          int end = i;
          while (end < stop && !Character.isWhitespace(s.charAt(end)) && s.charAt(end) != ',') {
            end++;
          }
          out.add(new Span(i, Math.max(end, i + 1), SELECTOR));
          i = Math.max(end, i + 1);
        }
      }
    }
  }
}
