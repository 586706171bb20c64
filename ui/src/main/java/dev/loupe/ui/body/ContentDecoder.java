package dev.loupe.ui.body;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.BrotliInputStream;
import com.github.luben.zstd.ZstdInputStream;
import dev.loupe.engine.flow.ContentCodings;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * Undoes a body's {@code Content-Encoding} for viewing: {@code gzip} (and {@code x-gzip}),
 * {@code deflate} (zlib-wrapped as RFC 9110 says, or raw as some servers send it), {@code br} and
 * {@code zstd}, stacked in any order ({@code Content-Encoding: gzip, br} is undone br first).
 *
 * <p>Bounded: at most {@code limit} decoded bytes are produced, so a small bomb that inflates to
 * gigabytes costs {@code limit} bytes and stops ({@link DecodedBody#limited()}). Corrupt or cut-off
 * input keeps what was decoded before the fault and says why in {@link DecodedBody#error()}; when
 * nothing could be decoded, or a coding is unknown, the wire bytes are returned as they are.
 *
 * <p>Blocking and possibly slow: call it off the UI thread. Stateless and thread-safe.
 */
public final class ContentDecoder {
  /** What the detail pane decodes at most: 16 MiB. */
  public static final int DEFAULT_LIMIT = 16 << 20;

  /** Where the wire bytes come from; opened once more when decoding fails outright. */
  @FunctionalInterface
  public interface Source {
    InputStream open() throws IOException;
  }

  private ContentDecoder() {}

  /** Whether every coding in the list is one this class can undo. */
  public static boolean supported(List<String> codings) {
    for (String c : codings) {
      if (!(c.equals("gzip") || c.equals("deflate") || c.equals("br") || c.equals("zstd"))) {
        return false;
      }
    }
    return true;
  }

  public static DecodedBody decode(byte[] wire, String contentEncoding, int limit) {
    try {
      return decode(() -> new ByteArrayInputStream(wire), contentEncoding, limit);
    } catch (IOException e) {
      throw new IllegalStateException("reading a byte array failed", e);
    }
  }

  /**
   * Decodes what {@code source} yields. Throws only when the source itself cannot be read (a spill
   * file gone); faults in the encoded data are reported in the result.
   */
  public static DecodedBody decode(Source source, String contentEncoding, int limit) throws IOException {
    List<String> codings = ContentCodings.parse(contentEncoding);
    if (codings.isEmpty()) {
      return raw(source, limit, List.of(), null);
    }
    if (!supported(codings)) {
      return raw(source, limit, List.of(), "unsupported content-encoding: " + String.join(", ", codings));
    }
    String unavailable = unavailable(codings);
    if (unavailable != null) {
      return raw(source, limit, List.of(), unavailable);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean limited;
    String error = null;
    InputStream in = source.open();
    try {
      for (int i = codings.size() - 1; i >= 0; i--) {
        in = wrap(in, codings.get(i));
      }
      limited = copy(in, out, limit);
    } catch (IOException | RuntimeException | LinkageError e) {
      limited = false;
      error = String.join(", ", codings) + ": " + describe(e);
    } finally {
      closeQuietly(in);
    }
    if (error != null && out.size() == 0) {
      return raw(source, limit, List.of(), "could not decode " + error);
    }
    return new DecodedBody(out.toByteArray(), codings, limited, error);
  }

  private static DecodedBody raw(Source source, int limit, List<String> codings, String error) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean limited;
    try (InputStream in = source.open()) {
      limited = copy(in, out, limit);
    }
    return new DecodedBody(out.toByteArray(), codings, limited, error);
  }

  /** Copies at most {@code limit} bytes; true when there was more. */
  private static boolean copy(InputStream in, ByteArrayOutputStream out, int limit) throws IOException {
    byte[] buf = new byte[64 * 1024];
    while (true) {
      int want = Math.min(buf.length, limit - out.size() + 1); // one more than fits: tells "limited"
      int n = in.read(buf, 0, want);
      if (n < 0) {
        return false;
      }
      if (out.size() + n > limit) {
        out.write(buf, 0, limit - out.size());
        return true;
      }
      out.write(buf, 0, n);
    }
  }

  private static String unavailable(List<String> codings) {
    if (codings.contains("br") && !Brotli4jLoader.isAvailable()) {
      Throwable cause = Brotli4jLoader.getUnavailabilityCause();
      return "br: no brotli decoder on this platform" + (cause == null ? "" : " (" + cause.getMessage() + ")");
    }
    return null;
  }

  private static InputStream wrap(InputStream in, String coding) throws IOException {
    switch (coding) {
      case "gzip":
      case "deflate":
        return ContentCodings.decoder(in, List.of(coding), 64 * 1024);
      case "br":
        return new BrotliInputStream(in);
      case "zstd":
        return new ZstdInputStream(in);
      default:
        throw new IllegalArgumentException("unsupported coding " + coding);
    }
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    if (e instanceof java.io.EOFException) {
      return "the data ends early" + (m == null ? "" : " (" + m + ")");
    }
    return m == null ? e.getClass().getSimpleName() : m;
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException | RuntimeException ignored) {
      // nothing to do: the bytes were read
    }
  }
}
