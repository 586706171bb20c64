package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

/**
 * How an install or removal went.
 *
 * @param success whether the store now is as asked
 * @param message for people: on failure the tool's error output verbatim (with the command line);
 *     on success what was done, with the tool's output when it printed any
 */
public record TrustResult(boolean success, String message) {
  /** Checks for nulls. */
  public TrustResult {
    requireNonNull(message, "message");
  }

  /** A success saying {@code message}. */
  public static TrustResult ok(String message) {
    return new TrustResult(true, message);
  }

  /** A failure saying {@code message}. */
  public static TrustResult failed(String message) {
    return new TrustResult(false, message);
  }

  /** The failure of a command: its command line, exit status and output, verbatim. */
  static TrustResult failed(CommandResult command) {
    return new TrustResult(false, command.describeFailure());
  }
}
