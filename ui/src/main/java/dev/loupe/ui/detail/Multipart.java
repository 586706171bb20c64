package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Headers;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import dev.loupe.ui.body.ContentType;

/**
 * Splits a {@code multipart/*} body into its parts (RFC 2046 §5.1.1; {@code multipart/form-data}
 * per RFC 7578): delimiter lines {@code --boundary} after CRLF (a bare LF is accepted too), optional
 * transport padding, the close delimiter {@code --boundary--}; each part's header section up to the
 * empty line, its content byte for byte. A body cut before its close delimiter (a truncated
 * capture) gives the parts seen, the last one as far as it goes.
 */
public final class Multipart {
  /** At most this many parts are listed (a body of empty parts is tiny but endless). */
  public static final int MAX_PARTS = 10_000;

  /**
   * One part.
   *
   * @param headers     the part's header fields
   * @param name        the {@code name} of its {@code Content-Disposition}, or null
   * @param filename    its {@code filename*} (RFC 8187) or {@code filename}, or null
   * @param contentType its {@code Content-Type}, or null
   * @param content     its bytes
   */
  public record Part(Headers headers, String name, String filename, String contentType, byte[] content) {}

  /**
   * What was found.
   *
   * @param parts    the parts, in order
   * @param complete whether the close delimiter was seen
   * @param error    why nothing could be split (no boundary, delimiter not found), or null
   */
  public record Parsed(List<Part> parts, boolean complete, String error) {
    public Parsed {
      parts = List.copyOf(parts);
    }
  }

  private Multipart() {}

  public static Parsed parse(byte[] body, String boundary) {
    if (boundary == null || boundary.isEmpty()) {
      return new Parsed(List.of(), false, "the content type names no boundary");
    }
    byte[] dash = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
    int at = firstDelimiter(body, dash);
    if (at < 0) {
      return new Parsed(List.of(), false, "the boundary \"" + boundary + "\" does not occur in the body");
    }
    List<Part> parts = new ArrayList<>();
    int pos = at + dash.length;
    while (parts.size() < MAX_PARTS) {
      if (pos + 1 < body.length && body[pos] == '-' && body[pos + 1] == '-') {
        return new Parsed(parts, true, null);
      }
      while (pos < body.length && (body[pos] == ' ' || body[pos] == '\t')) {
        pos++; // transport padding
      }
      if (pos < body.length && body[pos] == '\r') {
        pos++;
      }
      if (pos < body.length && body[pos] == '\n') {
        pos++;
      }
      if (pos >= body.length) {
        return new Parsed(parts, false, null);
      }
      int next = nextDelimiter(body, dash, pos);
      int end = next < 0 ? body.length : next;
      parts.add(part(body, pos, end));
      if (next < 0) {
        return new Parsed(parts, false, null);
      }
      pos = next + (body[next] == '\r' ? 2 : 1) + dash.length;
    }
    return new Parsed(parts, false, null);
  }

  /** The delimiter at the start of the body or of a line. */
  private static int firstDelimiter(byte[] body, byte[] dash) {
    for (int i = indexOf(body, dash, 0); i >= 0; i = indexOf(body, dash, i + 1)) {
      if (i == 0 || body[i - 1] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** Index of the line break (CR or LF) that precedes the next delimiter at or after {@code from}. */
  private static int nextDelimiter(byte[] body, byte[] dash, int from) {
    for (int i = indexOf(body, dash, from); i >= 0; i = indexOf(body, dash, i + 1)) {
      if (i > from && body[i - 1] == '\n') {
        return i >= 2 && body[i - 2] == '\r' && i - 2 >= from ? i - 2 : i - 1;
      }
    }
    return -1;
  }

  private static Part part(byte[] body, int start, int end) {
    int headerEnd = -1;
    int contentStart = start;
    if (start < end && (body[start] == '\n' || (body[start] == '\r' && start + 1 < end && body[start + 1] == '\n'))) {
      contentStart = start + (body[start] == '\r' ? 2 : 1); // no header fields at all
      headerEnd = start;
    } else {
      for (int i = start; i < end; i++) {
        if (body[i] == '\n') {
          if (i + 1 < end && body[i + 1] == '\n') {
            headerEnd = i;
            contentStart = i + 2;
            break;
          }
          if (i + 2 < end && body[i + 1] == '\r' && body[i + 2] == '\n') {
            headerEnd = i;
            contentStart = i + 3;
            break;
          }
        }
      }
    }
    if (headerEnd < 0) { // no empty line: all header, or a cut part
      headerEnd = end;
      contentStart = end;
    }
    Headers headers = headers(new String(body, start, headerEnd - start, StandardCharsets.UTF_8));
    ContentType disposition = ContentType.parse(headers.get("content-disposition"));
    String filename = extended(disposition.parameters().get("filename*"));
    if (filename == null) {
      filename = disposition.parameters().get("filename");
    }
    return new Part(headers, disposition.parameters().get("name"), filename, headers.get("content-type"),
        Arrays.copyOfRange(body, contentStart, end));
  }

  private static Headers headers(String block) {
    List<Headers.Field> fields = new ArrayList<>();
    for (String line : block.split("\r?\n")) {
      if (line.isEmpty()) {
        continue;
      }
      if ((line.charAt(0) == ' ' || line.charAt(0) == '\t') && !fields.isEmpty()) {
        Headers.Field last = fields.remove(fields.size() - 1); // obsolete line folding
        fields.add(new Headers.Field(last.name(), last.value() + " " + line.trim()));
        continue;
      }
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.add(new Headers.Field(line.substring(0, colon).trim(), line.substring(colon + 1).trim()));
      }
    }
    return Headers.of(fields);
  }

  /** RFC 8187 {@code charset'lang'pct-encoded}, or null when malformed. */
  static String extended(String value) {
    if (value == null) {
      return null;
    }
    int q1 = value.indexOf('\'');
    int q2 = q1 < 0 ? -1 : value.indexOf('\'', q1 + 1);
    if (q2 < 0) {
      return null;
    }
    Charset cs;
    try {
      cs = Charset.forName(value.substring(0, q1));
    } catch (RuntimeException e) {
      return null;
    }
    return FormUrlEncoded.decode(value.substring(q2 + 1).replace("+", "%2B"), cs);
  }

  private static int indexOf(byte[] hay, byte[] needle, int from) {
    outer:
    for (int i = Math.max(0, from); i <= hay.length - needle.length; i++) {
      if (hay[i] != needle[0]) {
        continue;
      }
      for (int k = 1; k < needle.length; k++) {
        if (hay[i + k] != needle[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
