package dev.loupe.app;

import dev.loupe.engine.api.util.NativeDowncall;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * On Linux without a GPU, the window draws with JavaFX's own software renderer and GTK loads no OpenGL.
 *
 * <p>Without a DRM device ({@code /dev/dri}: a virtual machine without 3D, a remote or virtual display such
 * as Xvfb, a container) OpenGL is Mesa's software rasterizer, llvmpipe: JavaFX's ES2 pipeline draws through
 * it, and GTK probes OpenGL when it opens the display, both loading Mesa and LLVM (~50 MiB resident of the
 * window's 262-272 MiB at idle). JavaFX's software pipeline ({@code prism.order=sw}) draws without them, and
 * {@code GDK_GL=disable} stops GTK's probe; together the idle window is ~60 MiB smaller (203-206 MiB)
 * (docs/PERFORMANCE.md, "The window's idle RSS, second pass"). The environment variable must be set in
 * this process before GTK starts; a JVM can only do that through the foreign function API (JDK 22+), so
 * on older runtimes nothing changes. Whoever chose a pipeline ({@code -Dprism.order}) or set
 * {@code GDK_GL} keeps their choice.
 *
 * <p>The software pipeline keeps JavaFX's region cache (backgrounds and borders drawn once, then copied) in a
 * 2048×1024 texture that is an {@code int[]} on the heap: 8 MiB of the idle window's ~40 MiB live set. It is
 * turned off ({@code prism.disableRegionCaching}) unless the user set it: regions are drawn each time they are
 * dirty instead (docs/PERFORMANCE.md, "The window's idle RSS, third pass").
 */
final class SoftwareRendering {
  private SoftwareRendering() {}

  /** Whether to switch: Linux, no DRM device under {@code dri}, and neither choice made by the user. */
  static boolean wanted(String osName, Map<String, String> env, String prismOrder, Path dri) {
    if (!osName.toLowerCase(Locale.ROOT).contains("linux") || prismOrder != null || env.containsKey("GDK_GL")) {
      return false;
    }
    try (Stream<Path> devices = Files.list(dri)) {
      return devices.map(p -> p.getFileName().toString()).noneMatch(n -> n.startsWith("card") || n.startsWith("render"));
    } catch (IOException e) { // no /dev/dri at all
      return true;
    }
  }

  /** Switches this process to software rendering when {@link #wanted}; returns whether it did. */
  static boolean applyIfWanted() {
    if (!wanted(System.getProperty("os.name", ""), System.getenv(), System.getProperty("prism.order"),
        Path.of("/dev/dri"))) {
      return false;
    }
    if (!setenv("GDK_GL", "disable")) {
      return false; // JavaFX's software pipeline alone saves nothing: GTK would still load Mesa
    }
    useSoftwarePipeline(System.getProperties());
    return true;
  }

  /** JavaFX's software pipeline, and no region cache unless the user chose ({@code -Dprism.disableRegionCaching}). */
  static void useSoftwarePipeline(java.util.Properties p) {
    p.setProperty("prism.order", "sw");
    if (p.getProperty("prism.disableRegionCaching") == null) {
      p.setProperty("prism.disableRegionCaching", "true");
    }
  }

  /**
   * {@code setenv(name, value, 1)} in this process through {@code java.lang.foreign} (JDK 22+, by reflection:
   * Loupe compiles for 17); false when the runtime has no such API or the call fails. Called before GTK
   * starts, while no other thread reads the environment.
   */
  static boolean setenv(String name, String value) {
    MethodHandle setenv = NativeDowncall.link("setenv", "JAVA_INT", "ADDRESS", "ADDRESS", "JAVA_INT");
    if (setenv == null) {
      return false;
    }
    try {
      Class<?> arenaClass = Class.forName("java.lang.foreign.Arena");
      Class<?> allocatorClass = Class.forName("java.lang.foreign.SegmentAllocator");
      Object arena = arenaClass.getMethod("ofConfined").invoke(null);
      try {
        Object n = allocatorClass.getMethod("allocateFrom", String.class).invoke(arena, name);
        Object v = allocatorClass.getMethod("allocateFrom", String.class).invoke(arena, value);
        return (int) setenv.invokeWithArguments(n, v, 1) == 0; // setenv copies both strings
      } finally {
        arenaClass.getMethod("close").invoke(arena);
      }
    } catch (Throwable e) { // JDK 17-21 (no such API, or a preview one), native access refused
      return false;
    }
  }
}
