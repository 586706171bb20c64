package dev.loupe.ui.trust;

import java.nio.file.Path;
import java.util.List;

/**
 * What the trust dialog needs from the rest of Loupe: the CA's particulars, the trust stores of
 * this machine with their status, and the actions. The app implements it on the certificate
 * authority's installers.
 *
 * <p>Every method except {@link #ca()} may block for a while (it runs tools such as {@code
 * certutil}); the view model calls them on a background thread, one action per target at a time.
 * Implementations report failures as {@link TrustOutcome}s or as a target's {@link
 * TrustTarget#detail()} rather than by throwing; a {@code RuntimeException} that escapes anyway is
 * shown as a failure.
 */
public interface TrustPort {
  /** The CA certificate's particulars; fast (no I/O). */
  CaSummary ca();

  /** Finds the trust stores of this machine and asks each whether it trusts the CA. */
  List<TrustTarget> targets();

  /** Asks one target again (after an action). */
  TrustTarget status(String targetId);

  /** Installs the CA in the target; the message is the tool's output verbatim. */
  TrustOutcome install(String targetId);

  /** Removes the CA from the target, and nothing else. */
  TrustOutcome remove(String targetId);

  /** Writes the CA certificate (never its key) to {@code file}. */
  TrustOutcome export(Path file, ExportFormat format);
}
