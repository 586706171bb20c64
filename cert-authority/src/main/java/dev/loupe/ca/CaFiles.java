package dev.loupe.ca;

import dev.loupe.ca.internal.bc.BcPem;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.Set;

/**
 * Reads and writes the CA's files: PEM encoding, atomic writes, POSIX permissions.
 *
 * <h3>Writing</h3>
 *
 * Content goes to a temporary file in the target's directory, created with owner-only permissions
 * (so a key is never readable by others, not even briefly), flushed to disk, given its final
 * permissions, then published under its final name. A new file is published with a hard link,
 * which fails instead of replacing a file that appeared meanwhile (another Loupe starting at the
 * same moment); where links are unsupported, with a plain move that refuses to replace. Exports,
 * which may replace their target, use an atomic rename. On file systems without POSIX permissions
 * the permission steps are skipped.
 *
 * <p>Stateless; thread-safe as far as the file system is.
 */
final class CaFiles {
  static final String CERT_FILE = "ca-cert.pem";
  static final String KEY_FILE = "ca-key.pem";

  static final Set<PosixFilePermission> KEY_PERMISSIONS = PosixFilePermissions.fromString("rw-------");
  static final Set<PosixFilePermission> PUBLIC_PERMISSIONS =
      PosixFilePermissions.fromString("rw-r--r--");
  static final Set<PosixFilePermission> DIRECTORY_PERMISSIONS =
      PosixFilePermissions.fromString("rwx------");

  /** Far more than any certificate or key; a bigger file is not ours. */
  private static final long MAX_FILE_SIZE = 1 << 20;

  private static final System.Logger LOG = System.getLogger("dev.loupe.ca");

  private CaFiles() {}

  /** A loaded certificate and its matching key. */
  record Loaded(X509Certificate certificate, PrivateKey privateKey) {}

  // ---------------------------------------------------------------- reading

  /**
   * Loads and checks the pair: both parse, the certificate is a CA that is valid at {@code now}
   * and, when self-issued, verifies with its own key, and the key matches the certificate.
   */
  static Loaded load(Path certFile, Path keyFile, Instant now) {
    X509Certificate certificate = parseCertificate(certFile, read(certFile, "CA certificate"));
    PrivateKey key;
    try {
      key = BcPem.readPrivateKey(read(keyFile, "CA private key"));
    } catch (IOException e) {
      throw new CaException(keyFile, "Corrupt CA private key file", e.getMessage(), e);
    }
    if (certificate.getBasicConstraints() < 0) {
      throw new CaException(
          certFile, "Not a CA certificate in", "basicConstraints CA:TRUE is missing", null);
    }
    boolean[] keyUsage = certificate.getKeyUsage();
    if (keyUsage != null && (keyUsage.length <= 5 || !keyUsage[5])) {
      throw new CaException(
          certFile, "Not a CA certificate in", "keyUsage lacks keyCertSign", null);
    }
    if (certificate.getSubjectX500Principal().equals(certificate.getIssuerX500Principal())) {
      try {
        certificate.verify(certificate.getPublicKey());
      } catch (GeneralSecurityException e) {
        throw new CaException(
            certFile, "Corrupt CA certificate file", "its self-signature does not verify", e);
      }
    }
    try {
      certificate.checkValidity(Date.from(now));
    } catch (CertificateExpiredException e) {
      throw new CaException(
          certFile,
          "Expired CA certificate",
          "it expired on "
              + certificate.getNotAfter().toInstant()
              + "; move "
              + CERT_FILE
              + " and "
              + KEY_FILE
              + " away to create a new CA (and trust the new one)",
          e);
    } catch (CertificateNotYetValidException e) {
      // Clock skew on a freshly copied CA; clients will complain, but it is not our call.
      LOG.log(Level.WARNING, "CA certificate {0} is not valid before {1}", certFile,
          certificate.getNotBefore().toInstant());
    }
    try {
      KeyAlgorithm.of(key);
    } catch (CaException e) {
      throw new CaException(keyFile, "Unsupported CA private key", e.getMessage(), e);
    }
    if (!keyMatches(key, certificate.getPublicKey())) {
      throw new CaException(
          keyFile,
          "CA private key does not match the certificate: key file",
          "it belongs to a different key pair than " + certFile,
          null);
    }
    warnIfKeyReadableByOthers(keyFile);
    return new Loaded(certificate, key);
  }

  private static byte[] read(Path file, String what) {
    try {
      if (Files.isDirectory(file)) {
        throw new CaException(file, "Cannot read " + what + " file", "it is a directory", null);
      }
      if (Files.size(file) > MAX_FILE_SIZE) {
        throw new CaException(file, "Corrupt " + what + " file", "larger than 1 MiB", null);
      }
      return Files.readAllBytes(file);
    } catch (AccessDeniedException e) {
      throw new CaException(file, "Cannot read " + what + " file", "permission denied", e);
    } catch (IOException e) {
      throw new CaException(file, "Cannot read " + what + " file", String.valueOf(e), e);
    }
  }

  private static X509Certificate parseCertificate(Path file, byte[] bytes) {
    try {
      if (bytes.length == 0) {
        throw new CertificateException("the file is empty");
      }
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(bytes));
    } catch (CertificateException | RuntimeException e) {
      throw new CaException(
          file, "Corrupt CA certificate file", "not a PEM X.509 certificate (" + e.getMessage() + ")", e);
    }
  }

  /** True when {@code key} is the private half of {@code publicKey}: sign, then verify. */
  static boolean keyMatches(PrivateKey key, PublicKey publicKey) {
    if (!key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      return false;
    }
    try {
      String algorithm = KeyAlgorithm.of(key).signatureAlgorithm();
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(challenge);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | CaException e) {
      return false;
    }
  }

  private static void warnIfKeyReadableByOthers(Path keyFile) {
    try {
      if (supportsPosix(keyFile)) {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(keyFile);
        if (!KEY_PERMISSIONS.containsAll(permissions)) {
          LOG.log(Level.WARNING, "CA private key {0} is accessible to other users ({1}); "
              + "chmod 600 it", keyFile, PosixFilePermissions.toString(permissions));
        }
      }
    } catch (IOException | UnsupportedOperationException e) {
      // Only a warning was at stake.
    }
  }

  // ---------------------------------------------------------------- writing

  /**
   * Creates {@code dir} (0700) if needed, then writes the key (0600) and the certificate (0644),
   * the key first: a certificate on disk implies its key got there too.
   *
   * @throws CaException if either file exists already, or writing fails
   */
  static void persistNew(Path dir, Path certFile, Path keyFile, X509Certificate cert, PrivateKey key) {
    createDirectory(dir);
    writeNew(keyFile, pem("PRIVATE KEY", pkcs8(key, keyFile)), KEY_PERMISSIONS);
    try {
      writeNew(certFile, pem("CERTIFICATE", encoded(cert, certFile)), PUBLIC_PERMISSIONS);
    } catch (CaException e) {
      // The key is the one this call just created: remove it, or every later start would stop at
      // "certificate missing". (Files that existed before this call are never touched.)
      try {
        Files.deleteIfExists(keyFile);
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /** Writes an export: atomically, replacing {@code target} if present, 0644. */
  static void writeReplacing(Path target, byte[] content) {
    Path tmp = writeTemp(target, content, PUBLIC_PERMISSIONS);
    try {
      try {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new CaException(target, "Cannot write", String.valueOf(e), e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  static byte[] pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    String text = "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] encoded(X509Certificate cert, Path file) {
    try {
      return cert.getEncoded();
    } catch (CertificateEncodingException e) {
      throw new CaException(file, "Cannot encode the CA certificate for", e.getMessage(), e);
    }
  }

  private static byte[] pkcs8(PrivateKey key, Path file) {
    if (!"PKCS#8".equals(key.getFormat()) || key.getEncoded() == null) {
      throw new CaException(file, "Cannot encode the CA key for", "no PKCS#8 encoding", null);
    }
    return key.getEncoded();
  }

  private static void createDirectory(Path dir) {
    if (Files.isDirectory(dir)) {
      return;
    }
    try {
      Path absolute = dir.toAbsolutePath();
      if (supportsPosix(nearestExisting(absolute))) {
        Files.createDirectories(absolute, PosixFilePermissions.asFileAttribute(DIRECTORY_PERMISSIONS));
        // createDirectories honours the umask; make it exactly 0700.
        Files.setPosixFilePermissions(absolute, DIRECTORY_PERMISSIONS);
      } else {
        Files.createDirectories(absolute);
      }
    } catch (IOException e) {
      throw new CaException(dir, "Cannot create the configuration directory", String.valueOf(e), e);
    }
  }

  /** Publishes a new file without ever replacing an existing one. */
  private static void writeNew(Path target, byte[] content, Set<PosixFilePermission> permissions) {
    Path tmp = writeTemp(target, content, permissions);
    try {
      try {
        Files.createLink(target, tmp); // atomic, and fails if target exists
      } catch (FileAlreadyExistsException e) {
        throw e;
      } catch (UnsupportedOperationException | FileSystemException e) {
        Files.move(tmp, target); // no REPLACE_EXISTING: refuses an existing target
      }
    } catch (FileAlreadyExistsException e) {
      throw new CaException(target, "Refusing to overwrite", "the file appeared while creating the CA", e);
    } catch (IOException e) {
      throw new CaException(target, "Cannot write", String.valueOf(e), e);
    } finally {
      deleteQuietly(tmp);
    }
  }

  /** A flushed temporary sibling of {@code target} with {@code permissions}. */
  private static Path writeTemp(Path target, byte[] content, Set<PosixFilePermission> permissions) {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = null;
    try {
      boolean posix = supportsPosix(dir);
      FileAttribute<?>[] ownerOnly =
          posix ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(KEY_PERMISSIONS)}
              : new FileAttribute<?>[0];
      tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp", ownerOnly);
      try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
          channel.write(buffer);
        }
        channel.force(true);
      }
      if (posix) {
        Files.setPosixFilePermissions(tmp, permissions); // chmod: exact, unlike the umask'd create
      }
      return tmp;
    } catch (IOException e) {
      deleteQuietly(tmp);
      throw new CaException(target, "Cannot write", String.valueOf(e), e);
    }
  }

  static boolean supportsPosix(Path path) {
    try {
      return Files.getFileStore(path).supportsFileAttributeView(PosixFileAttributeView.class);
    } catch (IOException | SecurityException e) {
      return false;
    }
  }

  private static Path nearestExisting(Path absolute) {
    Path p = absolute;
    while (p != null && !Files.exists(p)) {
      p = p.getParent();
    }
    return p != null ? p : absolute.getRoot();
  }

  static boolean exists(Path file) {
    // A dangling symlink counts: writing through it is as bad as overwriting.
    return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
  }

  private static void deleteQuietly(Path tmp) {
    if (tmp == null) {
      return;
    }
    try {
      Files.deleteIfExists(tmp);
    } catch (NoSuchFileException ignored) {
      // already moved
    } catch (IOException e) {
      LOG.log(Level.WARNING, "Could not delete temporary file {0}: {1}", tmp, e);
    }
  }
}
