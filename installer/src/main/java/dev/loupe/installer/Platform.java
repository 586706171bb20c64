package dev.loupe.installer;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The five desktops Loupe ships for, and how to recognise each one's native libraries inside jars.
 *
 * <p>Every native library in a packaged jar belongs to exactly one platform: JavaFX's (at the jar root,
 * from the platform's JavaFX jars), Netty's ({@code META-INF/native/}: tcnative, QUIC, epoll), brotli4j's
 * ({@code lib/<os>-<arch>/}), zstd-jni's ({@code <os>/<arch>/}) and sqlite-jdbc's
 * ({@code org/sqlite/native/<Os>/<arch>/}). {@link NativeRules} keeps a
 * platform's own natives and drops the others; a native that matches no rule stops the build, so a new
 * dependency's natives are looked at, not shipped blindly.
 *
 * <p>Immutable.
 */
public enum Platform {
  LINUX_X64("linux-x64", "linux", "linux-x86_64", Os.LINUX, Arch.X64,
      "META-INF/native/lib[a-z0-9_]*linux_x86_64\\.so",
      "META-INF/native/libnetty_transport_native_(epoll|io_uring[0-9]*)_x86_64\\.so",
      "lib/linux-x86_64/[^/]+", "linux/amd64/[^/]+", "org/sqlite/native/Linux(-Musl)?/x86_64/[^/]+"),
  LINUX_AARCH64("linux-aarch64", "linux-aarch64", "linux-aarch_64", Os.LINUX, Arch.AARCH64,
      "META-INF/native/lib[a-z0-9_]*linux_aarch_64\\.so",
      "META-INF/native/libnetty_transport_native_(epoll|io_uring[0-9]*)_aarch_64\\.so",
      "lib/linux-aarch64/[^/]+", "linux/aarch64/[^/]+", "org/sqlite/native/Linux(-Musl)?/aarch64/[^/]+"),
  MAC_X64("mac-x64", "mac", "osx-x86_64", Os.MAC, Arch.X64,
      "META-INF/native/lib[a-z0-9_]*osx_x86_64\\.jnilib",
      "lib/osx-x86_64/[^/]+", "darwin/x86_64/[^/]+", "org/sqlite/native/Mac/x86_64/[^/]+"),
  MAC_AARCH64("mac-aarch64", "mac-aarch64", "osx-aarch_64", Os.MAC, Arch.AARCH64,
      "META-INF/native/lib[a-z0-9_]*osx_aarch_64\\.jnilib",
      "lib/osx-aarch64/[^/]+", "darwin/aarch64/[^/]+", "org/sqlite/native/Mac/aarch64/[^/]+"),
  WIN_X64("win-x64", "win", "windows-x86_64", Os.WINDOWS, Arch.X64,
      "META-INF/native/[a-z0-9_]*windows_x86_64\\.dll",
      "lib/windows-x86_64/[^/]+", "win/amd64/[^/]+", "org/sqlite/native/Windows/x86_64/[^/]+");

  /** Operating systems, with what differs between them for packaging. */
  public enum Os {
    LINUX(".so", List.of("app-image", "deb", "rpm")),
    MAC(".dylib", List.of("app-image", "dmg")),
    WINDOWS(".dll", List.of("app-image", "msi"));

    private final String javafxNativeSuffix;
    private final List<String> packageTypes;

    Os(String javafxNativeSuffix, List<String> packageTypes) {
      this.javafxNativeSuffix = javafxNativeSuffix;
      this.packageTypes = packageTypes;
    }

    /** File name ending of JavaFX's native libraries on this OS. */
    public String javafxNativeSuffix() {
      return javafxNativeSuffix;
    }

    /** jpackage {@code --type} values built on this OS, the app image first. */
    public List<String> packageTypes() {
      return packageTypes;
    }
  }

  /** CPU architectures. */
  public enum Arch { X64, AARCH64 }

  private final String id;
  private final String javafxClassifier;
  private final String nettyClassifier;
  private final Os os;
  private final Arch arch;
  private final List<Pattern> nativePatterns;

  Platform(String id, String javafxClassifier, String nettyClassifier, Os os, Arch arch, String... natives) {
    this.id = id;
    this.javafxClassifier = javafxClassifier;
    this.nettyClassifier = nettyClassifier;
    this.os = os;
    this.arch = arch;
    this.nativePatterns = java.util.Arrays.stream(natives).map(Pattern::compile).toList();
  }

  /** The name used in file names: {@code loupe-<id>.jar}, {@code target/javafx/<id>/}. */
  public String id() {
    return id;
  }

  /** The classifier of {@code org.openjfx} artifacts for this platform. */
  public String javafxClassifier() {
    return javafxClassifier;
  }

  /** The classifier of Netty's native artifacts (and brotli4j's native jars, spelled alike). */
  public String nettyClassifier() {
    return nettyClassifier;
  }

  public Os os() {
    return os;
  }

  public Arch arch() {
    return arch;
  }

  /** True when {@code entry} (a jar entry name) is one of this platform's non-JavaFX natives. */
  public boolean ownsNative(String entry) {
    for (Pattern p : nativePatterns) {
      if (p.matcher(entry).matches()) {
        return true;
      }
    }
    return false;
  }

  /** The platform with this {@link #id()}. */
  public static Platform byId(String id) {
    for (Platform p : values()) {
      if (p.id.equals(id)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown platform '" + id + "' (expected one of "
        + java.util.Arrays.stream(values()).map(Platform::id).toList() + ")");
  }

  /** The platform this JVM runs on. */
  public static Platform current() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean arm = arch.equals("aarch64") || arch.equals("arm64");
    if (!arm && !arch.equals("amd64") && !arch.equals("x86_64")) {
      throw new IllegalStateException("no Loupe package for the " + arch + " architecture");
    }
    if (os.contains("linux")) {
      return arm ? LINUX_AARCH64 : LINUX_X64;
    }
    if (os.contains("mac") || os.contains("darwin")) {
      return arm ? MAC_AARCH64 : MAC_X64;
    }
    if (os.contains("windows") && !arm) {
      return WIN_X64;
    }
    throw new IllegalStateException("no Loupe package for " + os + " on " + arch);
  }
}
