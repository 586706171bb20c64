package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.List;

/**
 * The current user's Root store on Windows (used by Chrome, Edge and, with enterprise roots,
 * Firefox), driven with Windows' own {@code certutil}:
 *
 * <ul>
 *   <li>status: {@code certutil -store -user Root <SHA-1>}, which succeeds only when a certificate
 *       with that thumbprint is there;
 *   <li>install: {@code certutil -addstore -user Root <file.cer>} (Windows shows its own
 *       confirmation dialog for the Root store);
 *   <li>remove: {@code certutil -delstore -user Root <SHA-1>}. The thumbprint rather than the
 *       serial number: certutil accepts either as the certificate id, and only the thumbprint
 *       cannot match another CA's certificate.
 * </ul>
 *
 * Cannot run on Linux: its tests assert these command lines.
 */
public final class WindowsRootStore implements TrustStore {
  private final CaCertificate ca;
  private final CommandRunner runner;

  /** The current user's Root store. */
  public WindowsRootStore(CaCertificate ca, CommandRunner runner) {
    this.ca = requireNonNull(ca, "ca");
    this.runner = requireNonNull(runner, "runner");
  }

  @Override
  public String id() {
    return "windows-user-root";
  }

  @Override
  public String displayName() {
    return "Windows user Root store (Chrome, Edge)";
  }

  @Override
  public String location() {
    return "Cert:\\CurrentUser\\Root";
  }

  @Override
  public TrustStatus status() {
    if (!runner.isAvailable("certutil")) {
      return TrustStatus.unavailable("certutil.exe not found");
    }
    try {
      CommandResult found = runner.run(List.of("certutil", "-store", "-user", "Root", ca.sha1Hex()));
      return found.succeeded()
          ? TrustStatus.trusted("in the user Root store (thumbprint " + ca.sha1Hex() + ")")
          : TrustStatus.notTrusted("not in the user Root store");
    } catch (IOException e) {
      return TrustStatus.unavailable(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public TrustResult install() {
    try (TempFile cer = TempFile.of("loupe-ca", ".cer", ca.der())) {
      CommandResult added = runner.run(List.of("certutil", "-addstore", "-user", "Root", cer.path().toString()));
      if (!added.succeeded()) {
        return TrustResult.failed(added);
      }
      return TrustResult.ok("Added the CA to the user Root store.\n" + added.output());
    } catch (IOException e) {
      return TrustResult.failed(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public TrustResult remove() {
    try {
      CommandResult deleted = runner.run(List.of("certutil", "-delstore", "-user", "Root", ca.sha1Hex()));
      if (!deleted.succeeded()) {
        return TrustResult.failed(deleted);
      }
      return TrustResult.ok("Removed the CA (thumbprint " + ca.sha1Hex() + ") from the user Root store.\n"
          + deleted.output());
    } catch (IOException e) {
      return TrustResult.failed(String.valueOf(e.getMessage()));
    }
  }
}
