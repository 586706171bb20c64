package dev.loupe.ui.detail;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import dev.loupe.ui.body.ContentType;

/**
 * Which viewer and which syntax fit a body: by its media type first, by its first bytes when the
 * type is missing or says nothing ({@code application/octet-stream}).
 *
 * @param mode     never {@link ViewerMode#AUTO}
 * @param language the syntax for the text view (JSON bodies shown as text keep {@link Language#JSON})
 */
public record ViewerChoice(ViewerMode mode, Language language) {
  /** Image formats JavaFX decodes. */
  private static final Set<String> IMAGES = Set.of(
      "image/png", "image/jpeg", "image/jpg", "image/pjpeg", "image/gif", "image/bmp", "image/x-ms-bmp");
  private static final Set<String> JAVASCRIPT = Set.of(
      "application/javascript", "text/javascript", "application/x-javascript", "application/ecmascript",
      "text/ecmascript", "application/typescript", "text/jsx");

  /** The viewer for {@code type}, looking at {@code sample} (the body's first bytes) when needed. */
  public static ViewerChoice of(ContentType type, byte[] sample) {
    String t = type.mediaType();
    String sub = type.subtype();
    if (t.equals("application/json") || t.equals("text/json") || sub.endsWith("+json")) {
      return new ViewerChoice(ViewerMode.JSON, Language.JSON);
    }
    if (t.equals("application/x-ndjson") || t.equals("application/jsonl") || t.equals("application/json-seq")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.JSON);
    }
    if (IMAGES.contains(t)) {
      return new ViewerChoice(ViewerMode.IMAGE, Language.PLAIN);
    }
    if (t.equals("image/svg+xml")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.XML);
    }
    if (t.equals("application/x-www-form-urlencoded")) {
      return new ViewerChoice(ViewerMode.FORM, Language.PLAIN);
    }
    if (type.type().equals("multipart")) {
      return new ViewerChoice(ViewerMode.MULTIPART, Language.PLAIN);
    }
    if (t.equals("text/html") || t.equals("application/xhtml+xml")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.HTML);
    }
    if (t.equals("application/xml") || t.equals("text/xml") || sub.endsWith("+xml")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.XML);
    }
    if (JAVASCRIPT.contains(t)) {
      return new ViewerChoice(ViewerMode.TEXT, Language.JAVASCRIPT);
    }
    if (t.equals("text/css")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.CSS);
    }
    if (type.type().equals("text")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.PLAIN);
    }
    return sniff(sample);
  }

  /** By the bytes alone: image magic numbers, JSON, markup, text, else hex. */
  public static ViewerChoice sniff(byte[] sample) {
    if (sample.length == 0) {
      return new ViewerChoice(ViewerMode.TEXT, Language.PLAIN);
    }
    if (isImage(sample)) {
      return new ViewerChoice(ViewerMode.IMAGE, Language.PLAIN);
    }
    if (!looksLikeText(sample)) {
      return new ViewerChoice(ViewerMode.HEX, Language.PLAIN);
    }
    String head = new String(sample, 0, Math.min(sample.length, 512), StandardCharsets.UTF_8).stripLeading();
    if (head.startsWith("{") || head.startsWith("[")) {
      return new ViewerChoice(ViewerMode.JSON, Language.JSON);
    }
    String lower = head.toLowerCase(java.util.Locale.ROOT);
    if (lower.startsWith("<!doctype html") || lower.startsWith("<html")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.HTML);
    }
    if (lower.startsWith("<?xml") || lower.startsWith("<")) {
      return new ViewerChoice(ViewerMode.TEXT, Language.XML);
    }
    return new ViewerChoice(ViewerMode.TEXT, Language.PLAIN);
  }

  /** PNG, JPEG, GIF or BMP by their signatures. */
  public static boolean isImage(byte[] b) {
    return startsWith(b, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)
        || startsWith(b, 0xFF, 0xD8, 0xFF)
        || startsWith(b, 'G', 'I', 'F', '8')
        || (startsWith(b, 'B', 'M') && b.length > 14);
  }

  /**
   * Whether the first bytes read as text: valid UTF-8 (a sequence cut at the end of the sample is
   * fine) with few control characters other than tab, CR, LF and form feed.
   */
  public static boolean looksLikeText(byte[] b) {
    int n = Math.min(b.length, 8192);
    int control = 0;
    int i = 0;
    scan:
    while (i < n) {
      int c = b[i] & 0xFF;
      if (c < 0x80) {
        if (c == 0) {
          return false;
        }
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1B) {
          control++;
        }
        i++;
        continue;
      }
      int extra = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 ? (c <= 0xEF ? 2 : -1) : c >= 0xC2 ? 1 : -1;
      if (extra < 0) {
        return false;
      }
      for (int k = 1; k <= extra; k++) {
        if (i + k >= n) {
          break scan; // a sequence cut by the end of the sample
        }
        if ((b[i + k] & 0xC0) != 0x80) {
          return false;
        }
      }
      i += extra + 1;
    }
    return control * 20 <= n; // at most 5 % control characters
  }

  private static boolean startsWith(byte[] b, int... magic) {
    if (b.length < magic.length) {
      return false;
    }
    for (int i = 0; i < magic.length; i++) {
      if ((b[i] & 0xFF) != magic[i]) {
        return false;
      }
    }
    return true;
  }
}
