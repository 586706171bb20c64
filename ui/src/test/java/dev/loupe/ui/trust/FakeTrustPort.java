package dev.loupe.ui.trust;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An in-memory {@link TrustPort} that keeps its word: an install makes the target trusted (unless
 * told to fail, with a given message), a removal makes it untrusted, and {@link #status} reports
 * what the actions did. Actions can be held at a gate to observe the dialog while they run, and the
 * threads they ran on are recorded.
 */
public final class FakeTrustPort implements TrustPort {
  public static final String FINGERPRINT =
      "3A:7F:10:C2:55:9E:01:AB:CD:EF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:10:20:30:40:50:60";

  private final Map<String, TrustTarget> targets = new LinkedHashMap<>();
  final Map<String, String> failures = new java.util.concurrent.ConcurrentHashMap<>();
  final List<String> calls = new CopyOnWriteArrayList<>();
  final List<String> callThreads = new CopyOnWriteArrayList<>();
  volatile CountDownLatch gate = new CountDownLatch(0);
  volatile RuntimeException explode;

  synchronized FakeTrustPort add(TrustTarget target) {
    targets.put(target.id(), target);
    return this;
  }

  /** Holds actions until {@link #open()}. */
  void close() {
    gate = new CountDownLatch(1);
  }

  void open() {
    gate.countDown();
  }

  @Override
  public CaSummary ca() {
    return new CaSummary(FINGERPRINT, "CN=Loupe CA (ada@workstation),O=Loupe",
        Instant.parse("2026-11-29T16:00:00Z"), Instant.parse("2036-11-30T16:00:00Z"),
        Path.of("/home/ada/.config/loupe/ca-cert.pem"));
  }

  @Override
  public synchronized List<TrustTarget> targets() {
    record("targets");
    return new ArrayList<>(targets.values());
  }

  @Override
  public synchronized TrustTarget status(String targetId) {
    record("status " + targetId);
    return targets.get(targetId);
  }

  @Override
  public TrustOutcome install(String targetId) {
    record("install " + targetId);
    awaitGate();
    if (explode != null) {
      throw explode;
    }
    String failure = failures.get(targetId);
    if (failure != null) {
      return TrustOutcome.failed(failure);
    }
    synchronized (this) {
      targets.put(targetId, targets.get(targetId).with(TrustState.TRUSTED, "as \"Loupe CA 3A7F10C2\" (trust C,,)"));
    }
    return TrustOutcome.ok("Installed \"Loupe CA 3A7F10C2\" in " + targets.get(targetId).location() + ".");
  }

  @Override
  public TrustOutcome remove(String targetId) {
    record("remove " + targetId);
    awaitGate();
    synchronized (this) {
      targets.put(targetId, targets.get(targetId).with(TrustState.NOT_TRUSTED, "not in this database"));
    }
    return TrustOutcome.ok("Removed \"Loupe CA 3A7F10C2\".");
  }

  @Override
  public TrustOutcome export(Path file, ExportFormat format) {
    record("export " + format);
    try {
      Files.writeString(file, format == ExportFormat.PEM ? "-----BEGIN CERTIFICATE-----\n" : "DER", StandardCharsets.US_ASCII);
      return TrustOutcome.ok("Exported " + format + " to " + file);
    } catch (IOException e) {
      return TrustOutcome.failed(String.valueOf(e));
    }
  }

  static TrustTarget notTrusted(String id, String name, String location) {
    return TrustTarget.of(id, name, location, TrustState.NOT_TRUSTED, "not in this database");
  }

  static TrustTarget needsSudo(String id) {
    return new TrustTarget(id, "System store (Debian/Ubuntu)", "/usr/local/share/ca-certificates/loupe-ca.crt",
        TrustState.NOT_TRUSTED, "no /usr/local/share/ca-certificates/loupe-ca.crt",
        Optional.of("sudo cp /home/ada/.config/loupe/ca-cert.pem /usr/local/share/ca-certificates/loupe-ca.crt"
            + " && sudo update-ca-certificates"),
        Optional.of("sudo rm /usr/local/share/ca-certificates/loupe-ca.crt && sudo update-ca-certificates --fresh"));
  }

  private void record(String call) {
    calls.add(call);
    callThreads.add(Thread.currentThread().getName());
  }

  private void awaitGate() {
    try {
      if (!gate.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
