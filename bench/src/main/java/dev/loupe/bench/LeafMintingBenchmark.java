package dev.loupe.bench;

import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.KeyAlgorithm;
import dev.loupe.ca.LeafCertificate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of {@link CertificateAuthority#leafFor(String)}: minting a leaf for a host never seen before
 * ({@link #coldMint}) and returning a cached one ({@link #cachedHit}), for an EC and an RSA CA.
 *
 * <p>{@code coldMint} asks for a new host name on every invocation (a counter), so each call signs a
 * certificate with the reused leaf key. After the first 1,000 hosts the bounded cache is full and
 * every miss also evicts one entry, as in a long proxy session. Budgets (PERF.md): cold mint ≤ 2 ms
 * with the EC CA, cached hit ≤ 10 µs. Results and how to run: {@code bench/README.md}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Benchmark)
public class LeafMintingBenchmark {
  @Param({"EC_P256", "RSA_2048"})
  public KeyAlgorithm algorithm;

  private Path confDir;
  private CertificateAuthority ca;
  private final AtomicLong hostCounter = new AtomicLong();

  @Setup(Level.Trial)
  public void createCa() throws IOException {
    confDir = Files.createTempDirectory("loupe-bench-ca");
    ca = CertificateAuthority.loadOrCreate(confDir, algorithm);
    ca.leafFor("www.example.com");
  }

  @TearDown(Level.Trial)
  public void deleteCa() throws IOException {
    try (Stream<Path> paths = Files.walk(confDir)) {
      for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** A leaf for a host never asked for before: normalise, miss, sign, cache (and evict). */
  @Benchmark
  public LeafCertificate coldMint() {
    return ca.leafFor("h" + hostCounter.incrementAndGet() + ".bench.example.com");
  }

  /** The leaf for a host that is already cached. */
  @Benchmark
  public LeafCertificate cachedHit() {
    return ca.leafFor("www.example.com");
  }
}
