package dev.loupe.engine.api.session.model;

import java.nio.file.Path;

/**
 * A session file that cannot be opened, read or written, with a sentence for the user that names
 * the file and says what is wrong and whether the file was changed (for example "written by a newer
 * Loupe (session format 3; this Loupe reads up to 1); the file was not changed").
 */
public final class SessionException extends Exception {
  /** What went wrong, for callers that react differently (a newer file, a full disk, ...). */
  public enum Reason {
    /** Not an SQLite database, or an SQLite database of another application. */
    NOT_A_SESSION,
    /** Written by a newer Loupe. */
    NEWER_VERSION,
    /** Damaged: truncated, or SQLite reports corruption. */
    DAMAGED,
    /** The disk is full (or over quota). */
    DISK_FULL,
    /** Any other input/output or database error. */
    IO
  }

  private final Reason reason;
  private final transient Path file;

  public SessionException(Reason reason, Path file, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.file = file;
  }

  public SessionException(Reason reason, Path file, String message) {
    this(reason, file, message, null);
  }

  public Reason reason() {
    return reason;
  }

  /** The session file concerned. */
  public Path file() {
    return file;
  }
}
