package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Merging the class lists of the window and headless training launches (JDK 17's list format). */
@Timeout(30)
class CdsTrainingTest {
  private static final String LAMBDA =
      "@lambda-proxy dev/loupe/app/Main run ()Ljava/lang/Runnable; ()V REF_invokeStatic dev/loupe/app/Main x ()V ()V";

  @Test
  void eachClassOnceInFirstSeenOrderLambdaLinesOnceCustomLoaderLinesDropped(@TempDir Path dir) throws Exception {
    Path window = dir.resolve("window.classlist");
    Path headless = dir.resolve("headless.classlist");
    Files.write(window, List.of("# NOTE: Do not modify this file.", "java/lang/Object", "javafx/scene/Scene",
        "dev/loupe/app/Main", LAMBDA));
    Files.write(headless, List.of("# NOTE: Do not modify this file.", "java/lang/Object", "dev/loupe/app/Main",
        "dev/loupe/app/HeadlessSession", "", LAMBDA,
        "@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.DirectMethodHandle$Holder invokeStatic LL_L",
        "some/plugin/Thing id: 3 super: 0 source: /tmp/plugin.jar"));
    assertThat(CdsTraining.merge(List.of(window, headless))).containsExactly(
        "# NOTE: Do not modify this file.", "java/lang/Object", "javafx/scene/Scene", "dev/loupe/app/Main", LAMBDA,
        "dev/loupe/app/HeadlessSession",
        "@lambda-form-invoker [LF_RESOLVE] java.lang.invoke.DirectMethodHandle$Holder invokeStatic LL_L");
  }
}
