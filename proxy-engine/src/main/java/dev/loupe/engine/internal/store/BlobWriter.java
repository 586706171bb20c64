package dev.loupe.engine.internal.store;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Appends the primitives of a detail blob: unsigned and zig-zag varints, nullable UTF-8 strings,
 * length-prefixed bytes. Not thread-safe; reused by one writer thread ({@link #reset}).
 */
final class BlobWriter {
  private byte[] buf = new byte[1024];
  private int len;

  BlobWriter reset() {
    len = 0;
    return this;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, len);
  }

  /** Arrays longer than this are never kept in a pool by {@link #toByteArray(byte[][], int)}. */
  static final int POOLED_MAX = 4096;

  /**
   * What was written, in an array of exactly its length: {@code pool}'s at {@code slot} when it
   * has that length (overwritten: the caller is done with what it held before), else a new one,
   * left in the slot unless longer than {@link #POOLED_MAX}. So a writer whose blobs keep the same
   * lengths allocates no array per blob.
   */
  byte[] toByteArray(byte[][] pool, int slot) {
    byte[] a = pool[slot];
    if (a == null || a.length != len) {
      a = Arrays.copyOf(buf, len);
      if (len <= POOLED_MAX) {
        pool[slot] = a;
      }
      return a;
    }
    System.arraycopy(buf, 0, a, 0, len);
    return a;
  }

  /** Bytes written so far (a mark for {@link #copyFrom}). */
  int length() {
    return len;
  }

  /** A copy of what was written since {@code mark} (a {@link #length()} taken earlier). */
  byte[] copyFrom(int mark) {
    return Arrays.copyOfRange(buf, mark, len);
  }

  /** Appends {@code b} as it is (bytes this writer made earlier, see {@link #copyFrom}). */
  BlobWriter raw(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, len, b.length);
    len += b.length;
    return this;
  }

  private void ensure(int n) {
    if (len + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n));
    }
  }

  BlobWriter u8(int v) {
    ensure(1);
    buf[len++] = (byte) v;
    return this;
  }

  BlobWriter bool(boolean v) {
    return u8(v ? 1 : 0);
  }

  /** An unsigned varint (7 bits a byte, low first). */
  BlobWriter varlong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buf[len++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf[len++] = (byte) v;
    return this;
  }

  /** A signed varint, zig-zag coded so small negatives (-1) stay short. */
  BlobWriter zigzag(long v) {
    return varlong((v << 1) ^ (v >> 63));
  }

  BlobWriter bytes(byte[] b) {
    varlong(b.length);
    ensure(b.length);
    System.arraycopy(b, 0, buf, len, b.length);
    len += b.length;
    return this;
  }

  /**
   * A nullable string: 0 for null, else UTF-8 length + 1 and the bytes. ASCII (header names and
   * values, URLs, almost everything) is copied char by char without an intermediate array.
   */
  BlobWriter string(String s) {
    if (s == null) {
      return varlong(0);
    }
    int n = s.length();
    int mark = len;
    ensure(10 + n);
    varlong(n + 1L);
    int at = len;
    byte[] out = buf;
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        len = mark; // not ASCII: the UTF-8 length differs from the char count
        return utf8(s);
      }
      out[at++] = (byte) c;
    }
    len = at;
    return this;
  }

  private BlobWriter utf8(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    varlong(b.length + 1L);
    ensure(b.length);
    System.arraycopy(b, 0, buf, len, b.length);
    len += b.length;
    return this;
  }
}
