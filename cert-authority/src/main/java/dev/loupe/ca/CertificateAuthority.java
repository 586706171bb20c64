package dev.loupe.ca;

import static java.util.Objects.requireNonNull;

import dev.loupe.ca.internal.bc.BcLeafSigner;
import dev.loupe.ca.internal.bc.BcRootCertificates;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loupe's root certificate authority: creates or loads the CA, and mints per-host TLS server
 * certificates ("leaves") signed by it.
 *
 * <h3>Lifecycle</h3>
 *
 * {@link #loadOrCreate(Path)} loads {@code ca-cert.pem} and {@code ca-key.pem} from the
 * configuration directory; when neither exists it creates a new CA and persists it there (key
 * 0600, certificate 0644, directory 0700 when created). Anything else — one file without the
 * other, a corrupt or unreadable file, a key that does not match, an expired CA — is a {@link
 * CaException} naming the file: users install the CA certificate in their trust stores, so silently
 * replacing it would break every client, and the files are never overwritten or deleted.
 *
 * <h3>Leaves</h3>
 *
 * One leaf key pair is generated per instance (of the CA's algorithm: P-256 or RSA-2048) and
 * certified for every host, as mitmproxy does: generating an RSA key costs ~100 ms, signing only
 * ~2 ms. The key lives in memory only. Leaves are valid from two days ago (clock skew) for 365 days
 * (under the 397-day limit browsers enforce), never beyond the CA; a cached leaf is re-minted once
 * it is within a day of expiring.
 *
 * <h3>Threading</h3>
 *
 * Thread-safe. {@link #leafFor} is lock-free when the leaf is cached (a map lookup, ~0.1 µs); a
 * miss mints on the calling thread (~0.6 ms of CPU with an EC CA, ~2 ms with RSA; see
 * bench/README.md), while concurrent callers for the same host wait for that one mint and callers
 * for other hosts mint in parallel. Call it off latency-sensitive threads (Netty
 * event loops) or accept the one-off cost per host.
 */
public final class CertificateAuthority {
  /** Default bound of the leaf cache. */
  public static final int DEFAULT_MAX_CACHED_LEAVES = 1_000;

  static final Duration BACKDATE = Duration.ofDays(2);
  static final Duration CA_VALIDITY = Duration.ofDays(3652); // ten years, leap days included
  static final Duration LEAF_VALIDITY = Duration.ofDays(365);
  static final Duration LEAF_REFRESH_MARGIN = Duration.ofDays(1);
  static final String ORGANIZATION = "Loupe";

  private final X509Certificate certificate;
  private final Path certificatePath;
  private final Path privateKeyPath;
  private final KeyAlgorithm keyAlgorithm;
  private final KeyPair leafKeyPair;
  private final BcLeafSigner leafSigner;
  private final Clock clock;
  private final LeafCache<LeafCertificate> leaves;
  private final AtomicInteger minted = new AtomicInteger();

  private CertificateAuthority(
      X509Certificate certificate,
      PrivateKey privateKey,
      Path certificatePath,
      Path privateKeyPath,
      int maxCachedLeaves,
      Clock clock,
      SecureRandom random) {
    this.certificate = certificate;
    this.certificatePath = certificatePath;
    this.privateKeyPath = privateKeyPath;
    this.keyAlgorithm = KeyAlgorithm.of(privateKey);
    this.clock = clock;
    this.leafKeyPair = keyAlgorithm.generateKeyPair(random);
    this.leafSigner =
        new BcLeafSigner(
            privateKey,
            certificate,
            keyAlgorithm.signatureAlgorithm(),
            leafKeyPair.getPublic(),
            random);
    this.leaves =
        new LeafCache<>(
            maxCachedLeaves,
            this::mint,
            leaf ->
                leaf.certificate().getNotAfter().getTime() - LEAF_REFRESH_MARGIN.toMillis(),
            clock::millis);
  }

  /** {@link #loadOrCreate(Path, KeyAlgorithm)} with {@link KeyAlgorithm#EC_P256}. */
  public static CertificateAuthority loadOrCreate(Path confDir) {
    return loadOrCreate(confDir, KeyAlgorithm.EC_P256);
  }

  /**
   * Loads the CA from {@code confDir} ({@code ca-cert.pem} + {@code ca-key.pem}), or creates and
   * persists one when neither file exists.
   *
   * @param algorithm the key algorithm of a newly created CA; a loaded CA keeps its own
   * @throws CaException naming the file, when the files are inconsistent, unreadable or cannot be
   *     written
   */
  public static CertificateAuthority loadOrCreate(Path confDir, KeyAlgorithm algorithm) {
    return loadOrCreate(confDir, algorithm, DEFAULT_MAX_CACHED_LEAVES);
  }

  /**
   * As {@link #loadOrCreate(Path, KeyAlgorithm)}, keeping at most {@code maxCachedLeaves} leaves
   * (least recently used ones are evicted first).
   */
  public static CertificateAuthority loadOrCreate(
      Path confDir, KeyAlgorithm algorithm, int maxCachedLeaves) {
    return loadOrCreate(confDir, algorithm, maxCachedLeaves, Clock.systemUTC());
  }

  static CertificateAuthority loadOrCreate(
      Path confDir, KeyAlgorithm algorithm, int maxCachedLeaves, Clock clock) {
    requireNonNull(confDir, "confDir");
    requireNonNull(algorithm, "algorithm");
    requireNonNull(clock, "clock");
    if (maxCachedLeaves < 1) {
      throw new IllegalArgumentException("maxCachedLeaves must be at least 1: " + maxCachedLeaves);
    }
    if (CaFiles.exists(confDir) && !Files.isDirectory(confDir)) {
      throw new CaException(confDir, "Not a directory:", "expected the configuration directory", null);
    }
    Path certFile = confDir.resolve(CaFiles.CERT_FILE);
    Path keyFile = confDir.resolve(CaFiles.KEY_FILE);
    boolean certExists = CaFiles.exists(certFile);
    boolean keyExists = CaFiles.exists(keyFile);
    SecureRandom random = new SecureRandom();
    if (certExists && keyExists) {
      CaFiles.Loaded loaded = CaFiles.load(certFile, keyFile, clock.instant());
      return new CertificateAuthority(
          loaded.certificate(), loaded.privateKey(), certFile, keyFile, maxCachedLeaves, clock, random);
    }
    if (certExists || keyExists) {
      Path missing = certExists ? keyFile : certFile;
      Path present = certExists ? certFile : keyFile;
      throw new CaException(
          missing,
          "Missing CA file",
          "found "
              + present
              + " without it. Restore the missing file, or move "
              + present
              + " away to create a new CA (clients must then trust the new CA certificate)",
          null);
    }
    KeyPair caKeys = algorithm.generateKeyPair(random);
    Instant now = clock.instant();
    X509Certificate caCert;
    try {
      caCert =
          BcRootCertificates.createRoot(
              caKeys,
              algorithm.signatureAlgorithm(),
              defaultCommonName(),
              ORGANIZATION,
              now.minus(BACKDATE),
              now.plus(CA_VALIDITY),
              random);
    } catch (IllegalStateException e) {
      throw new CaException(e.getMessage(), e);
    }
    CaFiles.persistNew(confDir, certFile, keyFile, caCert, caKeys.getPrivate());
    return new CertificateAuthority(
        caCert, caKeys.getPrivate(), certFile, keyFile, maxCachedLeaves, clock, random);
  }

  /** The root CA certificate; install it in clients' trust stores. */
  public X509Certificate certificate() {
    return certificate;
  }

  /** The PEM file holding {@link #certificate()}: {@code <confDir>/ca-cert.pem}. */
  public Path certificatePath() {
    return certificatePath;
  }

  /** The PEM (PKCS#8) file holding the CA private key: {@code <confDir>/ca-key.pem}. */
  public Path privateKeyPath() {
    return privateKeyPath;
  }

  /** The CA's key algorithm, which the leaves share; for a loaded CA, the one in its files. */
  public KeyAlgorithm keyAlgorithm() {
    return keyAlgorithm;
  }

  /**
   * The leaf for {@code host}, minted on first use and cached (keyed by normalised host).
   *
   * @param host a DNS name (any case, IDNs allowed, one trailing dot ignored) or an IP literal
   *     (IPv6 with or without brackets)
   * @throws IllegalArgumentException if {@code host} is neither a valid DNS name nor an IP literal
   * @throws CaException if signing fails
   */
  public LeafCertificate leafFor(String host) {
    return leaves.get(HostName.normalize(host));
  }

  /**
   * Writes the CA certificate (never the key) as PEM to {@code file}, atomically, replacing it.
   *
   * @throws CaException if writing fails, or {@code file} is one of the CA's own files
   */
  public void exportPem(Path file) {
    checkExportTarget(file);
    CaFiles.writeReplacing(file, CaFiles.pem("CERTIFICATE", CaFiles.encoded(certificate, file)));
  }

  /**
   * Writes the CA certificate (never the key) as DER to {@code file}, atomically, replacing it.
   *
   * @throws CaException if writing fails, or {@code file} is one of the CA's own files
   */
  public void exportDer(Path file) {
    checkExportTarget(file);
    CaFiles.writeReplacing(file, CaFiles.encoded(certificate, file));
  }

  /** How many leaves this instance has actually minted (cache hits excluded). */
  public int mintedCount() {
    return minted.get();
  }

  /** Forgets all cached leaves; the next {@link #leafFor} of each host mints again. */
  public void clearCache() {
    leaves.clear();
  }

  /** Number of leaves currently cached (tests). */
  int cachedLeafCount() {
    return leaves.size();
  }

  @Override
  public String toString() {
    return "CertificateAuthority["
        + certificate.getSubjectX500Principal().getName()
        + ", "
        + keyAlgorithm
        + ", "
        + certificatePath
        + "]";
  }

  private LeafCertificate mint(String normalizedHost) {
    HostName host = HostName.parse(normalizedHost);
    Instant now = clock.instant();
    Instant notAfter = now.plus(LEAF_VALIDITY);
    Instant caNotAfter = certificate.getNotAfter().toInstant();
    if (notAfter.isAfter(caNotAfter)) {
      notAfter = caNotAfter;
    }
    X509Certificate leaf;
    try {
      leaf =
          leafSigner.sign(
              host.commonName(),
              host.dnsNames(),
              host.isIpAddress() ? List.of(host.address()) : List.of(),
              now.minus(BACKDATE),
              notAfter);
    } catch (IllegalStateException e) {
      throw new CaException(e.getMessage(), e);
    }
    minted.incrementAndGet();
    return new LeafCertificate(host.name(), leafKeyPair.getPrivate(), leaf, certificate);
  }

  private void checkExportTarget(Path file) {
    requireNonNull(file, "file");
    for (Path own : List.of(certificatePath, privateKeyPath)) {
      if (sameFile(file, own)) {
        throw new CaException(file, "Refusing to export to", "it is one of the CA's own files", null);
      }
    }
  }

  private static boolean sameFile(Path a, Path b) {
    if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
      return true;
    }
    try {
      return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * "Loupe CA (user@host)", stable for a machine and user; truncated to the 64 characters a CN may
   * have. It only names the CA for people looking at trust stores; nothing matches on it.
   */
  static String defaultCommonName() {
    String user = System.getProperty("user.name", "user");
    String name = "Loupe CA (" + user + "@" + localHostName() + ")";
    return name.length() <= HostName.MAX_COMMON_NAME
        ? name
        : name.substring(0, HostName.MAX_COMMON_NAME - 1) + ")";
  }

  private static String localHostName() {
    // Environment and /etc/hostname first: InetAddress.getLocalHost() may wait for DNS.
    for (String variable : List.of("COMPUTERNAME", "HOSTNAME")) {
      String value = System.getenv(variable);
      if (value != null && !value.isBlank()) {
        return value.trim().toLowerCase(Locale.ROOT);
      }
    }
    try {
      Path etcHostname = Path.of("/etc/hostname");
      if (Files.isReadable(etcHostname)) {
        String value = Files.readString(etcHostname, StandardCharsets.UTF_8).trim();
        if (!value.isEmpty()) {
          return value;
        }
      }
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException | RuntimeException e) {
      return "localhost";
    }
  }
}
