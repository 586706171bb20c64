package dev.loupe.installer;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Decides, for one target {@link Platform}, what happens to each jar entry that is a native library:
 * kept (the target's own), dropped (another platform's), or refused (nobody's: the build stops and names
 * the entry, so a new dependency's natives are looked at). Also drops jar signature files: packaged
 * jars are rewritten, so their signatures would no longer hold (the fat jar drops them as well).
 *
 * <p>Stateless and immutable.
 */
public final class NativeRules {
  /** zstd-jni's natives for platforms Loupe does not ship; dropped everywhere. */
  private static final Pattern FOREIGN = Pattern.compile(
      "(aix|freebsd)/.*|linux/(arm|i386|loongarch64|mips64|ppc64|ppc64le|riscv64|s390x)/.*|win/(x86|aarch64)/.*"
      + "|org/sqlite/native/(FreeBSD/.*|Linux(-Musl)?/(arm|armv6|armv7|ppc64|riscv64|x86)/.*"
      + "|Windows/(aarch64|armv7|x86)/.*)");

  private static final Pattern SIGNATURE = Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)",
      Pattern.CASE_INSENSITIVE);

  /** What to do with an entry. */
  public enum Decision { KEEP, DROP }

  private final Platform target;

  public NativeRules(Platform target) {
    this.target = target;
  }

  public Platform target() {
    return target;
  }

  /** True for entries that are native libraries (by file name). */
  public static boolean isNative(String entry) {
    String n = entry.toLowerCase(Locale.ROOT);
    return n.endsWith(".so") || n.endsWith(".dylib") || n.endsWith(".jnilib") || n.endsWith(".dll");
  }

  /**
   * KEEP or DROP for an entry of a non-JavaFX jar.
   *
   * @throws IllegalStateException for a native library no platform rule knows
   */
  public Decision decide(String entry) {
    if (SIGNATURE.matcher(entry).matches()) {
      return Decision.DROP;
    }
    if (!isNative(entry)) {
      return Decision.KEEP;
    }
    if (target.ownsNative(entry)) {
      return Decision.KEEP;
    }
    for (Platform p : Platform.values()) {
      if (p.ownsNative(entry)) {
        return Decision.DROP;
      }
    }
    if (FOREIGN.matcher(entry).matches()) {
      return Decision.DROP;
    }
    throw new IllegalStateException("native library '" + entry + "' belongs to no known platform: add a rule"
        + " for it to dev.loupe.installer.Platform before shipping it");
  }

  /**
   * True when a dependency jar's file name says it holds only another platform's natives
   * (Netty's and brotli4j's per-classifier jars); such jars are left out whole.
   */
  public boolean isOtherPlatformsJar(String fileName) {
    for (Platform p : Platform.values()) {
      if (p == target) {
        continue;
      }
      String c = p.nettyClassifier();
      String brotli = "native-" + c.replace("aarch_64", "aarch64"); // brotli4j spells arm64 without '_'
      if (fileName.endsWith("-" + c + ".jar") || fileName.startsWith(brotli + "-")) {
        return true;
      }
    }
    return false;
  }
}
