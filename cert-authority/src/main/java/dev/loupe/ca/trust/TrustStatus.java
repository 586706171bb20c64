package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

/**
 * Whether a trust store trusts the CA, as a real query found it.
 *
 * @param state trusted, not trusted, or unavailable (the store cannot be used here)
 * @param detail for people: why unavailable, what was found ("present but not trusted for TLS"),
 *     or where it is trusted; may be empty
 */
public record TrustStatus(State state, String detail) {
  /** The three answers a store gives. */
  public enum State {
    /** The CA is in the store and trusted to identify websites. */
    TRUSTED,
    /** The store works here but does not (fully) trust the CA. */
    NOT_TRUSTED,
    /** The store cannot be used on this machine; {@link #detail()} says why. */
    UNAVAILABLE
  }

  /** Checks for nulls. */
  public TrustStatus {
    requireNonNull(state, "state");
    requireNonNull(detail, "detail");
  }

  /** Trusted, with {@code detail}. */
  public static TrustStatus trusted(String detail) {
    return new TrustStatus(State.TRUSTED, detail);
  }

  /** Not trusted, with {@code detail}. */
  public static TrustStatus notTrusted(String detail) {
    return new TrustStatus(State.NOT_TRUSTED, detail);
  }

  /** Unavailable, because {@code why}. */
  public static TrustStatus unavailable(String why) {
    return new TrustStatus(State.UNAVAILABLE, why);
  }

  @Override
  public String toString() {
    return state + (detail.isEmpty() ? "" : ": " + detail);
  }
}
