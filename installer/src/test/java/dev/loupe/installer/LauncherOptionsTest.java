package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Which memory options a runtime gets: JDK 17 does not know the native-heap trimming, JDK 22 and newer do. */
@Timeout(30)
class LauncherOptionsTest {
  @Test
  void nativeHeapTrimmingOnlyForJdk22AndNewer() {
    assertThat(LauncherOptions.memory(17)).isEqualTo(LauncherOptions.DEFAULT);
    assertThat(LauncherOptions.memory(21)).doesNotContain("-XX:TrimNativeHeapInterval=5000");
    assertThat(LauncherOptions.memory(22)).startsWith("-XX:TrimNativeHeapInterval=5000")
        .containsSubsequence(LauncherOptions.DEFAULT);
    assertThat(LauncherOptions.memory(25)).isEqualTo(LauncherOptions.memory(22))
        .doesNotContainAnyElementsOf(LauncherOptions.JDK24);
  }

  @Test
  void mainPrintsTheOptionsOfTheJdkAskedFor() {
    assertThat(printed()).isEqualTo(String.join(" ", LauncherOptions.DEFAULT));
    assertThat(printed("--jdk", "17")).isEqualTo(String.join(" ", LauncherOptions.DEFAULT));
    assertThat(printed("--jdk", "25")).isEqualTo(String.join(" ", LauncherOptions.memory(25)))
        .contains("-XX:TrimNativeHeapInterval=5000 -XX:+UseG1GC");
  }

  @Test
  void theJvmRunningTheTestsAcceptsItsMemoryOptions() throws Exception {
    // a misspelt or unknown -XX option stops the launcher before the window opens: ask this JVM (17 in the build,
    // 25 with -Djvm=...) to start with the options the launcher gives its version
    int feature = Runtime.version().feature();
    java.util.List<String> cmd = new java.util.ArrayList<>();
    cmd.add(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(LauncherOptions.memory(feature));
    cmd.add("-XX:+PrintFlagsFinal"); // the young generation's cap, which the idle and headless RSS targets rest on
    cmd.add("-version");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    assertThat(out).containsPattern("MaxNewSize +(:)?= 33554432 ");
  }

  private static String printed(String... args) {
    PrintStream out = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      LauncherOptions.main(args);
    } finally {
      System.setOut(out);
    }
    return bytes.toString(StandardCharsets.UTF_8).strip();
  }
}
