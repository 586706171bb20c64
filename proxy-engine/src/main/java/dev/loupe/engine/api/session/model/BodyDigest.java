package dev.loupe.engine.api.session.model;

import dev.loupe.engine.flow.ContentCodings;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * What {@link dev.loupe.engine.api.session.SessionDiff} compares of a body: its SHA-256, taken with a {@code gzip} or
 * {@code deflate} content coding undone, so a body stored as it came and the same body taken from a
 * HAR (where it is decoded) hash alike. Other codings ({@code br}, {@code zstd}) are hashed as
 * stored and named in {@link #coding()}; bodies in different codings are not compared by content.
 *
 * @param size   bytes seen on the wire
 * @param whole  whether every byte was kept (else only {@link #size()} is known)
 * @param length bytes hashed (decoded), or -1 when not whole
 * @param sha256 lower-case hex SHA-256 of those bytes, or null when not whole
 * @param coding the content coding still applied to the hashed bytes, lower case ({@code br}), or
 *               empty when none is (identity, or undone); for a body not kept whole, its coding
 */
public record BodyDigest(long size, boolean whole, long length, String sha256, String coding) {
  /** No body at all (no request body, a HEAD response). */
  public static final BodyDigest EMPTY = new BodyDigest(0, true, 0,
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "");

  /** Decoded bytes beyond this are not decoded (a bomb); the stored bytes are hashed instead. */
  static final long MAX_DECODED = 1L << 30;

  /** Opens a body's kept bytes. */
  @FunctionalInterface
  public interface Content {
    InputStream open() throws IOException;
  }

  /**
   * The digest of a body.
   *
   * @param contentEncoding the message's {@code Content-Encoding}, or null
   * @param size            bytes seen on the wire
   * @param whole           whether all of them were kept
   * @param content         the kept bytes (read only when {@code whole})
   * @throws IOException when the kept bytes cannot be read
   */
  public static BodyDigest of(String contentEncoding, long size, boolean whole, Content content) throws IOException {
    List<String> codings = ContentCodings.parse(contentEncoding);
    String label = String.join(", ", codings);
    if (!whole) {
      return new BodyDigest(size, false, -1, null, label);
    }
    if (size == 0) {
      return EMPTY;
    }
    if (!codings.isEmpty() && ContentCodings.gzipOrDeflate(codings)) {
      try (InputStream in = ContentCodings.decoder(content.open(), codings, 16 * 1024)) {
        long[] n = {0};
        String sha = sha256(in, n, MAX_DECODED);
        if (sha != null) {
          return new BodyDigest(size, true, n[0], sha, "");
        }
      } catch (IOException | RuntimeException corrupt) {
        // not really in that coding (or cut short): hashed as stored, below
      }
    }
    try (InputStream in = content.open()) {
      long[] n = {0};
      String sha = sha256(in, n, Long.MAX_VALUE);
      return new BodyDigest(size, true, n[0], sha, label);
    }
  }

  /**
   * How {@code b} differs from {@code a}, as a sentence, or null when they are the same or cannot
   * be told apart (a body not kept whole on one side with equal sizes, or different codings).
   */
  public static String difference(BodyDigest a, BodyDigest b) {
    if (!a.coding.equals(b.coding)) {
      return null;
    }
    if (a.sha256 != null && b.sha256 != null) {
      return a.sha256.equals(b.sha256) ? null
          : "sha256 " + a.sha256.substring(0, 12) + " (" + a.length + " bytes) → " + b.sha256.substring(0, 12) + " ("
              + b.length + " bytes)";
    }
    return a.size == b.size ? null : "size " + a.size + " → " + b.size + " bytes (not kept whole)";
  }

  /** How this body is shown in a report: {@code sha256 abc… (N bytes)} or {@code N bytes, not kept whole}. */
  public String describe() {
    return sha256 != null ? "sha256 " + sha256.substring(0, 12) + " (" + length + " bytes)"
        : size + " bytes, not kept whole";
  }

  /** The hex SHA-256 of the stream, its length in {@code n[0]}; null past {@code limit} bytes. */
  private static String sha256(InputStream in, long[] n, long limit) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    byte[] buf = new byte[64 * 1024];
    int r;
    while ((r = in.read(buf)) > 0) {
      md.update(buf, 0, r);
      n[0] += r;
      if (n[0] > limit) {
        return null;
      }
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
