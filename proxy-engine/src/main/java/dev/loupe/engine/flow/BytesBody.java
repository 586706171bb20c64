package dev.loupe.engine.flow;

import java.io.ByteArrayInputStream;
import java.io.InputStream;

/** A finished, fully kept body made from an array ({@link Body#of}); immutable. */
final class BytesBody implements Body {
  private final byte[] bytes;

  BytesBody(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public boolean isComplete() {
    return true;
  }

  @Override
  public long size() {
    return bytes.length;
  }

  @Override
  public boolean truncated() {
    return false;
  }

  @Override
  public long capturedSize() {
    return bytes.length;
  }

  @Override
  public long memoryFootprint() {
    return bytes.length;
  }

  @Override
  public boolean spilled() {
    return false;
  }

  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  @Override
  public InputStream openStream() {
    return new ByteArrayInputStream(bytes);
  }

  @Override
  public String toString() {
    return "Body[" + bytes.length + " bytes]";
  }
}
