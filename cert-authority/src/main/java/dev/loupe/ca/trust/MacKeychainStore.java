package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The macOS login keychain, driven with {@code security}:
 *
 * <ul>
 *   <li>status: {@code security find-certificate -a -Z -c <CN> <keychain>} lists the SHA-1 hashes
 *       of the certificates with the CA's common name; trusted when this CA's hash is among them
 *       (Loupe adds the certificate and its trust setting together, and removes them together);
 *   <li>install: {@code security add-trusted-cert -r trustRoot -k <keychain> <pem>} (macOS asks for
 *       the user's password in its own dialog, not on a terminal);
 *   <li>remove: {@code security delete-certificate -Z <SHA-1> -t <keychain>}: by hash, so no other
 *       certificate can match, and {@code -t} drops the trust setting too.
 * </ul>
 *
 * Cannot run on Linux: its tests assert these command lines.
 */
public final class MacKeychainStore implements TrustStore {
  /** {@code security}'s exit status for "The specified item could not be found in the keychain." */
  static final int NOT_FOUND = 44;

  private final Path keychain;
  private final CaCertificate ca;
  private final CommandRunner runner;

  /** The login keychain of the user whose home is {@code home}. */
  public MacKeychainStore(Path home, CaCertificate ca, CommandRunner runner) {
    this.keychain = home.resolve("Library/Keychains/login.keychain-db");
    this.ca = requireNonNull(ca, "ca");
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public String id() {
    return "macos-login-keychain";
  }

  @Override
  public String displayName() {
    return "macOS login keychain (Safari, Chrome, Edge)";
  }

  @Override
  public String location() {
    return keychain.toString();
  }

  @Override
  public TrustStatus status() {
    if (!runner.isAvailable("security")) {
      return TrustStatus.unavailable("the security tool is missing");
    }
    try {
      CommandResult found = runner.run(List.of("security", "find-certificate", "-a", "-Z", "-c", ca.commonName(),
          keychain.toString()));
      if (found.exitCode() == NOT_FOUND) {
        return TrustStatus.notTrusted("not in the login keychain");
      }
      if (!found.succeeded()) {
        return TrustStatus.unavailable(found.describeFailure());
      }
      String hashes = found.stdout().toUpperCase(Locale.ROOT);
      return hashes.contains("SHA-1 HASH: " + ca.sha1Hex())
          ? TrustStatus.trusted("in the login keychain (SHA-1 " + ca.sha1Hex() + ")")
          : TrustStatus.notTrusted("not in the login keychain");
    } catch (IOException e) {
      return TrustStatus.unavailable(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public TrustResult install() {
    try (TempFile pem = TempFile.of("loupe-ca", ".pem", ca.pem())) {
      CommandResult added = runner.run(List.of("security", "add-trusted-cert", "-r", "trustRoot", "-k",
          keychain.toString(), pem.path().toString()));
      if (!added.succeeded()) {
        return TrustResult.failed(added);
      }
      String output = added.output();
      return TrustResult.ok("Added the CA to " + keychain + " as a trusted root." + (output.isEmpty() ? "" : "\n" + output));
    } catch (IOException e) {
      return TrustResult.failed(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public TrustResult remove() {
    try {
      CommandResult deleted = runner.run(List.of("security", "delete-certificate", "-Z", ca.sha1Hex(), "-t",
          keychain.toString()));
      if (!deleted.succeeded()) {
        return TrustResult.failed(deleted);
      }
      String output = deleted.output();
      return TrustResult.ok("Removed the CA (SHA-1 " + ca.sha1Hex() + ") from " + keychain + "."
          + (output.isEmpty() ? "" : "\n" + output));
    } catch (IOException e) {
      return TrustResult.failed(String.valueOf(e.getMessage()));
    }
  }
}
