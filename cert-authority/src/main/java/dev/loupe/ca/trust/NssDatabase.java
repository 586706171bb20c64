package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An NSS certificate database (the {@code sql:} format: {@code cert9.db}, {@code key4.db}), as
 * used by Chromium and Chrome on Linux ({@code ~/.pki/nssdb}) and by each Firefox profile, driven
 * with NSS's {@code certutil}.
 *
 * <ul>
 *   <li>status: {@code certutil -L -d sql:DIR} for the trust flags of {@link
 *       CaCertificate#nickname()}, and {@code certutil -L -n NICK -a} to check the certificate
 *       under that nickname is this CA (so a look-alike never counts as trusted);
 *   <li>install: {@code certutil -N --empty-password} first when the database is missing and may be
 *       created (Chromium's), then {@code certutil -A -n NICK -t "C,," -i PEM}; an earlier entry of
 *       this CA is deleted first so the trust flags are exactly {@code C,,};
 *   <li>remove: {@code certutil -D -n NICK}, only after checking the nickname holds this CA.
 * </ul>
 *
 * Every {@code certutil} call that could want the database password gets {@code -f} with an empty
 * password file: a database protected by a password fails with certutil's message rather than
 * prompting on a terminal nobody sees.
 */
public final class NssDatabase implements TrustStore {
  /** "Loupe CA 1A2B3C4D                                             C,,  " in {@code certutil -L}. */
  private static final Pattern LISTING_LINE = Pattern.compile("^(.*?)\\s+([A-Za-z]*,[A-Za-z]*,[A-Za-z]*)\\s*$");

  static final String MISSING_CERTUTIL =
      "certutil not found: install libnss3-tools (Debian, Ubuntu) or nss-tools (Fedora)";

  private final String id;
  private final String displayName;
  private final Path directory;
  private final boolean createIfMissing;
  private final CaCertificate ca;
  private final CommandRunner runner;

  NssDatabase(
      String id,
      String displayName,
      Path directory,
      boolean createIfMissing,
      CaCertificate ca,
      CommandRunner runner) {
    this.id = requireNonNull(id, "id");
    this.displayName = requireNonNull(displayName, "displayName");
    this.directory = requireNonNull(directory, "directory");
    this.createIfMissing = createIfMissing;
    this.ca = requireNonNull(ca, "ca");
    this.runner = requireNonNull(runner, "runner");
  }

  /**
   * The database in {@code directory}. With {@code createIfMissing}, installing creates it
   * (Chromium's {@code ~/.pki/nssdb}, which Chromium itself creates only on first use); otherwise a
   * missing database makes the store unavailable (a Firefox profile is Firefox's to create).
   */
  public static NssDatabase of(
      String id, String displayName, Path directory, boolean createIfMissing, CaCertificate ca,
      CommandRunner runner) {
    return new NssDatabase(id, displayName, directory, createIfMissing, ca, runner);
  }

  /** The NSS database directory. */
  public Path directory() {
    return directory;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String displayName() {
    return displayName;
  }

  @Override
  public String location() {
    return directory.toString();
  }

  @Override
  public TrustStatus status() {
    if (!runner.isAvailable("certutil")) {
      return TrustStatus.unavailable(MISSING_CERTUTIL);
    }
    if (!hasDatabase()) {
      return createIfMissing
          ? TrustStatus.notTrusted("no NSS database yet; installing creates it")
          : TrustStatus.unavailable("no NSS database (cert9.db) in " + directory);
    }
    try {
      Entry entry = lookup();
      switch (entry.kind) {
        case ABSENT:
          return TrustStatus.notTrusted("not in this database");
        case OTHER_CERTIFICATE:
          return TrustStatus.notTrusted(
              "the nickname \"" + ca.nickname() + "\" holds a different certificate");
        case OURS:
        default:
          return isTrustedForTls(entry.flags)
              ? TrustStatus.trusted("as \"" + ca.nickname() + "\" (trust " + entry.flags + ")")
              : TrustStatus.notTrusted("present as \"" + ca.nickname()
                  + "\" but not trusted to identify websites (trust " + entry.flags + ")");
      }
    } catch (ToolFailure e) {
      return TrustStatus.unavailable(e.getMessage());
    }
  }

  @Override
  public TrustResult install() {
    if (!runner.isAvailable("certutil")) {
      return TrustResult.failed(MISSING_CERTUTIL);
    }
    List<String> done = new ArrayList<>();
    try (TempFile passwords = TempFile.of("loupe-nss-pw", ".txt", new byte[0]);
        TempFile pem = TempFile.of("loupe-ca", ".pem", ca.pem())) {
      if (!hasDatabase()) {
        if (!createIfMissing) {
          return TrustResult.failed("No NSS database (cert9.db) in " + directory);
        }
        createDirectory();
        CommandResult created = runner.run(List.of("certutil", "-N", "--empty-password", "-d", sqlDir()));
        if (!created.succeeded()) {
          return TrustResult.failed(created);
        }
        done.add("Created the NSS database " + directory + ".");
      }
      Entry entry = lookup();
      if (entry.kind == Kind.OTHER_CERTIFICATE) {
        return TrustResult.failed("Not installed: the nickname \"" + ca.nickname() + "\" in " + directory
            + " holds a different certificate, which Loupe leaves alone.");
      }
      if (entry.kind == Kind.OURS) {
        CommandResult deleted = runner.run(certutil(passwords.path(), "-D", "-n", ca.nickname()));
        if (!deleted.succeeded()) {
          return TrustResult.failed(deleted);
        }
      }
      CommandResult added = runner.run(certutil(passwords.path(),
          "-A", "-n", ca.nickname(), "-t", "C,,", "-i", pem.path().toString()));
      if (!added.succeeded()) {
        return TrustResult.failed(added);
      }
      TrustStatus now = status();
      if (now.state() != TrustStatus.State.TRUSTED) {
        // certutil -A keeps the first nickname of a certificate it already holds.
        return TrustResult.failed("certutil -A reported success, but " + directory + " still does not trust "
            + "the CA under \"" + ca.nickname() + "\": " + now.detail() + ". If the certificate was imported "
            + "before under another nickname, remove that entry first (certutil -L -d " + sqlDir() + " lists them).");
      }
      done.add("Installed \"" + ca.nickname() + "\" in " + directory + " (trusted to identify websites).");
      return TrustResult.ok(withOutput(String.join("\n", done), added));
    } catch (ToolFailure e) {
      return TrustResult.failed(e.getMessage());
    } catch (IOException e) {
      return TrustResult.failed(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public TrustResult remove() {
    if (!runner.isAvailable("certutil")) {
      return TrustResult.failed(MISSING_CERTUTIL);
    }
    if (!hasDatabase()) {
      return TrustResult.ok("Nothing to remove: there is no NSS database in " + directory + ".");
    }
    try (TempFile passwords = TempFile.of("loupe-nss-pw", ".txt", new byte[0])) {
      Entry entry = lookup();
      if (entry.kind == Kind.ABSENT) {
        return TrustResult.ok("Nothing to remove: \"" + ca.nickname() + "\" is not in " + directory + ".");
      }
      CommandResult deleted = null;
      // A database may hold the same nickname more than once; -D deletes one entry per call.
      for (int round = 0; round < 8 && entry.kind == Kind.OURS; round++) {
        deleted = runner.run(certutil(passwords.path(), "-D", "-n", ca.nickname()));
        if (!deleted.succeeded()) {
          return TrustResult.failed(deleted);
        }
        entry = lookup();
      }
      if (entry.kind == Kind.OTHER_CERTIFICATE) {
        return TrustResult.failed("Not removed: the nickname \"" + ca.nickname() + "\" in " + directory
            + " holds a different certificate, which Loupe leaves alone.");
      }
      if (entry.kind == Kind.OURS) {
        return TrustResult.failed("certutil -D reported success, but \"" + ca.nickname() + "\" is still in "
            + directory + ".");
      }
      return TrustResult.ok(withOutput("Removed \"" + ca.nickname() + "\" from " + directory + ".", deleted));
    } catch (ToolFailure e) {
      return TrustResult.failed(e.getMessage());
    } catch (IOException e) {
      return TrustResult.failed(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public String toString() {
    return "NssDatabase[" + id + ", " + directory + "]";
  }

  private boolean hasDatabase() {
    return Files.isRegularFile(directory.resolve("cert9.db"));
  }

  private String sqlDir() {
    return "sql:" + directory;
  }

  private List<String> certutil(Path passwordFile, String... arguments) {
    List<String> argv = new ArrayList<>();
    argv.add("certutil");
    argv.addAll(List.of(arguments));
    argv.addAll(List.of("-d", sqlDir(), "-f", passwordFile.toString()));
    return argv;
  }

  private void createDirectory() throws IOException {
    if (Files.isDirectory(directory)) {
      return;
    }
    Files.createDirectories(directory);
    try {
      Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: nothing to tighten
    }
  }

  /** What the database holds under our nickname. */
  private Entry lookup() throws ToolFailure {
    CommandResult listing = run(List.of("certutil", "-L", "-d", sqlDir()));
    if (!listing.succeeded()) {
      throw new ToolFailure(listing.describeFailure());
    }
    Optional<String> flags = trustFlags(listing.stdout(), ca.nickname());
    if (flags.isEmpty()) {
      return new Entry(Kind.ABSENT, "");
    }
    CommandResult dump = run(List.of("certutil", "-L", "-d", sqlDir(), "-n", ca.nickname(), "-a"));
    if (!dump.succeeded()) {
      throw new ToolFailure(dump.describeFailure());
    }
    // certutil prints every certificate sharing the entry's subject (NSS groups them), so two Loupe
    // CAs of the same user@host both appear; the nickname carries the fingerprint, so this CA among
    // them means the entry is this CA's.
    boolean ours = ca.isIn(dump.stdout().getBytes(StandardCharsets.US_ASCII));
    return new Entry(ours ? Kind.OURS : Kind.OTHER_CERTIFICATE, flags.get());
  }

  private CommandResult run(List<String> argv) throws ToolFailure {
    try {
      return runner.run(argv);
    } catch (IOException e) {
      throw new ToolFailure(String.valueOf(e.getMessage()));
    }
  }

  /** The trust flags ({@code "C,,"}) listed for {@code nickname} by {@code certutil -L}, if listed. */
  static Optional<String> trustFlags(String listing, String nickname) {
    for (String line : listing.split("\\R")) {
      Matcher m = LISTING_LINE.matcher(line);
      if (m.matches() && m.group(1).equals(nickname)) {
        return Optional.of(m.group(2));
      }
    }
    return Optional.empty();
  }

  /** True when the SSL part of NSS trust flags ({@code "C,,"}, {@code "CT,C,C"}) says trusted CA. */
  static boolean isTrustedForTls(String flags) {
    String ssl = flags.split(",", -1)[0];
    return ssl.indexOf('C') >= 0;
  }

  private static String withOutput(String message, CommandResult command) {
    String output = command == null ? "" : command.output();
    return output.isEmpty() ? message : message + "\n" + output;
  }

  private enum Kind { ABSENT, OURS, OTHER_CERTIFICATE }

  private static final class Entry {
    final Kind kind;
    final String flags;

    Entry(Kind kind, String flags) {
      this.kind = kind;
      this.flags = flags;
    }
  }

  /** A tool failed while finding out the state; the message is its output, verbatim. */
  private static final class ToolFailure extends Exception {
    private static final long serialVersionUID = 1L;

    ToolFailure(String message) {
      super(message);
    }
  }
}
