package dev.loupe.ui.diff;

import dev.loupe.ui.body.ContentType;
import dev.loupe.ui.body.JsonDocument;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * Two bodies compared: when both are text, a {@link LineDiff} of their lines (JSON on both sides is
 * pretty-printed first, so a change in a minified document shows as the lines that changed);
 * otherwise (binary on either side) only their sizes and SHA-256 digests.
 *
 * @param text        whether both sides are text and {@code lines} holds their diff
 * @param lines       the line diff, or null when not text
 * @param leftSize    the left body's wire size
 * @param rightSize   the right body's wire size
 * @param leftSha256  hex SHA-256 of the left's decoded body (as far as read)
 * @param rightSha256 hex SHA-256 of the right's decoded body
 * @param note        what the comparison says in words ({@code identical}, {@code 3 lines differ}, ...)
 */
public record BodyComparison(boolean text, LineDiff.Result lines, long leftSize, long rightSize,
    String leftSha256, String rightSha256, String note) {

  /** Whether the decoded bodies are byte for byte equal. */
  public boolean same() {
    return leftSha256.equals(rightSha256);
  }

  /** Compares the bodies of two messages (pure work: run off the UI thread). */
  public static BodyComparison of(MessageSnapshot left, MessageSnapshot right) {
    String ls = sha256(left.body());
    String rs = sha256(right.body());
    String lt = text(left);
    String rt = text(right);
    String cut = left.limited() || right.limited() ? " (of the part that was captured and decoded)" : "";
    if (lt == null || rt == null) {
      String which = lt == null && rt == null ? "both bodies are binary" : lt == null ? "the left body is binary"
          : "the right body is binary";
      String note = (ls.equals(rs) ? "Identical" : "Different") + " — " + which + ": " + left.wireSize() + " vs "
          + right.wireSize() + " bytes, SHA-256 " + (ls.equals(rs) ? "equal" : "differs") + cut;
      return new BodyComparison(false, null, left.wireSize(), right.wireSize(), ls, rs, note);
    }
    boolean json = false;
    if (!lt.isBlank() && !rt.isBlank()) {
      try {
        String lp = JsonDocument.parse(left.body()).pretty();
        String rp = JsonDocument.parse(right.body()).pretty();
        lt = lp;
        rt = rp;
        json = true;
      } catch (JsonDocument.JsonSyntaxException | RuntimeException notJson) {
        // compared as plain text
      }
    }
    LineDiff.Result r = LineDiff.diff(lt, rt);
    String note;
    if (ls.equals(rs)) {
      note = "Identical (" + left.wireSize() + " bytes)";
    } else if (r.identical()) {
      note = json ? "Same JSON, formatted differently" : "Same lines, different bytes (line endings or encoding)";
    } else {
      int n = r.changes();
      note = n + (n == 1 ? " line differs" : " lines differ") + " — " + left.wireSize() + " vs " + right.wireSize()
          + " bytes" + (json ? "; JSON compared pretty-printed" : "");
    }
    if (r.truncated()) {
      note += "; only the first " + LineDiff.MAX_LINES + " lines compared";
    }
    if (r.approximate()) {
      note += "; very different stretches shown as replaced";
    }
    return new BodyComparison(true, r, left.wireSize(), right.wireSize(), ls, rs, note + cut);
  }

  /** The body as text, or null when it is binary (a NUL byte, or not valid in its charset). */
  static String text(MessageSnapshot m) {
    byte[] b = m.body();
    for (byte x : b) {
      if (x == 0) {
        return null;
      }
    }
    Charset cs = ContentType.parse(m.contentType()).charset(StandardCharsets.UTF_8);
    try {
      return cs.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** For tests: the kinds of the rows, in order. */
  static List<LineDiff.Kind> kinds(BodyComparison c) {
    return c.lines() == null ? List.of() : c.lines().rows().stream().map(LineDiff.Row::kind).toList();
  }
}
