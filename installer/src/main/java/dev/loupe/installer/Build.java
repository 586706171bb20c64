package dev.loupe.installer;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

/**
 * {@code installer/build.sh}'s worker: makes everything in {@code installer/target/} from what the Maven
 * build left there ({@code app-jars/}, {@code javafx/<platform>/}, {@code extra-jars/}) and
 * {@code app/target/loupe.jar}.
 *
 * <ol>
 *   <li>icons from {@code icons/loupe.svg} ({@link Icons}); the man page ({@link ManPage});
 *   <li>{@code loupe-<platform>.jar} for all five platforms ({@link PlatformJars});
 *   <li>for the running platform: the app's jars without other platforms' natives, JavaFX as jmods, a
 *       jlink'ed runtime ({@link JavaRuntime}), the app image, on Linux the class list for
 *       class-data sharing ({@link CdsTraining}), then the packages ({@link JpackageArgs}).
 * </ol>
 *
 * <p>The runtime is linked from the JDK {@link JavaRuntime#runtimeJdk} picks ({@code --runtime-jdk DIR} or
 * {@code LOUPE_RUNTIME_JDK}; a JDK 25+ when one is installed, else the JDK running the build). With JDK 25
 * or newer the Linux image carries an ahead-of-time cache made by a training launch here ({@link
 * AotTraining}); with an older one, the class list for a CDS archive made at install time.
 *
 * <p>Usage: {@code Build INSTALLER_DIR [--jars-only] [--no-platform-jars] [--types T,...] [--no-cds]
 * [--reuse-image] [--java-options "..."] [--runtime-jdk DIR]}.
 * Single-threaded.
 */
public final class Build {
  private final Path installer;
  private final Path target;
  private final Platform platform = Platform.current();

  private static final long START = System.nanoTime();

  /** Prints how long the build has run, after {@code what}. */
  static void step(String what) {
    System.out.printf("== %s (%.1f s)%n", what, (System.nanoTime() - START) / 1e9);
  }

  private Build(Path installer) {
    this.installer = installer.toAbsolutePath().normalize();
    this.target = this.installer.resolve("target");
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: Build INSTALLER_DIR [--jars-only] [--no-platform-jars] [--types app-image,deb,...]"
          + " [--no-cds] [--reuse-image] [--java-options 'OPTIONS'] [--runtime-jdk DIR]");
      System.exit(2);
    }
    Build b = new Build(Path.of(args[0]));
    List<String> types = b.platform.os().packageTypes();
    boolean jarsOnly = false;
    boolean reuseImage = false;
    boolean platformJars = true;
    boolean cds = b.platform.os() == Platform.Os.LINUX;
    List<String> extraOptions = new ArrayList<>(LauncherOptions.DEFAULT);
    String runtimeJdk = System.getenv("LOUPE_RUNTIME_JDK");
    for (int i = 1; i < args.length; i++) {
      switch (args[i]) {
        case "--jars-only" -> jarsOnly = true;
        case "--no-cds" -> cds = false;
        case "--reuse-image" -> reuseImage = true;
        case "--no-platform-jars" -> platformJars = false;
        case "--types" -> types = List.of(args[++i].split(","));
        case "--java-options" -> extraOptions = args[++i].isBlank() ? List.of() : List.of(args[i].split(" +"));
        case "--runtime-jdk" -> runtimeJdk = args[++i];
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (reuseImage) { // iterating on the packages' scripts: the app image, runtime and jars stay
      b.installers(types, b.reusedArgs(cds), cds);
      return;
    }
    b.icons();
    b.manPage();
    step("icons and man page");
    if (platformJars) { // CI skips them here: PlatformJarsIT builds and checks all five in mvn verify
      b.platformJars();
      step("platform jars");
    }
    if (!jarsOnly) {
      Path jdk = JavaRuntime.runtimeJdk(runtimeJdk, List.of(Path.of("/usr/lib/jvm")));
      System.out.println("runtime JDK: " + jdk + " (" + JavaRuntime.feature(jdk) + ")");
      b.packages(types, cds, extraOptions, jdk);
    }
    System.out.printf("installer/build: done in %.0f s; see %s%n", (System.nanoTime() - START) / 1e9, b.target);
  }

  private Path appJars() throws IOException {
    Path dir = target.resolve("app-jars");
    if (!Files.isDirectory(dir)) {
      throw new IOException(dir + " is missing: run mvn -B -pl installer -am package first (build.sh does)");
    }
    return dir;
  }

  /** The Maven version, from the file name of {@code app-jars/loupe-app-VERSION.jar}. */
  private String mavenVersion() throws IOException {
    return mainJar().replaceFirst("^loupe-app-", "").replaceFirst("\\.jar$", "");
  }

  private String mainJar() throws IOException {
    return JavaRuntime.jars(appJars()).stream().map(p -> Path.of(p).getFileName().toString())
        .filter(n -> n.startsWith("loupe-app-")).findFirst()
        .orElseThrow(() -> new IOException("no loupe-app jar in " + target.resolve("app-jars")));
  }

  private void icons() throws IOException, InterruptedException {
    Icons.generate(installer.resolve("icons/loupe.svg"), target.resolve("icons"));
  }

  private void manPage() throws Exception {
    Path page = target.resolve("loupe.1");
    Files.writeString(page, ManPage.render(ManPage.loupeSpec(), ManPage.buildDate()), StandardCharsets.UTF_8);
    try (OutputStream gz = new GZIPOutputStream(Files.newOutputStream(target.resolve("loupe.1.gz")))) {
      gz.write(Files.readAllBytes(page));
    }
  }

  private void platformJars() throws IOException {
    Path fat = installer.resolveSibling("app").resolve("target/loupe.jar");
    if (!Files.isRegularFile(fat)) {
      throw new IOException(fat + " is missing: run mvn -B -pl installer -am package first (build.sh does)");
    }
    List<Path> extra = JavaRuntime.jars(target.resolve("extra-jars")).stream().map(Path::of).toList();
    java.util.Set<String> javafxEntries = PlatformJars.javafxEntries(target.resolve("javafx"));
    for (Platform p : Platform.values()) {
      Path out = target.resolve(PlatformJars.fileName(p));
      PlatformJars.runnableJar(fat, target.resolve("javafx"), javafxEntries, extra, p, out);
      System.out.printf("%s: %.1f MB%n", out, Files.size(out) / 1e6);
    }
  }

  private void packages(List<String> types, boolean cds, List<String> extraOptions, Path jdk) throws Exception {
    boolean aot = cds && JavaRuntime.feature(jdk) >= JavaRuntime.AOT_FEATURE;
    Path work = target.resolve("work").resolve(platform.id());
    JavaRuntime.deleteTree(work);
    Path input = work.resolve("input");
    Files.createDirectories(input);
    for (String jar : JavaRuntime.jars(appJars())) {
      Path from = Path.of(jar);
      NativeRules rules = new NativeRules(platform);
      if (!rules.isOtherPlatformsJar(from.getFileName().toString())) {
        PlatformJars.filteredCopy(from, platform, input.resolve(from.getFileName()));
      }
    }
    for (String jar : JavaRuntime.jars(target.resolve("extra-jars"))) {
      Path from = Path.of(jar);
      if (!new NativeRules(platform).isOtherPlatformsJar(from.getFileName().toString())) {
        PlatformJars.filteredCopy(from, platform, input.resolve(from.getFileName()));
      }
    }
    boolean linux = platform.os() == Platform.Os.LINUX;
    if (linux) {
      Files.copy(target.resolve("loupe.1.gz"), input.resolve("loupe.1.gz"));
      copyLinuxScripts(input);
    }

    String version = mavenVersion();
    Path javafxJars = target.resolve("javafx").resolve(platform.id());
    Path jmods = work.resolve("jmods");
    JavaRuntime.javafxJmods(PlatformJars.javafxJars(target.resolve("javafx"), platform), platform,
        JpackageArgs.numericVersion(version), work.resolve("jmod-work"), jmods);
    List<String> modules = JavaRuntime.modules(input, javafxJars);
    System.out.println("runtime modules: " + modules);
    Path runtime = work.resolve("runtime");
    JavaRuntime.link(modules, jmods, runtime, !cds, jdk);
    step("runtime");

    List<String> javaOptions = new ArrayList<>(JavaRuntime.javafxAccessOptions(input, javafxJars));
    if (JavaRuntime.feature(jdk) >= 24) {
      javaOptions.addAll(LauncherOptions.JDK24);
    }
    if (JavaRuntime.feature(jdk) >= 22) {
      javaOptions.addAll(LauncherOptions.JDK22);
    }
    if (aot) {
      javaOptions.addAll(LauncherOptions.AOT);
    } else if (cds) {
      javaOptions.addAll(LauncherOptions.CDS);
    }
    javaOptions.addAll(extraOptions);
    Path resources = linux ? linuxResources(work) : null;
    List<Path> associations = associations(work);
    Path dest = target.resolve("app-image");
    JavaRuntime.deleteTree(dest);
    JpackageArgs args = new JpackageArgs(platform, JpackageArgs.numericVersion(version), input, mainJar(), runtime,
        target.resolve("icons"), javaOptions, associations, resources, dest);
    if (platform.os() == Platform.Os.WINDOWS) {
      Files.writeString(input.resolveSibling("loupe-cli.properties"), args.windowsCliLauncher());
    }
    Tools.jdk("jpackage", args.appImage());
    step("app image");
    Path image = args.appImageDir();
    if (aot) {
      AotTraining.record(image, args.name(), work.resolve("training"));
      step("ahead-of-time cache");
    } else if (cds) {
      Path appDir = image.resolve("lib/app");
      CdsTraining.record(image.resolve("bin").resolve(args.name()), work.resolve("training"),
          appDir.resolve("loupe.classlist"));
      step("class list for class-data sharing");
    }
    installers(types, args, cds);
  }

  /** The arguments of the last build's app image, for {@code --reuse-image}. */
  private JpackageArgs reusedArgs(boolean cds) throws IOException {
    Path work = target.resolve("work").resolve(platform.id());
    if (!Files.isDirectory(target.resolve("app-image"))) {
      throw new IOException("--reuse-image: no app image in " + target + "; build it first");
    }
    return new JpackageArgs(platform, JpackageArgs.numericVersion(mavenVersion()), work.resolve("input"), mainJar(),
        work.resolve("runtime"), target.resolve("icons"), List.of(), associations(work),
        platform.os() == Platform.Os.LINUX ? linuxResources(work) : null, target.resolve("app-image"));
  }

  /** The packages of {@code types} from the app image of {@code args}, then (Linux) the image's own CDS archive. */
  private void installers(List<String> types, JpackageArgs args, boolean cds) throws Exception {
    Path image = args.appImageDir();
    Path runtime = args.runtime();
    Path input = args.input();
    List<String> javaOptions = args.javaOptions();
    List<Path> associations = args.fileAssociations();
    Path resources = args.resourceDir();
    Files.deleteIfExists(image.resolve("lib/app/loupe.jsa")); // made where the files finally are, not packaged
    if (platform.os() == Platform.Os.LINUX) {
      copyLinuxScripts(image.resolve("lib/app")); // --reuse-image: the scripts as they are now
    }
    for (String type : types) {
      if (!type.equals("app-image")) {
        JpackageArgs pkg = new JpackageArgs(platform, args.version(), input, args.mainJar(), runtime,
            args.iconDir(), javaOptions, associations, resources, target);
        Tools.jdk("jpackage", pkg.installer(type, image));
        step(type);
      }
    }
    if (cds) { // the app image's own archive, for running it where it is (after the packages, which make theirs)
      Tools.run(List.of(image.resolve("lib/app/loupe-cds.sh").toString()), 5, TimeUnit.MINUTES, null);
    }
    try (var s = Files.list(target)) {
      s.filter(f -> f.toString().matches(".*\\.(deb|rpm|dmg|msi)$"))
          .forEach(f -> System.out.printf("%s: %.1f MB%n", f, size(f) / 1e6));
    }
  }

  /** The scripts the maintainer scripts call ({@code packaging/linux/*.sh}) into {@code dir}, executable. */
  private void copyLinuxScripts(Path dir) throws IOException {
    for (String script : List.of("loupe-integration.sh", "loupe-cds.sh")) {
      Path to = dir.resolve(script);
      Files.copy(installer.resolve("packaging/linux").resolve(script), to,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  /**
   * jpackage's Linux maintainer scripts, RPM spec and desktop entry with Loupe's additions
   * ({@code packaging/linux}); the desktop entry's {@code %F} hands opened files to Loupe.
   */
  private Path linuxResources(Path work) throws IOException {
    Path dir = work.resolve("resources");
    Files.createDirectories(dir);
    String root = "/opt/" + JpackageArgs.PACKAGE;
    for (String name : List.of("postinst", "prerm", JpackageArgs.PACKAGE + ".spec",
        "Loupe.desktop")) { // jpackage looks the desktop entry up by the application name
      String text = Files.readString(installer.resolve("packaging/linux").resolve(name)).replace("@ROOT@", root);
      Files.writeString(dir.resolve(name), text);
    }
    return dir;
  }

  /**
   * File associations: HAR files and Loupe sessions open in Loupe ({@code loupe FILE}). The MIME types
   * have no regex characters: jpackage's uninstall script matches them as awk regular expressions.
   */
  private static List<Path> associations(Path work) throws IOException {
    Path har = work.resolve("har.properties");
    Files.writeString(har, JpackageArgs.association("har", "application/x-har", "HTTP Archive (HAR)"));
    Path session = work.resolve("loupe-session.properties");
    Files.writeString(session, JpackageArgs.association("loupe", "application/x-loupe-session", "Loupe session"));
    return List.of(har, session);
  }

  private static long size(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      return -1;
    }
  }
}
