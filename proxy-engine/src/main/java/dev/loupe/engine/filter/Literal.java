package dev.loupe.engine.filter;

/**
 * A regex without metacharacters ({@code api}, {@code "error":}), searched case-insensitively by a
 * plain loop: {@link java.util.regex.Pattern} has no fast search for case-insensitive literals, and
 * plain words are most of what people type into a filter bar. Matches exactly what the compiled
 * Pattern would: {@link #inText} folds case as {@code CASE_INSENSITIVE | UNICODE_CASE} does for an
 * ASCII needle, {@link #inBytes} as {@code CASE_INSENSITIVE} does (ASCII letters only). Immutable.
 */
final class Literal {
  private static final String METACHARACTERS = "\\^$.|?*+()[]{}";

  /** The needle, ASCII letters lower-cased. */
  private final char[] needle;

  private Literal(char[] needle) {
    this.needle = needle;
  }

  /**
   * The literal {@code regex} stands for, or null when it has metacharacters (or, with
   * {@code asciiOnly}, a non-ASCII character, whose Unicode case folding is left to Pattern).
   */
  static Literal of(String regex, boolean asciiOnly) {
    char[] needle = new char[regex.length()];
    for (int i = 0; i < needle.length; i++) {
      char c = regex.charAt(i);
      if (METACHARACTERS.indexOf(c) >= 0 || (asciiOnly && c >= 128)) {
        return null;
      }
      needle[i] = lowerAscii(c);
    }
    return new Literal(needle);
  }

  /** Whether the needle occurs in {@code text}, folding case as {@code CASE_INSENSITIVE | UNICODE_CASE}. */
  boolean inText(CharSequence text) {
    int last = text.length() - needle.length;
    outer:
    for (int i = 0; i <= last; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (foldUnicode(text.charAt(i + j)) != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** Whether the needle occurs in {@code bytes[0, length)} read as ISO-8859-1, folding ASCII letters only. */
  boolean inBytes(byte[] bytes, int length) {
    if (needle.length == 0) {
      return true;
    }
    char first = needle[0];
    int last = length - needle.length;
    outer:
    for (int i = 0; i <= last; i++) {
      if (lowerAscii((char) (bytes[i] & 0xff)) != first) {
        continue;
      }
      for (int j = 1; j < needle.length; j++) {
        if (lowerAscii((char) (bytes[i + j] & 0xff)) != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static char lowerAscii(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
  }

  /** What {@code UNICODE_CASE} compares: lower case of upper case ({@code K}, the Kelvin sign, is {@code k}). */
  private static char foldUnicode(char c) {
    return c < 128 ? lowerAscii(c) : Character.toLowerCase(Character.toUpperCase(c));
  }
}
