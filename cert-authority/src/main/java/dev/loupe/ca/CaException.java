package dev.loupe.ca;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The certificate authority could not be created, loaded, persisted or exported, or a leaf could not
 * be minted.
 *
 * <p>When a file is involved (a corrupt {@code ca-key.pem}, a missing {@code ca-cert.pem}, an export
 * target), the message names that file and {@link #file()} returns it, so the UI can point the user
 * at it. The CA never repairs such a situation by overwriting or deleting the user's files; the
 * message says what to do instead.
 *
 * <p>Immutable; safe to share between threads.
 */
public final class CaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The file the failure is about, or null. Not serialized: {@link Path} is not serializable. */
  private final transient Path file;

  /** A failure that involves no particular file. */
  public CaException(String message) {
    this(message, (Throwable) null);
  }

  /** A failure that involves no particular file, caused by {@code cause}. */
  public CaException(String message, Throwable cause) {
    super(message, cause);
    this.file = null;
  }

  /**
   * A failure about {@code file}; the message is {@code "<what> <file>: <detail>"}, so the path is
   * always part of it.
   */
  CaException(Path file, String what, String detail, Throwable cause) {
    super(what + " " + file + ": " + detail, cause);
    this.file = file;
  }

  /** The file this failure is about, when there is one. */
  public Optional<Path> file() {
    return Optional.ofNullable(file);
  }
}
