package dev.loupe.engine.filter;

/** Helpers for the normalised form: parentheses by precedence, and quoting that {@link Parser} undoes. */
final class Printing {
  private Printing() {}

  static void join(StringBuilder out, Filter[] operands, String separator, int precedence) {
    for (int i = 0; i < operands.length; i++) {
      if (i > 0) {
        out.append(separator);
      }
      operand(out, operands[i], precedence);
    }
  }

  /** Prints {@code f}, in parentheses when it binds more loosely than its parent. */
  static void operand(StringBuilder out, Filter f, int parentPrecedence) {
    if (f.precedence() < parentPrecedence) {
      out.append('(');
      f.print(out);
      out.append(')');
    } else {
      f.print(out);
    }
  }

  /** Appends an operator argument: bare when {@link Parser} would read it back as one word, else quoted. */
  static void argument(StringBuilder out, String text) {
    if (Parser.isBareArgument(text)) {
      out.append(text);
    } else {
      quote(out, text);
    }
  }

  /** Appends a comparison value: bare when {@link Parser} would read it back as one value, else quoted. */
  static void value(StringBuilder out, String text) {
    if (Parser.isBareValue(text)) {
      out.append(text);
    } else {
      quote(out, text);
    }
  }

  /**
   * Double-quotes {@code text} so that {@link Parser} reads it back unchanged: a quote becomes
   * {@code \"}, a backslash that would otherwise pair with the next character becomes {@code \\},
   * and other backslashes (regex escapes such as {@code \d}) stay as they are.
   */
  static void quote(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"') {
        out.append("\\\"");
      } else if (c == '\\') {
        boolean pairs = i + 1 == text.length() || text.charAt(i + 1) == '\\' || text.charAt(i + 1) == '"';
        out.append(pairs ? "\\\\" : "\\");
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
