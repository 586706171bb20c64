package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Body;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

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

  /** Fills {@code scratch.body} and returns how many bytes it holds (also left in {@code scratch.bodyLength}). */
  static int read(Body body, String contentEncoding, Scratch scratch) {
    scratch.bodyLength = 0;
    if (body.size() == 0) {
      return 0;
    }
    Coding coding = Coding.of(contentEncoding);
    if (coding != Coding.IDENTITY) {
      try (InputStream in = coding.decoder(body.openStream())) {
        fill(in, scratch);
      } catch (IOException e) {
        // Corrupt, or cut short by the capture cap: keep what decoded.
      }
      if (scratch.bodyLength > 0) {
        return scratch.bodyLength;
      }
    }
    try (InputStream in = body.openStream()) {
      fill(in, scratch);
    } catch (IOException e) {
      // A spill file that cannot be read: match what was read before it failed.
    }
    return scratch.bodyLength;
  }

  /** Reads up to {@link #LIMIT} bytes, growing the buffer as needed; progress survives a failure. */
  private static void fill(InputStream in, Scratch scratch) throws IOException {
    byte[] buf = scratch.body;
    while (scratch.bodyLength < LIMIT) {
      int n = scratch.bodyLength;
      if (n == buf.length) {
        buf = Arrays.copyOf(buf, Math.min(LIMIT, buf.length * 2));
        scratch.body = buf;
      }
      int r = in.read(buf, n, buf.length - n);
      if (r < 0) {
        return;
      }
      scratch.bodyLength = n + r;
    }
  }

  /** The content codings this reader can undo. */
  private enum Coding {
    IDENTITY,
    GZIP,
    DEFLATE;

    static Coding of(String contentEncoding) {
      if (contentEncoding == null) {
        return IDENTITY;
      }
      String c = contentEncoding.trim();
      if (c.equalsIgnoreCase("gzip") || c.equalsIgnoreCase("x-gzip")) {
        return GZIP;
      }
      return c.equalsIgnoreCase("deflate") ? DEFLATE : IDENTITY;
    }

    InputStream decoder(InputStream raw) throws IOException {
      if (this == GZIP) {
        return new GZIPInputStream(raw);
      }
      // "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send raw deflate.
      PushbackInputStream in = new PushbackInputStream(raw, 2);
      int b0 = in.read();
      int b1 = in.read();
      if (b1 >= 0) {
        in.unread(b1);
      }
      if (b0 >= 0) {
        in.unread(b0);
      }
      boolean zlib = b0 >= 0 && b1 >= 0 && (b0 & 0x0f) == 8 && ((b0 << 8) | b1) % 31 == 0;
      Inflater inflater = new Inflater(!zlib);
      return new InflaterInputStream(in, inflater) {
        @Override
        public void close() throws IOException {
          super.close();
          inflater.end(); // InflaterInputStream ends only the inflaters it created itself
        }
      };
    }
  }
}
