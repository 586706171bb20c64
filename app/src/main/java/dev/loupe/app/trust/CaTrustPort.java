package dev.loupe.app.trust;

import static java.util.Objects.requireNonNull;

import dev.loupe.ca.CaException;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.trust.CaCertificate;
import dev.loupe.ca.trust.CommandRunner;
import dev.loupe.ca.trust.ProcessCommandRunner;
import dev.loupe.ca.trust.TrustResult;
import dev.loupe.ca.trust.TrustStatus;
import dev.loupe.ca.trust.TrustStore;
import dev.loupe.ca.trust.TrustStores;
import dev.loupe.ui.trust.CaSummary;
import dev.loupe.ui.trust.ExportFormat;
import dev.loupe.ui.trust.TrustOutcome;
import dev.loupe.ui.trust.TrustPort;
import dev.loupe.ui.trust.TrustState;
import dev.loupe.ui.trust.TrustTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The trust dialog's port on the certificate authority's trust-store installers: each {@link
 * #targets()} call finds the stores again (a Firefox profile created meanwhile shows up) and asks
 * each for its status; actions go to the store of that id.
 *
 * <p>Open the dialog with {@code TrustDialog.show(owner, CaTrustPort.forThisMachine(ca))}.
 *
 * <p>Thread-safe; every method but {@link #ca()} blocks on tools and belongs off the FX thread
 * (the dialog's view model sees to that).
 */
public final class CaTrustPort implements TrustPort {
  private final CertificateAuthority authority;
  private final CaCertificate ca;
  private final Supplier<List<TrustStore>> discover;
  private final Map<String, TrustStore> stores = new ConcurrentHashMap<>();

  private CaTrustPort(CertificateAuthority authority, Supplier<List<TrustStore>> discover) {
    this.authority = requireNonNull(authority, "authority");
    this.ca = CaCertificate.of(authority);
    this.discover = requireNonNull(discover, "discover");
  }

  /** The stores of this machine and user ({@link TrustStores#forThisMachine}). */
  public static CaTrustPort forThisMachine(CertificateAuthority authority) {
    return create(authority, TrustStores.Environment.current(), new ProcessCommandRunner());
  }

  /** The stores {@link TrustStores#find} finds for {@code environment}, using {@code runner}. */
  public static CaTrustPort create(
      CertificateAuthority authority, TrustStores.Environment environment, CommandRunner runner) {
    requireNonNull(environment, "environment");
    requireNonNull(runner, "runner");
    CaCertificate certificate = CaCertificate.of(authority);
    return new CaTrustPort(authority, () -> TrustStores.find(certificate, environment, runner));
  }

  @Override
  public CaSummary ca() {
    return new CaSummary(ca.sha256Fingerprint(), ca.subject(), ca.certificate().getNotBefore().toInstant(),
        ca.certificate().getNotAfter().toInstant(), ca.file());
  }

  @Override
  public List<TrustTarget> targets() {
    List<TrustStore> found = discover.get();
    List<TrustTarget> targets = new ArrayList<>();
    for (TrustStore store : found) {
      stores.put(store.id(), store);
      targets.add(target(store, store.status()));
    }
    return targets;
  }

  @Override
  public TrustTarget status(String targetId) {
    TrustStore store = stores.get(targetId);
    if (store == null) {
      return TrustTarget.of(targetId, targetId, "", TrustState.UNAVAILABLE, "no such trust store");
    }
    return target(store, store.status());
  }

  @Override
  public TrustOutcome install(String targetId) {
    TrustStore store = stores.get(targetId);
    return store == null ? TrustOutcome.failed("No trust store " + targetId) : outcome(store.install());
  }

  @Override
  public TrustOutcome remove(String targetId) {
    TrustStore store = stores.get(targetId);
    return store == null ? TrustOutcome.failed("No trust store " + targetId) : outcome(store.remove());
  }

  @Override
  public TrustOutcome export(Path file, ExportFormat format) {
    try {
      if (format == ExportFormat.DER) {
        authority.exportDer(file);
      } else {
        authority.exportPem(file);
      }
      return TrustOutcome.ok("Exported the CA certificate (" + format + ") to " + file);
    } catch (CaException e) {
      return TrustOutcome.failed(e.getMessage());
    }
  }

  private static TrustTarget target(TrustStore store, TrustStatus status) {
    TrustState state;
    switch (status.state()) {
      case TRUSTED:
        state = TrustState.TRUSTED;
        break;
      case NOT_TRUSTED:
        state = TrustState.NOT_TRUSTED;
        break;
      case UNAVAILABLE:
      default:
        state = TrustState.UNAVAILABLE;
        break;
    }
    return new TrustTarget(store.id(), store.displayName(), store.location(), state, status.detail(),
        store.manualInstallCommand(), store.manualRemoveCommand());
  }

  private static TrustOutcome outcome(TrustResult result) {
    return new TrustOutcome(result.success(), result.message());
  }
}
