package dev.loupe.engine.internal.store;

import java.io.IOException;
import java.io.InputStream;

/**
 * A body as a session file keeps it: how many bytes crossed the wire, whether some were not kept,
 * how many were, and where they are.
 *
 * @param size      bytes seen on the wire ({@code Body.size()})
 * @param truncated whether bytes were seen and not kept
 * @param captured  bytes kept
 * @param content   opens the kept bytes; null when only the sizes were read (a filter scan that
 *                  needs no body text)
 */
record StoredBody(long size, boolean truncated, long captured, Content content) {
  /** Opens the kept bytes (a new stream each call). */
  @FunctionalInterface
  interface Content {
    InputStream open() throws IOException;
  }

  static StoredBody of(byte[] bytes) {
    return new StoredBody(bytes.length, false, bytes.length, () -> new java.io.ByteArrayInputStream(bytes));
  }

  StoredBody withoutContent() {
    return new StoredBody(size, truncated, captured, null);
  }
}
