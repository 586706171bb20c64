package dev.loupe.engine.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.PatternSyntaxException;

/**
 * Recursive-descent parser for the filter language (grammar in {@code docs/FILTERS.md}):
 *
 * <pre>
 * filter   = [ sequence ]
 * sequence = or { or }                 juxtaposition: and, binding loosest (as in mitmproxy)
 * or       = and { "|" and }
 * and      = unary { "&amp;" unary }
 * unary    = "!" unary | primary
 * primary  = "(" sequence ")" | "~" name [ argument ] | comparison | regex
 * </pre>
 *
 * Words are read in context: an operator's argument runs to the next whitespace (or a {@code )}
 * that closes nothing opened inside it), so {@code ~d a|b} is one regex, as in mitmproxy; a
 * comparison value (other than the regex of {@code host*=}) also stops at {@code & | ( )}. One
 * instance parses one expression.
 */
final class Parser {
  private final String in;
  private int pos;

  Parser(String expression) {
    this.in = Objects.requireNonNull(expression, "expression");
  }

  Filter parse() {
    skipSpace();
    if (atEnd()) {
      return Filter.ALL;
    }
    Filter f = sequence();
    if (!atEnd()) {
      throw new FilterSyntaxException("unexpected ')'", pos, 1);
    }
    return f;
  }

  /** Stops at the end of input or at a {@code )}, which the caller deals with. */
  private Filter sequence() {
    List<Filter> parts = new ArrayList<>(2);
    parts.add(or(null));
    while (skipSpace() && peek() != ')') {
      parts.add(or(null));
    }
    return And.of(parts);
  }

  private Filter or(String context) {
    List<Filter> parts = new ArrayList<>(2);
    parts.add(and(context));
    while (skipSpace() && peek() == '|') {
      pos++;
      parts.add(and("after '|'"));
    }
    return Or.of(parts);
  }

  private Filter and(String context) {
    List<Filter> parts = new ArrayList<>(2);
    parts.add(unary(context));
    while (skipSpace() && peek() == '&') {
      pos++;
      parts.add(unary("after '&'"));
    }
    return And.of(parts);
  }

  private Filter unary(String context) {
    skipSpace();
    if (!atEnd() && peek() == '!') {
      pos++;
      return new Not(unary("after '!'"));
    }
    return primary(context);
  }

  /** {@code context} completes "expected an expression ..." when nothing is there. */
  private Filter primary(String context) {
    String missing = context == null ? "expected an expression" : "expected an expression " + context;
    if (!skipSpace()) {
      throw new FilterSyntaxException(missing, pos, 0);
    }
    char c = peek();
    return switch (c) {
      case '(' -> group();
      case ')' -> throw new FilterSyntaxException(context == null ? "unexpected ')'" : missing, pos, 1);
      case '&', '|' -> throw new FilterSyntaxException(
          context == null ? "expected an expression before '" + c + "'" : missing, pos, 1);
      case '~' -> operator();
      case '"', '\'' -> regex(RegexAtom.Target.URL, quoted());
      default -> wordOrComparison();
    };
  }

  private Filter group() {
    pos++;
    if (!skipSpace() || peek() == ')') {
      throw new FilterSyntaxException("expected an expression after '('", pos, atEnd() ? 0 : 1);
    }
    Filter inner = sequence();
    if (atEnd()) {
      throw new FilterSyntaxException("expected ')'", pos, 0);
    }
    pos++;
    return inner;
  }

  private Filter operator() {
    int start = pos++;
    while (!atEnd() && !isSpace(peek()) && "()'\"&|!".indexOf(peek()) < 0) {
      pos++;
    }
    String name = in.substring(start + 1, pos);
    if (name.isEmpty()) {
      throw new FilterSyntaxException("expected an operator name after '~'", start, 1);
    }
    for (Flag.Kind k : Flag.Kind.values()) {
      if (k.code.equals(name)) {
        return k == Flag.Kind.ALL ? Filter.ALL : new Flag(k);
      }
    }
    for (RegexAtom.Target t : RegexAtom.Target.values()) {
      if (t.code.equals(name)) {
        return regex(t, argument("a regex after ~" + name));
      }
    }
    for (BodyAtom.Side s : BodyAtom.Side.values()) {
      if (s.code.equals(name)) {
        Token arg = argument("a regex after ~" + name);
        try {
          return BodyAtom.compile(s, arg.text);
        } catch (PatternSyntaxException e) {
          throw invalidRegex(e, arg);
        }
      }
    }
    if (name.equals("c")) {
      Token code = argument("a status code after ~c");
      return compileField("status", Op.EQ, code);
    }
    throw new FilterSyntaxException("unknown operator ~" + name, start, pos - start);
  }

  private Filter regex(RegexAtom.Target target, Token regex) {
    try {
      return RegexAtom.compile(target, regex.text);
    } catch (PatternSyntaxException e) {
      throw invalidRegex(e, regex);
    }
  }

  private static FilterSyntaxException invalidRegex(PatternSyntaxException e, Token regex) {
    return new FilterSyntaxException("invalid regex: " + e.getDescription(), regex.position, regex.length);
  }

  /** An operator's argument: a quoted string or a word. */
  private Token argument(String expected) {
    if (!skipSpace() || "!&|)~".indexOf(peek()) >= 0) {
      throw new FilterSyntaxException("expected " + expected, pos, atEnd() ? 0 : 1);
    }
    char c = peek();
    return c == '"' || c == '\'' ? quoted() : word();
  }

  /** Characters up to whitespace or a {@code )} that closes nothing opened in the word. */
  private Token word() {
    int start = pos;
    int depth = 0;
    while (!atEnd() && !isSpace(peek())) {
      char c = peek();
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        if (depth == 0) {
          break;
        }
        depth--;
      }
      pos++;
    }
    return new Token(in.substring(start, pos), start, pos - start, false);
  }

  /**
   * A string in single or double quotes. A backslash before the closing quote or another backslash
   * escapes it; any other backslash is kept, so regex escapes ({@code \d}, {@code \.}) pass through.
   */
  private Token quoted() {
    int start = pos;
    char quote = in.charAt(pos++);
    StringBuilder text = new StringBuilder();
    while (true) {
      if (atEnd()) {
        throw new FilterSyntaxException("unterminated string", start, pos - start);
      }
      char c = in.charAt(pos++);
      if (c == quote) {
        return new Token(text.toString(), start, pos - start, true);
      }
      if (c == '\\' && !atEnd()) {
        char next = in.charAt(pos++);
        if (next != quote && next != '\\') {
          text.append('\\');
        }
        text.append(next);
      } else {
        text.append(c);
      }
    }
  }

  /** A bare word: {@code field op value} when it starts with a field name and an operator, else a URL regex. */
  private Filter wordOrComparison() {
    int start = pos;
    int nameEnd = start;
    while (nameEnd < in.length() && (Character.isLetter(in.charAt(nameEnd)) || in.charAt(nameEnd) == '.')) {
      nameEnd++;
    }
    Op op = nameEnd > start ? Op.at(in, nameEnd) : null;
    if (op != null) {
      String written = in.substring(start, nameEnd);
      String field = Fields.normalise(written);
      if (Fields.isField(field)) {
        return comparison(field, op, nameEnd);
      }
      if (op != Op.EQ && op != Op.MATCHES) {
        throw new FilterSyntaxException("unknown field '" + written + "' (fields: " + String.join(", ", Fields.NAMES)
            + ")", start, nameEnd - start);
      }
    }
    return regex(RegexAtom.Target.URL, word());
  }

  private Filter comparison(String field, Op op, int opStart) {
    if (!Fields.accepts(field, op)) {
      throw new FilterSyntaxException("operator " + op.symbol + " does not apply to " + field, opStart,
          op.symbol.length());
    }
    pos = opStart + op.symbol.length();
    Token value;
    if (!atEnd() && (peek() == '"' || peek() == '\'')) {
      value = quoted();
    } else if (op == Op.MATCHES) {
      value = word(); // a regex, read like an operator's argument
    } else {
      int start = pos;
      while (!atEnd() && !isSpace(peek()) && "()&|".indexOf(peek()) < 0) {
        pos++;
      }
      value = new Token(in.substring(start, pos), start, pos - start, false);
    }
    if (value.text.isEmpty() && !value.quoted) {
      throw new FilterSyntaxException("expected a value after " + field + op.symbol, pos, 0);
    }
    return compileField(field, op, value);
  }

  private Filter compileField(String field, Op op, Token value) {
    try {
      return Fields.compile(field, op, value.text);
    } catch (Units.BadValue e) {
      int inner = value.quoted ? 1 : 0;
      int length = e.length == 0 && value.length > 0 ? value.length : e.length;
      int position = e.length == 0 ? value.position : value.position + inner + e.offset;
      throw new FilterSyntaxException(e.getMessage(), position, length);
    } catch (PatternSyntaxException e) {
      throw invalidRegex(e, value);
    }
  }

  /** Skips whitespace; returns whether input remains. */
  private boolean skipSpace() {
    while (!atEnd() && isSpace(peek())) {
      pos++;
    }
    return !atEnd();
  }

  private boolean atEnd() {
    return pos >= in.length();
  }

  private char peek() {
    return in.charAt(pos);
  }

  private static boolean isSpace(char c) {
    return Character.isWhitespace(c);
  }

  /**
   * Whether {@link #argument} reads {@code text} back, unquoted, as exactly {@code text}, wherever it
   * stands: its parentheses balance, since a word left with one open would take the {@code )} of an
   * enclosing group that follows it ({@code (~u \(x)}: a regex's escaped parenthesis counts too).
   */
  static boolean isBareArgument(String text) {
    if (text.isEmpty() || "!&|)~'\"".indexOf(text.charAt(0)) >= 0) {
      return false;
    }
    int depth = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (isSpace(c) || (c == ')' && depth == 0)) {
        return false;
      }
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    return depth == 0;
  }

  /** Whether a comparison reads {@code text} back, unquoted, as exactly {@code text}. */
  static boolean isBareValue(String text) {
    if (text.isEmpty() || text.charAt(0) == '"' || text.charAt(0) == '\'') {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (isSpace(c) || "()&|".indexOf(c) >= 0) {
        return false;
      }
    }
    return true;
  }

  /** A piece of input: its text (unquoted) and where it was. */
  private record Token(String text, int position, int length, boolean quoted) {}
}
