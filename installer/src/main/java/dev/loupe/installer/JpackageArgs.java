package dev.loupe.installer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The jpackage command lines for every platform and package type, in one place: the app image (the
 * installed tree: launcher, {@code lib/app} jars, the jlink'ed runtime) and the packages made from it
 * ({@code .deb}/{@code .rpm} on Linux, {@code .dmg} on macOS, {@code .msi} on Windows). Only Linux's
 * are run on the project's machines; macOS's and Windows's are checked by {@code JpackageArgsTest}
 * and run by the CI workflow on hosted runners.
 *
 * <p>Immutable; {@link #appImage()} and {@link #installer(String, Path)} build fresh lists.
 *
 * @param platform the target (jpackage cannot cross-build: it must be the running one)
 * @param version numeric version ({@code 0.1.0}; jpackage refuses {@code -SNAPSHOT})
 * @param input the directory of jars (and files) that becomes {@code lib/app}
 * @param mainJar the jar (in {@code input}) holding the main class
 * @param runtime the jlink'ed runtime image
 * @param iconDir the generated icons ({@link Icons})
 * @param javaOptions JVM options in the launcher ({@code $APPDIR} is the installed {@code lib/app})
 * @param fileAssociations jpackage file-association properties files ({@code .har}, {@code .loupe})
 * @param resourceDir jpackage resource overrides (Linux maintainer scripts and spec), or null
 * @param dest where jpackage writes
 */
public record JpackageArgs(Platform platform, String version, Path input, String mainJar, Path runtime,
    Path iconDir, List<String> javaOptions, List<Path> fileAssociations, Path resourceDir, Path dest) {

  public static final String MAIN_CLASS = "dev.loupe.app.Main";
  public static final String VENDOR = "The Loupe contributors";
  public static final String DESCRIPTION = "HTTP(S) debugging proxy: see, stop, edit and replay every request";
  /** The Linux package name, install directory ({@code /opt/loupe}) and command on the PATH. */
  public static final String PACKAGE = "loupe";
  /** Keeps Windows upgrades replacing the installed version instead of installing beside it. Never change. */
  public static final String WIN_UPGRADE_UUID = "6f1c2f57-4c8e-4a9e-9d0b-7e3f0b1a4c21";
  public static final String MAC_IDENTIFIER = "dev.loupe.Loupe";

  /** The application (and launcher) name: {@code Loupe}, so menus, the Dock and the Start menu say Loupe. */
  public String name() {
    return "Loupe";
  }

  /** The app image's root directory that {@link #appImage()} creates under {@link #dest()}. */
  public Path appImageDir() {
    return dest.resolve(platform.os() == Platform.Os.MAC ? name() + ".app" : name());
  }

  /** {@code jpackage --type app-image ...}. */
  public List<String> appImage() {
    List<String> a = new ArrayList<>();
    add(a, "--type", "app-image");
    common(a);
    add(a, "--input", input.toString());
    add(a, "--main-jar", mainJar);
    add(a, "--main-class", MAIN_CLASS);
    add(a, "--runtime-image", runtime.toString());
    add(a, "--icon", icon().toString());
    for (String option : javaOptions) {
      add(a, "--java-options", option);
    }
    switch (platform.os()) {
      case MAC -> {
        add(a, "--mac-package-identifier", MAC_IDENTIFIER);
        add(a, "--mac-package-name", name());
      }
      case WINDOWS -> {
        // The window's launcher has no console; loupe-cli.exe prints (headless, --help, ca path).
        add(a, "--add-launcher", "loupe-cli=" + input.resolveSibling("loupe-cli.properties"));
      }
      case LINUX -> { }
    }
    return a;
  }

  /** The properties of Windows' second launcher (console), written next to {@link #input()}. */
  public String windowsCliLauncher() {
    return "win-console=true\ndescription=Loupe on the command line (--headless, --help, ca path)\n";
  }

  /** {@code jpackage --type TYPE --app-image IMAGE ...} for one of {@link Platform.Os#packageTypes()}. */
  public List<String> installer(String type, Path appImage) {
    if (type.equals("app-image") || !platform.os().packageTypes().contains(type)) {
      throw new IllegalArgumentException(type + " is not a package type on " + platform.os());
    }
    List<String> a = new ArrayList<>();
    add(a, "--type", type);
    common(a);
    add(a, "--app-image", appImage.toString());
    for (Path association : fileAssociations) {
      add(a, "--file-associations", association.toString());
    }
    if (resourceDir != null) {
      add(a, "--resource-dir", resourceDir.toString());
    }
    switch (platform.os()) {
      case LINUX -> {
        add(a, "--icon", icon().toString());
        add(a, "--linux-package-name", PACKAGE);
        add(a, "--install-dir", "/opt");
        add(a, "--linux-shortcut");
        add(a, "--linux-menu-group", "Development;Network;");
        add(a, "--linux-app-category", type.equals("deb") ? "net" : "Applications/Internet");
        // JavaFX loads GTK itself (dlopen), so it is missing from the computed dependencies.
        add(a, "--linux-package-deps", type.equals("deb") ? "libgtk-3-0, xdg-utils" : "gtk3, xdg-utils");
      }
      case MAC -> {
        add(a, "--mac-package-identifier", MAC_IDENTIFIER);
        add(a, "--mac-package-name", name());
      }
      case WINDOWS -> {
        add(a, "--win-menu");
        add(a, "--win-menu-group", name());
        add(a, "--win-shortcut");
        add(a, "--win-dir-chooser");
        add(a, "--win-upgrade-uuid", WIN_UPGRADE_UUID);
      }
    }
    return a;
  }

  /** The icon file jpackage wants on this OS. */
  public Path icon() {
    return switch (platform.os()) {
      case LINUX -> iconDir.resolve(Icons.pngName(256));
      case MAC -> iconDir.resolve("loupe.icns");
      case WINDOWS -> iconDir.resolve("loupe.ico");
    };
  }

  private void common(List<String> a) {
    add(a, "--name", name());
    add(a, "--app-version", version);
    add(a, "--vendor", VENDOR);
    add(a, "--description", DESCRIPTION);
    add(a, "--copyright", "Copyright the Loupe contributors");
    add(a, "--dest", dest.toString());
  }

  private static void add(List<String> a, String... args) {
    a.addAll(List.of(args));
  }

  /** jpackage's numeric version for a Maven version: {@code 0.1.0-SNAPSHOT} becomes {@code 0.1.0}. */
  public static String numericVersion(String mavenVersion) {
    String v = mavenVersion.replaceFirst("[-+].*$", "");
    if (!v.matches("\\d+(\\.\\d+){0,2}")) {
      throw new IllegalArgumentException("cannot make a package version of '" + mavenVersion + "'");
    }
    return v;
  }

  /** The contents of one file-association properties file. */
  public static String association(String extension, String mimeType, String description) {
    return "extension=" + extension + "\nmime-type=" + mimeType + "\ndescription=" + description + "\n";
  }
}
