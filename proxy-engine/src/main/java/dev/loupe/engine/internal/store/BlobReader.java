package dev.loupe.engine.internal.store;

import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link BlobWriter} wrote. Throws {@link CorruptBlobException} on a blob that ends early
 * or holds impossible lengths, never an index or allocation error.
 */
final class BlobReader {
  private final byte[] buf;
  private int pos;

  BlobReader(byte[] buf) {
    this.buf = buf;
  }

  /** A detail blob that cannot be read back. */
  static final class CorruptBlobException extends RuntimeException {
    CorruptBlobException(String message) {
      super(message);
    }
  }

  private void need(long n) {
    if (n < 0 || pos + n > buf.length) {
      throw new CorruptBlobException("detail record ends early (byte " + pos + " of " + buf.length + ")");
    }
  }

  boolean atEnd() {
    return pos >= buf.length;
  }

  int u8() {
    need(1);
    return buf[pos++] & 0xFF;
  }

  boolean bool() {
    return u8() != 0;
  }

  long varlong() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = u8();
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new CorruptBlobException("varint longer than 64 bits at byte " + pos);
  }

  int varint() {
    long v = varlong();
    if (v > Integer.MAX_VALUE) {
      throw new CorruptBlobException("count out of range: " + v);
    }
    return (int) v;
  }

  long zigzag() {
    long v = varlong();
    return (v >>> 1) ^ -(v & 1);
  }

  byte[] bytes() {
    int n = varint();
    need(n);
    byte[] out = new byte[n];
    System.arraycopy(buf, pos, out, 0, n);
    pos += n;
    return out;
  }

  String string() {
    long n = varlong();
    if (n == 0) {
      return null;
    }
    need(n - 1);
    String s = new String(buf, pos, (int) (n - 1), StandardCharsets.UTF_8);
    pos += (int) (n - 1);
    return s;
  }
}
