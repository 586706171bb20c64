package dev.loupe.app.sysproxy;

import java.util.ArrayList;
import java.util.List;

/**
 * The few bits of GVariant text format (what {@code gsettings get} prints and {@code gsettings set}
 * parses) that the GNOME backend needs: string literals and arrays of strings. Saved values are
 * restored from the exact text gsettings printed, so only new values go through here.
 */
final class GVariantText {
  private GVariantText() {}

  /** A GVariant string literal: {@code 'it\'s'}. */
  static String string(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('\'');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\' -> sb.append("\\\\");
        case '\'' -> sb.append("\\'");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        default -> sb.append(c);
      }
    }
    return sb.append('\'').toString();
  }

  /** A GVariant array of strings ({@code as}): {@code ['a', 'b']}, or {@code @as []} when empty. */
  static String stringArray(List<String> items) {
    if (items.isEmpty()) {
      return "@as []";
    }
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < items.size(); i++) {
      sb.append(i == 0 ? "" : ", ").append(string(items.get(i)));
    }
    return sb.append(']').toString();
  }

  /**
   * Parses an array of strings as gsettings prints it: {@code ['a', "it's"]}, {@code []} or
   * {@code @as []}.
   *
   * @throws IllegalArgumentException when {@code text} is not such an array
   */
  static List<String> parseStringArray(String text) {
    String t = text.strip();
    if (t.startsWith("@as")) {
      t = t.substring(3).strip();
    }
    List<String> out = new ArrayList<>();
    int[] pos = {0};
    expect(t, pos, '[');
    skipSpace(t, pos);
    if (pos[0] < t.length() && t.charAt(pos[0]) == ']') {
      pos[0]++;
    } else {
      while (true) {
        skipSpace(t, pos);
        out.add(parseString(t, pos));
        skipSpace(t, pos);
        if (pos[0] < t.length() && t.charAt(pos[0]) == ',') {
          pos[0]++;
          continue;
        }
        expect(t, pos, ']');
        break;
      }
    }
    skipSpace(t, pos);
    if (pos[0] != t.length()) {
      throw new IllegalArgumentException("not an array of strings: " + text);
    }
    return out;
  }

  private static String parseString(String t, int[] pos) {
    if (pos[0] >= t.length() || (t.charAt(pos[0]) != '\'' && t.charAt(pos[0]) != '"')) {
      throw new IllegalArgumentException("expected a string at " + pos[0] + " in " + t);
    }
    char quote = t.charAt(pos[0]++);
    StringBuilder sb = new StringBuilder();
    while (pos[0] < t.length()) {
      char c = t.charAt(pos[0]++);
      if (c == quote) {
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (pos[0] >= t.length()) {
        break;
      }
      char e = t.charAt(pos[0]++);
      switch (e) {
        case 'n' -> sb.append('\n');
        case 't' -> sb.append('\t');
        case 'r' -> sb.append('\r');
        case 'u' -> {
          sb.append((char) Integer.parseInt(t.substring(pos[0], pos[0] + 4), 16));
          pos[0] += 4;
        }
        default -> sb.append(e);
      }
    }
    throw new IllegalArgumentException("unterminated string in " + t);
  }

  private static void expect(String t, int[] pos, char c) {
    skipSpace(t, pos);
    if (pos[0] >= t.length() || t.charAt(pos[0]) != c) {
      throw new IllegalArgumentException("expected '" + c + "' at " + pos[0] + " in " + t);
    }
    pos[0]++;
  }

  private static void skipSpace(String t, int[] pos) {
    while (pos[0] < t.length() && Character.isWhitespace(t.charAt(pos[0]))) {
      pos[0]++;
    }
  }
}
