package dev.loupe.ui.trust;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One trust store and its current status.
 *
 * @param id stable identifier of the store ("nss-chromium", "system-debian")
 * @param name for people ("Chromium / Chrome (NSS)")
 * @param location the database, file or store it lives in
 * @param state what a real query found
 * @param detail why unavailable, or what was found; may be empty
 * @param manualInstallCommand the terminal command to run when Loupe cannot install itself
 * @param manualRemoveCommand the terminal command to run when Loupe cannot remove itself
 */
public record TrustTarget(
    String id,
    String name,
    String location,
    TrustState state,
    String detail,
    Optional<String> manualInstallCommand,
    Optional<String> manualRemoveCommand) {
  /** Checks for nulls. */
  public TrustTarget {
    requireNonNull(id, "id");
    requireNonNull(name, "name");
    requireNonNull(location, "location");
    requireNonNull(state, "state");
    requireNonNull(detail, "detail");
    requireNonNull(manualInstallCommand, "manualInstallCommand");
    requireNonNull(manualRemoveCommand, "manualRemoveCommand");
  }

  /** A target Loupe can change itself (no manual commands). */
  public static TrustTarget of(String id, String name, String location, TrustState state, String detail) {
    return new TrustTarget(id, name, location, state, detail, Optional.empty(), Optional.empty());
  }

  /** This target in {@code newState} with {@code newDetail}. */
  public TrustTarget with(TrustState newState, String newDetail) {
    return new TrustTarget(id, name, location, newState, newDetail, manualInstallCommand, manualRemoveCommand);
  }
}
