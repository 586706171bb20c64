package dev.loupe.engine.api.intercept;

import dev.loupe.engine.flow.ContentCodings;
import dev.loupe.engine.flow.Headers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The {@code Content-Encoding}s Loupe decodes for editing and encodes again after (gzip, deflate).
 * Bodies with other encodings (br, zstd, stacked encodings) are edited as they came.
 *
 * <p>A body the user did not change goes out byte for byte as it came (the engine compares the draft
 * with the decoded original and only re-encodes when they differ), so a breakpoint resumed unchanged
 * is invisible to the peer.
 */
public final class ContentCoding {
  /** Decoded bodies larger than this are kept encoded (a bomb must not fill the heap). */
  static final int MAX_DECODED = 64 << 20;

  private ContentCoding() {}

  /** Whether {@code headers} name an encoding this class handles. */
  public static boolean handled(Headers headers) {
    String e = encoding(headers);
    return e != null && (e.equals("gzip") || e.equals("x-gzip") || e.equals("deflate"));
  }

  private static String encoding(Headers headers) {
    String e = headers.get("content-encoding");
    return e == null ? null : e.trim().toLowerCase(Locale.ROOT);
  }

  /** The decoded body when it is gzip/deflate and decodes; else {@code wire} unchanged. */
  public static byte[] decodeOrKeep(Headers headers, byte[] wire) {
    if (wire.length == 0 || !handled(headers)) {
      return wire;
    }
    try (InputStream in = ContentCodings.decoder(new ByteArrayInputStream(wire),
        ContentCodings.parse(headers.get("content-encoding")), 16384)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, wire.length * 3));
      byte[] buf = new byte[16384];
      int n;
      while ((n = in.read(buf)) > 0) {
        out.write(buf, 0, n);
        if (out.size() > MAX_DECODED) {
          return wire;
        }
      }
      return out.toByteArray();
    } catch (IOException bad) {
      return wire; // not really gzip: shown as it came; the engine sends unchanged bodies as they came
    }
  }

  /**
   * The bytes to send for an edited message: the original wire bytes when neither the (decoded)
   * body nor the {@code Content-Encoding} changed, so an untouched body goes out byte for byte;
   * else {@code body} encoded again per {@code headers}.
   */
  public static byte[] wireBody(Headers headers, byte[] body, Headers originalHeaders, byte[] originalBody,
      byte[] originalWire) {
    boolean same = java.util.Arrays.equals(body, originalBody)
        && java.util.Objects.equals(headers.get("content-encoding"), originalHeaders.get("content-encoding"));
    return same ? originalWire : encodeOrKeep(headers, body);
  }

  /** {@code body} encoded per {@code Content-Encoding} when gzip/deflate; else unchanged. */
  public static byte[] encodeOrKeep(Headers headers, byte[] body) {
    if (body.length == 0 || !handled(headers)) {
      return body;
    }
    String e = encoding(headers);
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length / 2));
    try (OutputStream z = e.equals("deflate") ? new DeflaterOutputStream(out) : new GZIPOutputStream(out)) {
      z.write(body);
    } catch (IOException impossible) {
      throw new UncheckedIOException(impossible);
    }
    return out.toByteArray();
  }
}
