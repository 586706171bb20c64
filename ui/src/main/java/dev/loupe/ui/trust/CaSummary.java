package dev.loupe.ui.trust;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Instant;

/**
 * The CA certificate as the dialog shows it.
 *
 * @param sha256Fingerprint colon-separated upper-case hex ("AB:CD:...")
 * @param subject the subject distinguished name
 * @param notBefore start of validity
 * @param notAfter end of validity
 * @param file where the certificate is kept (PEM)
 */
public record CaSummary(String sha256Fingerprint, String subject, Instant notBefore, Instant notAfter, Path file) {
  /** Checks for nulls. */
  public CaSummary {
    requireNonNull(sha256Fingerprint, "sha256Fingerprint");
    requireNonNull(subject, "subject");
    requireNonNull(notBefore, "notBefore");
    requireNonNull(notAfter, "notAfter");
    requireNonNull(file, "file");
  }
}
