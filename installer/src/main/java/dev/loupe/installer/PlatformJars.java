package dev.loupe.installer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

/**
 * Writes jars for one platform: the runnable {@code loupe-<platform>.jar} (the fat jar with that
 * platform's JavaFX and only that platform's natives) and filtered copies of dependency jars for the
 * packaged app (see {@link NativeRules}).
 *
 * <p>Why one jar per platform: JavaFX's natives sit at the jar root under the same names on x64 and
 * aarch64 ({@code libglass.so}, {@code libprism_sw.so}), so one jar cannot hold both; the fat
 * {@code app/target/loupe.jar} holds the building machine's only.
 *
 * <p>Stateless; each call reads its inputs and writes one new file.
 */
public final class PlatformJars {
  private PlatformJars() {}

  /** The file name of a platform's runnable jar. */
  public static String fileName(Platform p) {
    return "loupe-" + p.id() + ".jar";
  }

  /** The JavaFX jars of {@code p} in {@code javafxRoot/<id>/}, sorted; fails when there are none. */
  public static List<Path> javafxJars(Path javafxRoot, Platform p) throws IOException {
    Path dir = javafxRoot.resolve(p.id());
    List<Path> jars;
    try (Stream<Path> s = Files.list(dir)) {
      jars = s.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
    } catch (java.nio.file.NoSuchFileException e) {
      jars = List.of();
    }
    if (jars.size() < 3) {
      throw new IOException("expected javafx-base, -graphics and -controls for " + p.id() + " in " + dir
          + "; run the Maven build of the installer module first");
    }
    return jars;
  }

  /**
   * Writes {@code out}: {@code fatJar} without its JavaFX content and other platforms' natives, plus the
   * JavaFX of {@code target}, plus the target's natives found in {@code extraJars}.
   *
   * @param javafxRoot a directory with one sub-directory of JavaFX jars per platform
   */
  public static void runnableJar(Path fatJar, Path javafxRoot, List<Path> extraJars, Platform target, Path out)
      throws IOException {
    runnableJar(fatJar, javafxRoot, javafxEntries(javafxRoot), extraJars, target, out);
  }

  /** Every entry name of every platform's JavaFX jars, outside META-INF: what a fat jar took from JavaFX. */
  public static Set<String> javafxEntries(Path javafxRoot) throws IOException {
    Set<String> javafxEntries = new HashSet<>();
    for (Platform p : Platform.values()) {
      for (Path jar : javafxJars(javafxRoot, p)) {
        try (JarFile j = new JarFile(jar.toFile())) {
          j.stream().map(JarEntry::getName).filter(n -> !n.startsWith("META-INF/")).forEach(javafxEntries::add);
        }
      }
    }
    return javafxEntries;
  }

  /** {@link #runnableJar(Path, Path, List, Platform, Path)} with {@link #javafxEntries(Path)} given. */
  public static void runnableJar(Path fatJar, Path javafxRoot, Set<String> javafxEntries, List<Path> extraJars,
      Platform target, Path out) throws IOException {
    NativeRules rules = new NativeRules(target);
    Files.createDirectories(out.toAbsolutePath().getParent());
    Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
    try (JarFile fat = new JarFile(fatJar.toFile())) {
      Manifest manifest = new Manifest(fat.getManifest());
      manifest.getMainAttributes().put(new Attributes.Name("Loupe-Platform"), target.id());
      try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(tmp), manifest)) {
        Set<String> written = new HashSet<>(Set.of(JarFile.MANIFEST_NAME, "META-INF/"));
        for (JarEntry e : list(fat)) {
          String name = e.getName();
          if (!javafxEntries.contains(name) && rules.decide(name) == NativeRules.Decision.KEEP) {
            copy(fat, e, jar, written);
          }
        }
        for (Path fx : javafxJars(javafxRoot, target)) {
          try (JarFile j = new JarFile(fx.toFile())) {
            for (JarEntry e : list(j)) {
              String name = e.getName();
              if (!name.startsWith("META-INF/") && !name.equals("module-info.class")) {
                copy(j, e, jar, written);
              }
            }
          }
        }
        for (Path extra : extraJars) {
          try (JarFile j = new JarFile(extra.toFile())) {
            for (JarEntry e : list(j)) {
              if (NativeRules.isNative(e.getName()) && target.ownsNative(e.getName())) {
                copy(j, e, jar, written);
              }
            }
          }
        }
      }
    }
    Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Copies dependency {@code jar} to {@code out} without other platforms' natives, signature files and
   * the manifest's per-entry digests ({@link #withoutDigests}).
   *
   * @return false (and writes nothing) when nothing but the manifest and directories would remain
   */
  public static boolean filteredCopy(Path jar, Platform target, Path out) throws IOException {
    NativeRules rules = new NativeRules(target);
    try (JarFile in = new JarFile(jar.toFile())) {
      List<JarEntry> keep = new ArrayList<>();
      boolean dropped = false;
      for (JarEntry e : list(in)) {
        if (rules.decide(e.getName()) == NativeRules.Decision.KEEP) {
          keep.add(e);
        } else {
          dropped = true;
        }
      }
      Manifest original = in.getManifest();
      Manifest manifest = original == null ? null : withoutDigests(original);
      if (!dropped && (manifest == null || manifest.equals(original))) {
        Files.copy(jar, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return true;
      }
      if (keep.stream().allMatch(e -> e.isDirectory() || e.getName().startsWith("META-INF/"))) {
        return false;
      }
      try (OutputStream os = Files.newOutputStream(out);
          JarOutputStream o = manifest == null ? new JarOutputStream(os) : new JarOutputStream(os, manifest)) {
        Set<String> written = new HashSet<>(Set.of(JarFile.MANIFEST_NAME, "META-INF/"));
        for (JarEntry e : keep) {
          copy(in, e, o, written);
        }
      }
      return true;
    }
  }

  /**
   * {@code manifest} without the per-entry digests a signed jar's manifest carries ({@code Name:} sections
   * with {@code SHA-256-Digest} and the like), and without the sections that held nothing else; the main
   * attributes ({@code Multi-Release}, {@code Automatic-Module-Name}, versions) and any other per-entry
   * attribute stay. The packaged jars lose their signature files ({@link NativeRules}), so the digests
   * verify nothing; but the JVM keeps every class path jar's manifest parsed in the heap for as long as it
   * runs (the class-data archive's protection domains), and Bouncy Castle's three jars hold a digest per
   * class: ~7,700 sections, 1.1 MB of text, several MiB of {@code Attributes} (docs/PERFORMANCE.md, "The
   * window's idle RSS, fourth pass").
   *
   * @return a new manifest; equal to {@code manifest} when it had no digests
   */
  public static Manifest withoutDigests(Manifest manifest) {
    Manifest out = new Manifest();
    out.getMainAttributes().putAll(manifest.getMainAttributes());
    manifest.getEntries().forEach((name, attributes) -> {
      Attributes kept = new Attributes();
      attributes.forEach((key, value) -> {
        if (!key.toString().toLowerCase(java.util.Locale.ROOT).endsWith("-digest")) {
          kept.put(key, value);
        }
      });
      if (!kept.isEmpty()) {
        out.getEntries().put(name, kept);
      }
    });
    return out;
  }

  private static List<JarEntry> list(JarFile j) {
    List<JarEntry> entries = new ArrayList<>();
    for (Enumeration<JarEntry> en = j.entries(); en.hasMoreElements(); ) {
      entries.add(en.nextElement());
    }
    return entries;
  }

  /** Copies one entry unless an entry of that name was written already (the first one wins, as in shade). */
  private static void copy(JarFile from, JarEntry e, JarOutputStream to, Set<String> written) throws IOException {
    if (!written.add(e.getName())) {
      return;
    }
    JarEntry copy = new JarEntry(e.getName());
    copy.setTime(e.getTime());
    to.putNextEntry(copy);
    if (!e.isDirectory()) {
      try (InputStream in = from.getInputStream(e)) {
        in.transferTo(to);
      }
    }
    to.closeEntry();
  }
}
