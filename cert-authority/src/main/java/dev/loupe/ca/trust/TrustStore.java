package dev.loupe.ca.trust;

import java.util.Optional;

/**
 * One place the CA can be trusted: an NSS database, the system store, a keychain. Bound to one
 * {@link CaCertificate}.
 *
 * <p>{@link #status()}, {@link #install()} and {@link #remove()} run tools and block: call them
 * off UI threads. They never throw for a tool's failure: that is a {@link TrustResult} or a
 * {@link TrustStatus} carrying the tool's output. Instances may be used from several threads, but
 * actions on the same store should not overlap (the UI disables a row while it works).
 */
public interface TrustStore {
  /** A stable identifier, unique among the stores of a machine: {@code "nss-chromium"}, {@code "system-debian"}. */
  String id();

  /** For people: "Chromium / Chrome (NSS)", "Firefox — default-release", "System (Debian)". */
  String displayName();

  /** Where: the database directory, the anchor file, the keychain. */
  String location();

  /** Asks the store itself whether it trusts the CA. */
  TrustStatus status();

  /**
   * Installs the CA as trusted for TLS, replacing this CA's earlier entry if any.
   * Fails (without changing anything) where {@link #manualInstallCommand()} is present.
   */
  TrustResult install();

  /** Removes this CA's entry; never touches any other certificate. */
  TrustResult remove();

  /**
   * The exact command a user runs in a terminal to install, present when Loupe cannot do it
   * itself (the system store without administrator rights).
   */
  default Optional<String> manualInstallCommand() {
    return Optional.empty();
  }

  /** As {@link #manualInstallCommand()}, for removal. */
  default Optional<String> manualRemoveCommand() {
    return Optional.empty();
  }
}
