package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Picking the packaged runtime's JDK, reading the launcher's .cfg for the AOT training launch, the cache's
 * file times.
 */
@Timeout(30)
class AotRuntimeTest {
  private static Path jdk(Path dir, String name, String version, boolean jlink) throws IOException {
    Path home = dir.resolve(name);
    Files.createDirectories(home.resolve("bin"));
    Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"" + version + "\"\n");
    if (jlink) {
      Path tool = home.resolve("bin/jlink");
      Files.writeString(tool, "#!/bin/sh\n");
      Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
    return home;
  }

  @Test
  void theNewestJdk25OrLaterWithJlinkIsPickedElseTheRunningOne(@TempDir Path dir) throws Exception {
    jdk(dir, "java-17-openjdk-amd64", "17.0.15", true);
    jdk(dir, "temurin-25-jre-amd64", "25.0.3", false); // no jlink: a JRE cannot link a runtime
    Path t25 = jdk(dir, "temurin-25-jdk-amd64", "25.0.3", true);
    assertThat(JavaRuntime.runtimeJdk(null, List.of(dir))).isEqualTo(t25);
    Path t26 = jdk(dir, "jdk-26", "26", true);
    assertThat(JavaRuntime.runtimeJdk(null, List.of(dir, dir.resolve("missing")))).isEqualTo(t26);

    Path only17 = dir.resolve("only17");
    jdk(only17, "java-17", "17.0.15", true);
    assertThat(JavaRuntime.runtimeJdk(null, List.of(only17))).isEqualTo(JavaRuntime.running());
  }

  @Test
  void theEnvironmentChoosesFirstAndEmptyMeansTheRunningJdk(@TempDir Path dir) throws Exception {
    Path t25 = jdk(dir, "temurin-25", "25.0.3", true);
    Path j17 = jdk(dir, "jdk-17", "17.0.2", true);
    assertThat(JavaRuntime.runtimeJdk(j17.toString(), List.of(dir))).isEqualTo(j17);
    assertThat(JavaRuntime.runtimeJdk("", List.of(dir))).isEqualTo(JavaRuntime.running());
    assertThat(JavaRuntime.runtimeJdk(null, List.of(dir))).isEqualTo(t25);
    assertThatThrownBy(() -> JavaRuntime.runtimeJdk(dir.resolve("nope").toString(), List.of(dir)))
        .hasMessageContaining("not a JDK with jlink");
  }

  @Test
  void featureReleaseFromTheReleaseFile(@TempDir Path dir) throws Exception {
    assertThat(JavaRuntime.feature(jdk(dir, "a", "25.0.3", false))).isEqualTo(25);
    assertThat(JavaRuntime.feature(jdk(dir, "b", "17", false))).isEqualTo(17);
    assertThat(JavaRuntime.feature(dir.resolve("none"))).isZero();
    assertThat(JavaRuntime.feature(JavaRuntime.running())).isEqualTo(Runtime.version().feature());
  }

  @Test
  void theCfgGivesOptionsClassPathAndMainClassWithAppDirExpanded(@TempDir Path dir) throws Exception {
    Path cfg = dir.resolve("Loupe.cfg");
    Files.write(cfg, List.of("[Application]", "app.name=Loupe", "app.classpath=$APPDIR/loupe-app.jar",
        "app.classpath=$APPDIR/netty.jar", "app.mainjar=$APPDIR/loupe-app.jar", "app.mainclass=dev.loupe.app.Main", "",
        "[JavaOptions]", "java-options=-Djpackage.app-version=0.1.0", "java-options=-XX:AOTCache=$APPDIR/loupe.aot",
        "java-options=-Xmx640m"));
    AotTraining.Cfg c = AotTraining.Cfg.read(cfg, Path.of("/opt/loupe/lib/app"));
    assertThat(c.classPath()).containsExactly("/opt/loupe/lib/app/loupe-app.jar", "/opt/loupe/lib/app/netty.jar");
    assertThat(c.mainClass()).isEqualTo("dev.loupe.app.Main");
    assertThat(c.options()).containsExactly("-Djpackage.app-version=0.1.0", "-XX:AOTCache=/opt/loupe/lib/app/loupe.aot",
        "-Xmx640m");
    Files.write(cfg, List.of("[Application]", "app.name=Loupe"));
    assertThatThrownBy(() -> AotTraining.Cfg.read(cfg, dir)).hasMessageContaining("no main class");
  }

  @Test
  void theInstallScriptRestoresTheTimeTheBuildGaveTheFiles() throws Exception {
    String script = Files.readString(Path.of("packaging/linux/loupe-cds.sh"));
    assertThat(script).contains("AOT_MTIME=" + LauncherOptions.AOT_MTIME + "\n");
    assertThat(LauncherOptions.AOT).contains("-XX:AOTCache=$APPDIR/loupe.aot");
  }

  @Test
  void fixTimesSetsTheJarsAndTheModulesImage(@TempDir Path image) throws Exception {
    Files.createDirectories(image.resolve("lib/app"));
    Files.createDirectories(image.resolve("lib/runtime/lib"));
    Files.writeString(image.resolve("lib/app/a.jar"), "x");
    Files.writeString(image.resolve("lib/app/Loupe.cfg"), "x");
    Files.writeString(image.resolve("lib/runtime/lib/modules"), "x");
    AotTraining.fixTimes(image);
    for (String f : List.of("lib/app/a.jar", "lib/runtime/lib/modules")) {
      assertThat(Files.getLastModifiedTime(image.resolve(f)).toMillis()).isEqualTo(LauncherOptions.AOT_MTIME * 1000);
    }
    assertThat(Files.getLastModifiedTime(image.resolve("lib/app/Loupe.cfg")).toMillis())
        .isNotEqualTo(LauncherOptions.AOT_MTIME * 1000);
  }
}
