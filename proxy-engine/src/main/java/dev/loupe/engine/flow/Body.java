package dev.loupe.engine.flow;

import java.io.IOException;
import java.io.InputStream;

/**
 * A captured message body: the first {@link CapturePolicy#memoryCap()} bytes in memory, the rest in a
 * spill file (or only counted, and the body marked truncated, when spilling is off). What is kept is
 * always an exact prefix of what was seen.
 *
 * <p>This is the read-only view the UI, the control API and plugins get: it has no method that
 * changes the body. The engine captures through its own implementation (an internal recorder).
 *
 * <h3>Threads</h3>
 * The engine appends from one thread at a time (the leg's event loop). Readers on other threads see
 * a consistent prefix: {@link #size()} is published after the bytes it counts. Methods that read the
 * content are meant for after {@link #isComplete()}, but are safe (they see a prefix) before.
 */
public interface Body {
  /** A finished body holding a copy of {@code bytes} (for drafts, edits, tests and imports). */
  static Body of(byte[] bytes) {
    return new BytesBody(bytes.clone());
  }

  /** Whether the body has ended (the flow completed or failed). */
  boolean isComplete();

  /** Total body length seen on the wire (after transfer decoding, before content decoding). */
  long size();

  /** True when bytes were seen but not kept. */
  boolean truncated();

  /** Bytes kept (memory + spill file). */
  long capturedSize();

  /** Bytes of this body held on the Java heap. */
  long memoryFootprint();

  /** Whether part of the body lives in a spill file. */
  boolean spilled();

  /** All captured bytes (a fresh array); throws if they do not fit an array. */
  byte[] bytes();

  /** A stream over the captured bytes (memory part, then spill file). */
  InputStream openStream() throws IOException;
}
