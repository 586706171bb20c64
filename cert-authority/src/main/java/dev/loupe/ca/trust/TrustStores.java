package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The trust stores of a machine, for one CA: what {@link #forThisMachine} finds.
 *
 * <ul>
 *   <li>Linux: Chromium's NSS database {@code ~/.pki/nssdb} (created on install when missing), the
 *       snap and flatpak Chromium databases when present, every Firefox profile with a {@code
 *       cert9.db} ({@link FirefoxProfiles}), and the system store (Debian's when {@code
 *       update-ca-certificates} exists, else Fedora's when {@code update-ca-trust} does; changed
 *       directly only as root, otherwise it offers the {@code sudo} command);
 *   <li>macOS: the login keychain;
 *   <li>Windows: the user Root store.
 * </ul>
 */
public final class TrustStores {
  /**
   * Where to look.
   *
   * @param osName as the {@code os.name} system property
   * @param home the user's home directory
   * @param privileged whether the process may change the system store (root on Linux)
   */
  public record Environment(String osName, Path home, boolean privileged) {
    /** Checks for nulls. */
    public Environment {
      requireNonNull(osName, "osName");
      requireNonNull(home, "home");
    }

    /** This process: {@code os.name}, {@code user.home}, and whether it runs as root. */
    public static Environment current() {
      return new Environment(System.getProperty("os.name", ""), Path.of(System.getProperty("user.home")),
          isRoot());
    }

    private static boolean isRoot() {
      try {
        // /proc/self belongs to the process's effective user.
        Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        return Integer.valueOf(0).equals(uid);
      } catch (IOException | RuntimeException e) {
        return "root".equals(System.getProperty("user.name"));
      }
    }
  }

  private TrustStores() {}

  /** The stores of this machine and user, running tools as child processes. */
  public static List<TrustStore> forThisMachine(CaCertificate ca) {
    return find(ca, Environment.current(), new ProcessCommandRunner());
  }

  /** The stores for {@code environment}, running tools through {@code runner}. */
  public static List<TrustStore> find(CaCertificate ca, Environment environment, CommandRunner runner) {
    requireNonNull(ca, "ca");
    requireNonNull(environment, "environment");
    requireNonNull(runner, "runner");
    String os = environment.osName().toLowerCase(Locale.ROOT);
    Path home = environment.home();
    List<TrustStore> stores = new ArrayList<>();
    if (os.startsWith("windows")) {
      stores.add(new WindowsRootStore(ca, runner));
      return stores;
    }
    if (os.startsWith("mac") || os.contains("darwin")) {
      stores.add(new MacKeychainStore(home, ca, runner));
      return stores;
    }
    stores.addAll(nssDatabases(home, ca, runner));
    if (!runner.isAvailable("update-ca-certificates") && runner.isAvailable("update-ca-trust")) {
      stores.add(AnchorDirectoryStore.fedora(ca, runner, environment.privileged()));
    } else {
      stores.add(AnchorDirectoryStore.debian(ca, runner, environment.privileged()));
    }
    return stores;
  }

  /** Chromium's databases and the Firefox profiles' under {@code home} (Linux layout). */
  public static List<NssDatabase> nssDatabases(Path home, CaCertificate ca, CommandRunner runner) {
    List<NssDatabase> databases = new ArrayList<>();
    databases.add(NssDatabase.of("nss-chromium", "Chromium / Chrome (NSS)", home.resolve(".pki/nssdb"), true,
        ca, runner));
    Path snap = home.resolve("snap/chromium/current/.pki/nssdb");
    if (Files.isRegularFile(snap.resolve("cert9.db"))) {
      databases.add(NssDatabase.of("nss-chromium-snap", "Chromium (snap)", snap, false, ca, runner));
    }
    Path flatpak = home.resolve(".var/app/org.chromium.Chromium/.pki/nssdb");
    if (Files.isRegularFile(flatpak.resolve("cert9.db"))) {
      databases.add(NssDatabase.of("nss-chromium-flatpak", "Chromium (flatpak)", flatpak, false, ca, runner));
    }
    Set<String> ids = new HashSet<>();
    for (FirefoxProfiles.Profile profile : FirefoxProfiles.find(home)) {
      String base = "nss-firefox-" + (profile.packaging().isEmpty() ? "" : profile.packaging() + "-")
          + profile.directory().getFileName().toString().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
      String id = base;
      for (int n = 2; !ids.add(id); n++) {
        id = base + "-" + n;
      }
      databases.add(NssDatabase.of(id, profile.displayName(), profile.directory(), false, ca, runner));
    }
    return databases;
  }
}
