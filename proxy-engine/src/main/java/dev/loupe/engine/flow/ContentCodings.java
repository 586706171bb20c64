package dev.loupe.engine.flow;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * Content codings of message bodies (RFC 9110 §8.4): reading a {@code Content-Encoding} value and
 * undoing {@code gzip} and {@code deflate}, the codings the JDK decodes. One place for what HAR
 * export, body digests, filters, the rule and breakpoint editors and the body viewer all need;
 * codings that need a library ({@code br}, {@code zstd}) are the viewer's own.
 */
public final class ContentCodings {
  private ContentCodings() {}

  /**
   * The codings a {@code Content-Encoding} value names, in the order they were applied, lower-cased,
   * {@code x-gzip} as {@code gzip}, {@code identity} and empty elements left out; empty for null.
   */
  public static List<String> parse(String contentEncoding) {
    List<String> out = new ArrayList<>(1);
    if (contentEncoding == null) {
      return out;
    }
    for (String c : contentEncoding.split(",")) {
      String t = c.trim().toLowerCase(Locale.ROOT);
      if (!t.isEmpty() && !t.equals("identity")) {
        out.add(t.equals("x-gzip") ? "gzip" : t);
      }
    }
    return out;
  }

  /** Whether every coding of {@code codings} (as {@link #parse} gives them) is gzip or deflate. */
  public static boolean gzipOrDeflate(List<String> codings) {
    for (String c : codings) {
      if (!c.equals("gzip") && !c.equals("deflate")) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code raw} with {@code codings} undone, the last applied first. The stream fails with an
   * {@link IOException} where the data is not in its coding, and with an {@link EOFException} where it
   * ends before its coding does (a body cut short by a capture cap, a truncated download), after
   * giving every byte that decoded. Closing it closes {@code raw}; so does a failure here.
   *
   * @param bufferSize the size of each decoder's input buffer
   * @throws IllegalArgumentException for a coding other than gzip and deflate
   */
  public static InputStream decoder(InputStream raw, List<String> codings, int bufferSize) throws IOException {
    InputStream in = raw;
    try {
      for (int i = codings.size() - 1; i >= 0; i--) {
        String c = codings.get(i);
        in = switch (c) {
          case "gzip", "x-gzip" -> new GZIPInputStream(in, bufferSize);
          case "deflate" -> inflate(in, bufferSize);
          default -> throw new IllegalArgumentException("not a gzip or deflate coding: " + c);
        };
      }
      return in;
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /**
   * Undoes {@code deflate}: meant to be zlib-wrapped (RFC 9110 §8.4.1.2), but some servers send raw
   * DEFLATE (RFC 1951), which browsers accept; the first two bytes tell them apart (RFC 1950's method 8
   * and check bits). The {@link Inflater} is ended when the stream is closed.
   */
  private static InputStream inflate(InputStream raw, int bufferSize) throws IOException {
    BufferedInputStream in = new BufferedInputStream(raw, bufferSize);
    in.mark(2);
    int cmf = in.read();
    int flg = in.read();
    in.reset();
    boolean zlib = cmf >= 0 && flg >= 0 && (cmf & 0x0F) == 8 && ((cmf << 8) | flg) % 31 == 0;
    Inflater inflater = new Inflater(!zlib);
    return new InflaterInputStream(in, inflater, bufferSize) {
      private boolean closed;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n < 0 && !inf.finished() && !inf.needsDictionary()) {
          throw new EOFException("deflate stream ends early");
        }
        return n;
      }

      @Override
      public void close() throws IOException {
        if (!closed) {
          closed = true;
          try {
            super.close();
          } finally {
            inflater.end(); // InflaterInputStream ends only the inflaters it made itself
          }
        }
      }
    };
  }
}
