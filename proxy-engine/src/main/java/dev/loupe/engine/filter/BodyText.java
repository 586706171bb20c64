package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.ContentCodings;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the first {@link #LIMIT} bytes of a captured body into the thread's scratch buffer, undoing
 * a {@code gzip}, {@code x-gzip} or {@code deflate} content coding on the way. Other codings
 * ({@code br}, {@code zstd}, stacked codings) are read as captured. A coded body that turns out to
 * be corrupt or cut short yields what decoded before the damage, or the raw bytes when nothing did.
 */
final class BodyText {
  /** Body bytes a regex looks at: 1 MiB, the default in-memory capture cap. */
  static final int LIMIT = 1 << 20;

  private BodyText() {}

  /** Opens kept body bytes (a new stream each call). */
  @FunctionalInterface
  interface Opener {
    InputStream open() throws IOException;
  }

  /**
   * The bytes a body search looks at: {@link #bytes}{@code [0, length)}, either a buffer of its own
   * (grown on demand up to {@link #LIMIT}, reused) or an array the caller handed in (not copied).
   * Confined to one thread.
   */
  static final class Buffer {
    private byte[] own = new byte[16 * 1024];
    byte[] bytes = own;
    int length;

    void clear() {
      bytes = own;
      length = 0;
    }
  }

  /** Fills {@code out} with the first {@link #LIMIT} bytes of {@code body}; returns {@code out.length}. */
  static int read(Body body, String contentEncoding, Buffer out) {
    return read(body.size(), null, body::openStream, contentEncoding, out);
  }

  /**
   * Fills {@code out} with the first {@link #LIMIT} bytes of a body as it was stored: {@code size}
   * bytes seen on the wire, the kept ones in {@code inline} (when held in an array: searched in
   * place, not copied, unless a coding is undone) or else behind {@code opener}. Returns
   * {@code out.length}.
   */
  static int read(long size, byte[] inline, Opener opener, String contentEncoding, Buffer out) {
    out.clear();
    if (size == 0) {
      return 0;
    }
    List<String> codings = ContentCodings.parse(contentEncoding);
    Opener raw = inline != null ? () -> new ByteArrayInputStream(inline) : opener;
    if (!codings.isEmpty() && ContentCodings.gzipOrDeflate(codings)) {
      try (InputStream in = ContentCodings.decoder(raw.open(), codings, 8192)) {
        fill(in, out);
      } catch (IOException e) {
        // Corrupt, or cut short by the capture cap: keep what decoded.
      }
      if (out.length > 0) {
        return out.length;
      }
    }
    if (inline != null) {
      out.bytes = inline;
      out.length = Math.min(inline.length, LIMIT);
      return out.length;
    }
    try (InputStream in = raw.open()) {
      fill(in, out);
    } catch (IOException e) {
      // A spill file that cannot be read: match what was read before it failed.
    }
    return out.length;
  }

  /** Reads up to {@link #LIMIT} bytes, growing the buffer as needed; progress survives a failure. */
  private static void fill(InputStream in, Buffer out) throws IOException {
    byte[] buf = out.own;
    while (out.length < LIMIT) {
      int n = out.length;
      if (n == buf.length) {
        buf = Arrays.copyOf(buf, Math.min(LIMIT, buf.length * 2));
        out.own = buf;
        out.bytes = buf;
      }
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        return;
      }
      out.length = n + r;
    }
  }
}
