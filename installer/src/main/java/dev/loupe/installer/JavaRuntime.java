package dev.loupe.installer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The trimmed Java runtime a package carries: JavaFX turned into jmods (its natives as the runtime's own
 * libraries, so JavaFX loads them from the image and never unpacks them into the user's home), the
 * modules Loupe uses found by {@code jdeps}, and {@code jlink} to put them together. With JavaFX in the
 * runtime's boot layer there is no "Unsupported JavaFX configuration" warning; the libraries that reach
 * into JavaFX internals from the class path get exactly the {@code --add-exports} {@code jdeps} finds.
 *
 * <p>Stateless; every method writes under the directories it is given.
 */
final class JavaRuntime {
  /** Modules jdeps cannot see from the bytecode but Loupe needs at run time. */
  static final List<String> EXTRA_MODULES = List.of(
      "jdk.crypto.ec", // EC TLS cipher suites and the EC CA key (SunEC lives here on JDK 17)
      "jdk.charsets", // decoding bodies in legacy charsets (Shift_JIS, GBK, EUC-KR, ...)
      "jdk.zipfs"); // plugin jars
  // Not jdk.localedata (30 MB): java.base's English and root locale data format dates and numbers.
  /** Internal packages opened reflectively (not visible to jdeps); see TECH-NOTES §5 for ControlsFX. */
  static final List<String> REFLECTIVE = List.of(
      "--add-opens=javafx.controls/javafx.scene.control.skin=ALL-UNNAMED",
      "--add-exports=javafx.controls/com.sun.javafx.scene.control.inputmap=ALL-UNNAMED",
      "--add-exports=javafx.graphics/com.sun.javafx.scene.traversal=ALL-UNNAMED",
      "--add-exports=javafx.graphics/com.sun.javafx.scene=ALL-UNNAMED");

  private static final Pattern INTERNAL =
      Pattern.compile("->\\s+(\\S+)\\s+(javafx\\.[a-z]+)\\s+\\(internal\\)");

  private JavaRuntime() {}

  /**
   * Makes {@code javafx.*.jmod} in {@code out} from a platform's JavaFX jars: classes and resources
   * stay classes, the native libraries become the module's libraries (jlink puts them in the image's
   * {@code lib/}, or {@code bin/} on Windows, where JavaFX looks first).
   */
  static void javafxJmods(List<Path> javafxJars, Platform p, String version, Path work, Path out)
      throws IOException {
    Files.createDirectories(out);
    for (Path jar : javafxJars) {
      String module;
      Path classes = work.resolve("classes-" + jar.getFileName());
      Path libs = work.resolve("libs-" + jar.getFileName());
      Files.createDirectories(classes);
      Files.createDirectories(libs);
      boolean hasLibs = false;
      try (JarFile j = new JarFile(jar.toFile())) {
        for (Enumeration<JarEntry> en = j.entries(); en.hasMoreElements(); ) {
          JarEntry e = en.nextElement();
          if (e.isDirectory() || e.getName().startsWith("META-INF/")) {
            continue;
          }
          boolean nativeLib = !e.getName().contains("/") && e.getName().endsWith(p.os().javafxNativeSuffix());
          Path target = (nativeLib ? libs : classes).resolve(e.getName()).normalize();
          if (!target.startsWith(nativeLib ? libs : classes)) {
            throw new IOException("bad entry " + e.getName() + " in " + jar);
          }
          hasLibs |= nativeLib;
          Files.createDirectories(target.getParent());
          try (InputStream in = j.getInputStream(e)) {
            Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
      module = moduleName(jar);
      Path jmod = out.resolve(module + ".jmod");
      Files.deleteIfExists(jmod);
      List<String> args = new ArrayList<>(List.of("create", "--class-path", classes.toString(),
          "--module-version", version));
      if (hasLibs) {
        args.addAll(List.of("--libs", libs.toString()));
      }
      args.add(jmod.toString());
      Tools.jdk("jmod", args);
    }
  }

  /** {@code javafx-graphics-21.0.11-linux.jar} is module {@code javafx.graphics}. */
  static String moduleName(Path javafxJar) {
    Matcher m = Pattern.compile("(javafx)-([a-z]+)-.*\\.jar").matcher(javafxJar.getFileName().toString());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a JavaFX jar: " + javafxJar);
    }
    return m.group(1) + "." + m.group(2);
  }

  /** The JDK and JavaFX modules the class-path jars in {@code input} use, plus {@link #EXTRA_MODULES}. */
  static List<String> modules(Path input, Path javafxModulePath) throws IOException {
    List<String> args = new ArrayList<>(List.of("--print-module-deps", "--ignore-missing-deps",
        "--multi-release", "17", "--module-path", javafxModulePath.toString(),
        "--class-path", input + "/*"));
    args.addAll(jars(input));
    String printed = Tools.jdk("jdeps", args).strip();
    String last = printed.lines().reduce((a, b) -> b).orElse("");
    Set<String> modules = new LinkedHashSet<>(List.of(last.split(",")));
    modules.addAll(EXTRA_MODULES);
    modules.removeIf(String::isBlank);
    return List.copyOf(modules);
  }

  /**
   * {@code --add-exports} for every JavaFX-internal package a class-path jar reads (found by
   * {@code jdeps}), plus {@link #REFLECTIVE}: class-path code may not reach into named modules otherwise.
   */
  static List<String> javafxAccessOptions(Path input, Path javafxModulePath) throws IOException {
    List<String> args = new ArrayList<>(List.of("-verbose:package", "--multi-release", "17",
        "--module-path", javafxModulePath.toString(), "--add-modules", "javafx.controls",
        "--class-path", input + "/*"));
    args.addAll(jars(input));
    Set<String> options = new LinkedHashSet<>();
    Matcher m = INTERNAL.matcher(Tools.jdk("jdeps", args));
    while (m.find()) {
      options.add("--add-exports=" + m.group(2) + "/" + m.group(1) + "=ALL-UNNAMED");
    }
    List<String> sorted = new ArrayList<>(options);
    sorted.sort(null);
    for (String r : REFLECTIVE) {
      if (!sorted.contains(r)) {
        sorted.add(r);
      }
    }
    return sorted;
  }

  /**
   * {@code jlink}s {@code modules} from the JDK and {@code jmods} into {@code out}, without debug
   * information, headers, man pages or tools other than {@code bin/java} (kept for the class-data-sharing
   * archive, made at install time on Linux).
   */
  static void link(List<String> modules, Path jmods, Path out, boolean defaultCdsArchive) throws IOException {
    link(modules, jmods, out, defaultCdsArchive, running());
  }

  /**
   * {@link #link(List, Path, Path, boolean)} with the modules of {@code jdk}: the running JDK's {@code jlink}
   * in process, another JDK's as a child process (its own {@code jmods}, or its run-time image when it has
   * none, JDK 24+). JavaFX's jmods are made by the running JDK's {@code jmod}; their format is the same.
   */
  static void link(List<String> modules, Path jmods, Path out, boolean defaultCdsArchive, Path jdk)
      throws IOException {
    deleteTree(out);
    List<String> args = new ArrayList<>(List.of("--module-path", jmods.toString(),
        "--add-modules", String.join(",", modules),
        "--strip-java-debug-attributes", "--no-header-files", "--no-man-pages", "--output", out.toString()));
    if (defaultCdsArchive) {
      args.add("--generate-cds-archive");
    }
    if (nativeDebugSymbolsStrippable()) {
      args.add("--strip-native-debug-symbols=exclude-debuginfo-files"); // Debian's libjvm.so: 23 MB -> ~20 MB less
    }
    if (jdk.equals(running())) {
      Tools.jdk("jlink", args);
    } else {
      List<String> command = new ArrayList<>();
      command.add(jdk.resolve("bin").resolve("jlink").toString());
      command.addAll(args);
      System.out.println("> " + String.join(" ", command));
      try {
        Tools.run(command, 10, java.util.concurrent.TimeUnit.MINUTES, null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while linking the runtime", e);
      }
    }
    try (Stream<Path> bin = Files.list(out.resolve("bin"))) {
      for (Path tool : bin.toList()) {
        String n = tool.getFileName().toString();
        if (!n.equals("java") && !n.equals("java.exe") && !n.endsWith(".dll")) {
          Files.delete(tool);
        }
      }
    }
  }

  /** The JDK running this build. */
  static Path running() {
    return Path.of(System.getProperty("java.home")).toAbsolutePath().normalize();
  }

  /** The feature release of the JDK at {@code jdk} (25 for 25.0.3), from its {@code release} file; 0 if unknown. */
  static int feature(Path jdk) {
    try {
      for (String line : Files.readAllLines(jdk.resolve("release"))) {
        Matcher m = Pattern.compile("^JAVA_VERSION=\"(\\d+)").matcher(line);
        if (m.find()) {
          return Integer.parseInt(m.group(1));
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  /** The first feature release whose packaged runtime gets an ahead-of-time cache instead of a CDS archive. */
  static final int AOT_FEATURE = 25;

  /**
   * The JDK whose modules the packages' runtime is linked from: {@code LOUPE_RUNTIME_JDK} when set (a JDK
   * directory; empty for the running JDK); else a JDK {@value #AOT_FEATURE} or newer with {@code jlink} in
   * {@code jvmDirs} (the newest; docs/PERFORMANCE.md, issue 19: its ahead-of-time cache makes the first
   * seconds after launch several times faster than JDK 17 with CDS); else the running JDK.
   */
  static Path runtimeJdk(String env, List<Path> jvmDirs) throws IOException {
    if (env != null) {
      if (env.isBlank()) {
        return running();
      }
      Path jdk = Path.of(env).toAbsolutePath().normalize();
      if (!Files.isExecutable(jdk.resolve("bin").resolve("jlink"))) {
        throw new IOException("LOUPE_RUNTIME_JDK=" + env + " is not a JDK with jlink");
      }
      return jdk;
    }
    Path best = null;
    int bestFeature = 0;
    for (Path dir : jvmDirs) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try (Stream<Path> s = Files.list(dir)) {
        for (Path jdk : s.sorted().toList()) {
          int f = feature(jdk);
          if (f >= AOT_FEATURE && f > bestFeature && !Files.isSymbolicLink(jdk)
              && Files.isExecutable(jdk.resolve("bin").resolve("jlink"))) {
            best = jdk.toAbsolutePath().normalize();
            bestFeature = f;
          }
        }
      }
    }
    return best != null ? best : running();
  }

  /** jlink strips native debug symbols with objcopy (Linux), when it is installed. */
  private static boolean nativeDebugSymbolsStrippable() {
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
      return false;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, "objcopy"))) {
        return true;
      }
    }
    System.out.println("objcopy not found: the runtime keeps its native debug symbols (apt-get install binutils)");
    return false;
  }

  static List<String> jars(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(f -> f.toString().endsWith(".jar")).map(Path::toString).sorted().toList();
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
