package dev.loupe.ui.trust;

/** Whether a target trusts the CA. */
public enum TrustState {
  /** In the store and trusted to identify websites. */
  TRUSTED,
  /** The store works here but does not trust the CA. */
  NOT_TRUSTED,
  /** The store cannot be used on this machine (the target's detail says why). */
  UNAVAILABLE
}
