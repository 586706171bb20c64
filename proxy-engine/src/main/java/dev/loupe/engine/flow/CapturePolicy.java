package dev.loupe.engine.flow;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How bodies are captured.
 *
 * @param memoryCap bytes of each body kept in memory (default 1 MiB)
 * @param spill     whether bytes beyond the cap go to a temp file (otherwise they are only counted and
 *                  the body is marked truncated)
 * @param spillDir  where spill files go
 */
public record CapturePolicy(int memoryCap, boolean spill, Path spillDir) {
  public static final int DEFAULT_MEMORY_CAP = 1 << 20;

  public CapturePolicy {
    if (memoryCap < 0) {
      throw new IllegalArgumentException("memoryCap must be >= 0: " + memoryCap);
    }
    Objects.requireNonNull(spillDir, "spillDir");
  }

  public static CapturePolicy defaults() {
    return new CapturePolicy(DEFAULT_MEMORY_CAP, true, Path.of(System.getProperty("java.io.tmpdir")));
  }
}
