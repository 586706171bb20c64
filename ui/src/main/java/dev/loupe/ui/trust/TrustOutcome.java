package dev.loupe.ui.trust;

import static java.util.Objects.requireNonNull;

/**
 * How an install, removal or export went.
 *
 * @param success whether it did what was asked
 * @param message what happened; on failure the tool's error output verbatim
 */
public record TrustOutcome(boolean success, String message) {
  /** Checks for nulls. */
  public TrustOutcome {
    requireNonNull(message, "message");
  }

  /** A success saying {@code message}. */
  public static TrustOutcome ok(String message) {
    return new TrustOutcome(true, message);
  }

  /** A failure saying {@code message}. */
  public static TrustOutcome failed(String message) {
    return new TrustOutcome(false, message);
  }
}
