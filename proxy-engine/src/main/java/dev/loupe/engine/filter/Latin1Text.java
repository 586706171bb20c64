package dev.loupe.engine.filter;

import java.nio.charset.StandardCharsets;

/**
 * A byte range seen as ISO-8859-1 text (one byte, one char) without copying, so a body can be
 * searched by a regex without decoding it into a String. Mutable: {@link #reset} points it at new
 * bytes; one instance per thread (see {@link Scratch}).
 */
final class Latin1Text implements CharSequence {
  private byte[] bytes = new byte[0];
  private int length;

  Latin1Text reset(byte[] bytes, int length) {
    this.bytes = bytes;
    this.length = length;
    return this;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public char charAt(int index) {
    if (index >= length) {
      throw new IndexOutOfBoundsException(index);
    }
    return (char) (bytes[index] & 0xff);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
  }

  @Override
  public String toString() {
    return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
  }
}
