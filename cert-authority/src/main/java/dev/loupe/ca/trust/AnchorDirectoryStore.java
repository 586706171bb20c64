package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A Linux system trust store fed from a directory of anchor files and rebuilt by a tool: Debian's
 * {@code /usr/local/share/ca-certificates} + {@code update-ca-certificates}, Fedora's {@code
 * /etc/pki/ca-trust/source/anchors} + {@code update-ca-trust extract}.
 *
 * <ul>
 *   <li>status: the anchor file {@code loupe-ca.crt} holds exactly this CA, and the bundle the tool
 *       builds ({@code /etc/ssl/certs/ca-certificates.crt}, {@code
 *       .../extracted/pem/tls-ca-bundle.pem}) contains it;
 *   <li>install: write the PEM to the anchor file (atomically, 0644), run the tool;
 *   <li>remove: delete the anchor file when it holds this CA (never another), run the tool in the
 *       mode that drops removed anchors ({@code --fresh} on Debian).
 * </ul>
 *
 * Changing the store needs root. Without it ({@code privileged} false) nothing is attempted:
 * {@link #manualInstallCommand()} and {@link #manualRemoveCommand()} give the {@code sudo} command
 * lines to paste into a terminal. The directories are constructor parameters so tests use
 * temporary ones.
 */
public final class AnchorDirectoryStore implements TrustStore {
  /** The anchor file name, the same on both families. */
  public static final String ANCHOR_FILE = "loupe-ca.crt";

  private final String id;
  private final String displayName;
  private final Path anchorDirectory;
  private final Path bundle;
  private final String tool;
  private final List<String> refreshAfterInstall;
  private final List<String> refreshAfterRemove;
  private final boolean privileged;
  private final CaCertificate ca;
  private final CommandRunner runner;

  private AnchorDirectoryStore(String id, String displayName, Path anchorDirectory, Path bundle,
      List<String> refreshAfterInstall, List<String> refreshAfterRemove, boolean privileged,
      CaCertificate ca, CommandRunner runner) {
    this.id = id;
    this.displayName = displayName;
    this.anchorDirectory = requireNonNull(anchorDirectory, "anchorDirectory");
    this.bundle = requireNonNull(bundle, "bundle");
    this.tool = refreshAfterInstall.get(0);
    this.refreshAfterInstall = List.copyOf(refreshAfterInstall);
    this.refreshAfterRemove = List.copyOf(refreshAfterRemove);
    this.privileged = privileged;
    this.ca = requireNonNull(ca, "ca");
    this.runner = requireNonNull(runner, "runner");
  }

  /** Debian and Ubuntu, at the real paths. */
  public static AnchorDirectoryStore debian(CaCertificate ca, CommandRunner runner, boolean privileged) {
    return debian(ca, runner, privileged, Path.of("/usr/local/share/ca-certificates"),
        Path.of("/etc/ssl/certs/ca-certificates.crt"));
  }

  /** Debian and Ubuntu, with the anchor directory and the bundle file given (tests). */
  public static AnchorDirectoryStore debian(CaCertificate ca, CommandRunner runner, boolean privileged,
      Path anchorDirectory, Path bundle) {
    return new AnchorDirectoryStore("system-debian", "System store (Debian/Ubuntu)", anchorDirectory, bundle,
        List.of("update-ca-certificates"), List.of("update-ca-certificates", "--fresh"), privileged, ca, runner);
  }

  /** Fedora, RHEL and friends, at the real paths. */
  public static AnchorDirectoryStore fedora(CaCertificate ca, CommandRunner runner, boolean privileged) {
    return fedora(ca, runner, privileged, Path.of("/etc/pki/ca-trust/source/anchors"),
        Path.of("/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"));
  }

  /** Fedora, with the anchor directory and the bundle file given (tests). */
  public static AnchorDirectoryStore fedora(CaCertificate ca, CommandRunner runner, boolean privileged,
      Path anchorDirectory, Path bundle) {
    return new AnchorDirectoryStore("system-fedora", "System store (Fedora/RHEL)", anchorDirectory, bundle,
        List.of("update-ca-trust", "extract"), List.of("update-ca-trust", "extract"), privileged, ca, runner);
  }

  /** The file this store writes: {@code <anchor directory>/loupe-ca.crt}. */
  public Path anchorFile() {
    return anchorDirectory.resolve(ANCHOR_FILE);
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
    return anchorFile().toString();
  }

  @Override
  public TrustStatus status() {
    if (!runner.isAvailable(tool)) {
      return TrustStatus.unavailable(tool + " not found");
    }
    Path anchor = anchorFile();
    if (!Files.isRegularFile(anchor)) {
      return TrustStatus.notTrusted("no " + anchor);
    }
    if (!holdsThisCa(anchor)) {
      return TrustStatus.notTrusted(anchor + " holds a different certificate");
    }
    if (Files.isRegularFile(bundle) && !bundleHoldsThisCa()) {
      return TrustStatus.notTrusted(anchor + " is in place, but " + bundle + " does not include it yet ("
          + String.join(" ", refreshAfterInstall) + " has not run since)");
    }
    return TrustStatus.trusted("via " + anchor);
  }

  @Override
  public TrustResult install() {
    if (!runner.isAvailable(tool)) {
      return TrustResult.failed(tool + " not found");
    }
    if (!privileged) {
      return TrustResult.failed("Changing the system store needs administrator rights; run in a terminal:\n"
          + manualInstallCommand().orElseThrow());
    }
    Path anchor = anchorFile();
    List<String> done = new ArrayList<>();
    try {
      if (Files.isRegularFile(anchor) && holdsThisCa(anchor)) {
        done.add(anchor + " already holds this CA.");
      } else {
        boolean replacing = Files.exists(anchor);
        Files.createDirectories(anchorDirectory);
        writeAtomically(anchor, ca.pem());
        done.add(replacing
            ? "Replaced " + anchor + ", which held a different certificate (an earlier Loupe CA?), with this CA."
            : "Wrote " + anchor + ".");
      }
    } catch (IOException e) {
      return TrustResult.failed("Cannot write " + anchor + ": " + e);
    }
    return refresh(refreshAfterInstall, done);
  }

  @Override
  public TrustResult remove() {
    if (!runner.isAvailable(tool)) {
      return TrustResult.failed(tool + " not found");
    }
    if (!privileged) {
      return TrustResult.failed("Changing the system store needs administrator rights; run in a terminal:\n"
          + manualRemoveCommand().orElseThrow());
    }
    Path anchor = anchorFile();
    List<String> done = new ArrayList<>();
    if (!Files.exists(anchor)) {
      if (!bundleHoldsThisCa()) {
        return TrustResult.ok("Nothing to remove: there is no " + anchor + ".");
      }
      done.add("There is no " + anchor + " any more; rebuilding the bundle that still includes the CA.");
    } else if (!holdsThisCa(anchor)) {
      return TrustResult.failed("Not removed: " + anchor + " holds a different certificate, which Loupe leaves alone.");
    } else {
      try {
        Files.delete(anchor);
        done.add("Deleted " + anchor + ".");
      } catch (IOException e) {
        return TrustResult.failed("Cannot delete " + anchor + ": " + e);
      }
    }
    return refresh(refreshAfterRemove, done);
  }

  @Override
  public Optional<String> manualInstallCommand() {
    if (privileged) {
      return Optional.empty();
    }
    return Optional.of("sudo cp " + Shell.quote(ca.file().toString()) + " " + Shell.quote(anchorFile().toString())
        + " && sudo " + String.join(" ", refreshAfterInstall));
  }

  @Override
  public Optional<String> manualRemoveCommand() {
    if (privileged) {
      return Optional.empty();
    }
    return Optional.of("sudo rm " + Shell.quote(anchorFile().toString()) + " && sudo "
        + String.join(" ", refreshAfterRemove));
  }

  @Override
  public String toString() {
    return "AnchorDirectoryStore[" + id + ", " + anchorDirectory + "]";
  }

  private TrustResult refresh(List<String> argv, List<String> done) {
    CommandResult refreshed;
    try {
      refreshed = runner.run(argv);
    } catch (IOException e) {
      return TrustResult.failed(String.join("\n", done) + "\n" + e.getMessage());
    }
    if (!refreshed.succeeded()) {
      return TrustResult.failed(String.join("\n", done) + "\n" + refreshed.describeFailure());
    }
    done.add("Ran " + String.join(" ", argv) + ".");
    String output = refreshed.output();
    return TrustResult.ok(String.join("\n", done) + (output.isEmpty() ? "" : "\n" + output));
  }

  private boolean holdsThisCa(Path file) {
    try {
      return Files.size(file) < 1 << 20 && ca.isIn(Files.readAllBytes(file));
    } catch (IOException e) {
      return false;
    }
  }

  private boolean bundleHoldsThisCa() {
    try {
      return Files.isRegularFile(bundle) && Files.size(bundle) < 64 << 20 && ca.isIn(Files.readAllBytes(bundle));
    } catch (IOException e) {
      return false;
    }
  }

  private static void writeAtomically(Path target, byte[] content) throws IOException {
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".tmp");
    try {
      Files.write(tmp, content);
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
      } catch (UnsupportedOperationException e) {
        // not POSIX: keep the default permissions
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
