package dev.loupe.ui.detail;

import dev.loupe.ui.body.JsonDocument.JsonTreeNode;
import dev.loupe.ui.flows.FlowRow;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import dev.loupe.ui.body.ContentType;
import dev.loupe.ui.body.JsonDocument;
import dev.loupe.ui.body.DecodedBody;

/**
 * A body made ready for one viewer, computed off the UI thread: what the view shows, nothing it
 * has to work out. Only the fields of {@link #mode()} are set.
 *
 * @param mode     the viewer used (a JSON body that does not parse falls back to {@link ViewerMode#TEXT})
 * @param auto     the viewer the content type chose
 * @param text     for TEXT, JSON (pretty) and HEX
 * @param spans    highlighting of {@code text} (empty when too long to highlight)
 * @param tree     for JSON
 * @param image    for IMAGE
 * @param form     for FORM
 * @param parts    for MULTIPART
 * @param note     what the user should know: decoding, cuts, fallbacks; empty if nothing
 */
public record BodyRendering(ViewerMode mode, ViewerMode auto, String text, List<Span> spans, JsonTreeNode tree,
    byte[] image, List<FormUrlEncoded.Param> form, List<Multipart.Part> parts, String note) {
  /** Text shown at most, in bytes of the decoded body (1 MiB). */
  public static final int TEXT_LIMIT = 1 << 20;
  /** Texts longer than this many characters are shown without highlighting. */
  public static final int HIGHLIGHT_LIMIT = 512 * 1024;
  /**
   * Longer lines are broken for display: one huge line (minified JS, a base64 blob) is laid out as
   * a single text node and would stall the UI thread.
   */
  public static final int MAX_LINE = 2_000;
  /** Bytes shown in the hex view at most (256 KiB: 16,384 lines). */
  public static final int HEX_LIMIT = 256 * 1024;

  static final BodyRendering EMPTY = new BodyRendering(ViewerMode.TEXT, ViewerMode.TEXT, "", List.of(), null, null,
      List.of(), List.of(), "No body");

  /** Renders {@code decoded} for {@code requested} ({@link ViewerMode#AUTO}: by content type). */
  public static BodyRendering render(BodyInput input, DecodedBody decoded, ViewerMode requested) {
    if (input.wireSize() == 0 && decoded.bytes().length == 0) {
      return input.complete() ? EMPTY : new BodyRendering(ViewerMode.TEXT, ViewerMode.TEXT, "", List.of(), null,
          null, List.of(), List.of(), "Waiting for the body");
    }
    ContentType type = ContentType.parse(input.contentType());
    byte[] bytes = decoded.bytes();
    ViewerChoice choice = ViewerChoice.of(type, bytes.length > 8192 ? java.util.Arrays.copyOf(bytes, 8192) : bytes);
    ViewerMode mode = requested == ViewerMode.AUTO ? choice.mode() : requested;
    List<String> notes = new ArrayList<>(4);
    bodyNotes(input, decoded, notes);
    Charset charset = type.charset();
    switch (mode) {
      case JSON: {
        try {
          JsonDocument doc = JsonDocument.parse(bytes);
          String pretty = doc.pretty();
          if (pretty.length() > TEXT_LIMIT) {
            notes.add("showing the first " + FlowRow.humanBytes(TEXT_LIMIT) + " of the pretty JSON");
            pretty = pretty.substring(0, TEXT_LIMIT);
          }
          pretty = breakLongLines(pretty, notes);
          return new BodyRendering(ViewerMode.JSON, choice.mode(), pretty, highlight(Language.JSON, pretty), doc.tree(),
              null, List.of(), List.of(), String.join(" · ", notes));
        } catch (JsonDocument.JsonSyntaxException e) {
          notes.add("not valid JSON" + (decoded.limited() ? " (cut at the limit)" : "") + ": " + e.getMessage());
          return text(bytes, charset, Language.JSON, choice.mode(), notes);
        }
      }
      case HEX: {
        int n = Math.min(bytes.length, HEX_LIMIT);
        if (n < bytes.length) {
          notes.add("hex of the first " + FlowRow.humanBytes(n));
        }
        return new BodyRendering(ViewerMode.HEX, choice.mode(), HexDump.format(bytes, n), List.of(), null, null,
            List.of(), List.of(), String.join(" · ", notes));
      }
      case IMAGE:
        return new BodyRendering(ViewerMode.IMAGE, choice.mode(), "", List.of(), null, bytes, List.of(), List.of(),
            String.join(" · ", notes));
      case FORM: {
        List<FormUrlEncoded.Param> params = FormUrlEncoded.parse(new String(bytes, charset), charset);
        return new BodyRendering(ViewerMode.FORM, choice.mode(), "", List.of(), null, null, params, List.of(),
            String.join(" · ", notes));
      }
      case MULTIPART: {
        Multipart.Parsed parsed = Multipart.parse(bytes, type.boundary());
        if (parsed.error() != null) {
          notes.add("not multipart: " + parsed.error());
          return text(bytes, charset, Language.PLAIN, choice.mode(), notes);
        }
        if (!parsed.complete()) {
          notes.add("no closing boundary: the last part may be cut");
        }
        return new BodyRendering(ViewerMode.MULTIPART, choice.mode(), "", List.of(), null, null, List.of(),
            parsed.parts(), String.join(" · ", notes));
      }
      default: {
        Language language = requested == ViewerMode.AUTO || choice.mode() == ViewerMode.TEXT
            || choice.mode() == ViewerMode.JSON ? choice.language() : Language.PLAIN;
        return text(bytes, charset, language, choice.mode(), notes);
      }
    }
  }

  private static BodyRendering text(byte[] bytes, Charset charset, Language language, ViewerMode auto,
      List<String> notes) {
    int n = Math.min(bytes.length, TEXT_LIMIT);
    if (n < bytes.length) {
      notes.add("showing the first " + FlowRow.humanBytes(n) + " as text");
    }
    String text = breakLongLines(new String(bytes, 0, n, charset), notes);
    return new BodyRendering(ViewerMode.TEXT, auto, text, highlight(language, text), null, null, List.of(), List.of(),
        String.join(" · ", notes));
  }

  /** {@code text} with a line break inserted every {@value #MAX_LINE} characters of a longer line. */
  static String breakLongLines(String text, List<String> notes) {
    int run = 0;
    boolean needed = false;
    for (int i = 0; i < text.length() && !needed; i++) {
      run = text.charAt(i) == '\n' ? 0 : run + 1;
      needed = run > MAX_LINE;
    }
    if (!needed) {
      return text;
    }
    StringBuilder sb = new StringBuilder(text.length() + text.length() / MAX_LINE + 1);
    run = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        run = 0;
      } else if (run == MAX_LINE) {
        sb.append('\n');
        run = 0;
      }
      if (c != '\n') {
        run++;
      }
      sb.append(c);
    }
    notes.add("lines longer than " + String.format(java.util.Locale.ROOT, "%,d", MAX_LINE)
        + " characters are broken for display");
    return sb.toString();
  }

  private static List<Span> highlight(Language language, String text) {
    return text.length() > HIGHLIGHT_LIMIT ? List.of() : Highlighter.spans(language, text);
  }

  private static void bodyNotes(BodyInput input, DecodedBody decoded, List<String> notes) {
    if (!decoded.decoded().isEmpty()) {
      notes.add("decoded from " + String.join(", ", decoded.decoded()) + " (" + FlowRow.humanBytes(input.capturedSize())
          + " → " + FlowRow.humanBytes(decoded.bytes().length) + (decoded.limited() ? "+" : "") + ")");
    }
    if (decoded.error() != null) {
      notes.add(decoded.error());
    }
    if (decoded.limited()) {
      notes.add("showing the first " + FlowRow.humanBytes(decoded.bytes().length)
          + (decoded.decoded().isEmpty() ? " of " + FlowRow.humanBytes(input.capturedSize()) : " decoded"));
    }
    if (input.captureTruncated()) {
      notes.add("only " + FlowRow.humanBytes(input.capturedSize()) + " of " + FlowRow.humanBytes(input.wireSize())
          + " were captured");
    }
    if (!input.complete()) {
      notes.add("still receiving (" + FlowRow.humanBytes(input.wireSize()) + " so far)");
    }
  }
}
