package dev.loupe.testing;

import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HexFormat;

/** Deterministic test bodies: byte i of an n-byte body depends on i and n only. */
public final class TestData {
  private TestData() {}

  public static byte at(long n, long i) {
    long x = i * 0x9E3779B97F4A7C15L + n;
    x ^= x >>> 29;
    return (byte) (x * 0xBF58476D1CE4E5B9L >>> 56);
  }

  public static void fill(long n, long offset, byte[] dst, int len) {
    for (int k = 0; k < len; k++) {
      dst[k] = at(n, offset + k);
    }
  }

  public static byte[] bytes(int n) {
    byte[] b = new byte[n];
    fill(n, 0, b, n);
    return b;
  }

  /** A stream of the n-byte body, without holding it in memory. */
  public static InputStream stream(long n) {
    return new InputStream() {
      long pos;

      @Override
      public int read() {
        return pos < n ? at(n, pos++) & 0xff : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (pos >= n) {
          return -1;
        }
        int k = (int) Math.min(len, n - pos);
        for (int j = 0; j < k; j++) {
          b[off + j] = at(n, pos + j);
        }
        pos += k;
        return k;
      }
    };
  }

  public static String sha256(long n) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[64 * 1024];
      for (long off = 0; off < n; off += buf.length) {
        int len = (int) Math.min(buf.length, n - off);
        fill(n, off, buf, len);
        md.update(buf, 0, len);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static String sha256(InputStream in) {
    try (in) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[64 * 1024];
      int n;
      while ((n = in.read(buf)) > 0) {
        md.update(buf, 0, n);
      }
      return HexFormat.of().formatHex(md.digest());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
