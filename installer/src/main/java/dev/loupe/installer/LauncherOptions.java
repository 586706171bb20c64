package dev.loupe.installer;

import java.util.ArrayList;
import java.util.List;

/**
 * JVM options in the packaged launcher ({@code Loupe.cfg}), besides JavaFX's module access.
 * {@code $APPDIR} is the installed {@code lib/app} directory. Constants, and which of them a runtime gets.
 */
public final class LauncherOptions {
  private LauncherOptions() {}

  /** Maps the class-data-sharing archive made at install time; a missing or stale one is ignored silently. */
  public static final List<String> CDS = List.of("-XX:SharedArchiveFile=$APPDIR/loupe.jsa", "-Xshare:auto");

  /**
   * Maps the ahead-of-time cache made at build time (a runtime of JDK 25 or newer; {@link AotTraining}):
   * classes loaded and linked, and the training run's method profiles, so the JIT compiles the relay's
   * hot code early. A missing or stale cache costs only the speed-up, silently ({@code -Xlog:aot=off}: the
   * JVM would print its errors on stdout). Adapter caching stays off: JDK 25.0.3 warns on every start
   * that it cannot link a cached adapter.
   */
  public static final List<String> AOT = List.of("-XX:AOTCache=$APPDIR/loupe.aot", "-XX:+UnlockDiagnosticVMOptions",
      "-XX:-AOTAdapterCaching", "-Xlog:aot=off", "-Xlog:aot+codecache=off");

  /**
   * For a runtime of JDK 24 or newer: native code and {@code sun.misc.Unsafe} allowed without the warnings
   * those JDKs print at every start (JEP 472, JEP 498): Netty, BoringSSL, SQLite, brotli and zstd load
   * native libraries from the class path, JavaFX from its module, and JavaFX's Marlin renderer allocates
   * with {@code Unsafe}. JDK 17 does not know {@code --sun-misc-unsafe-memory-access}.
   */
  public static final List<String> JDK24 = List.of("--enable-native-access=ALL-UNNAMED,javafx.graphics",
      "--sun-misc-unsafe-memory-access=allow");

  /**
   * For a runtime of JDK 22 or newer: the JVM gives the C heap's free pages back to the system every
   * 5 s ({@code malloc_trim}; JDK 22 made {@code -XX:TrimNativeHeapInterval} a product option, JDK 17 does not
   * know it). The window's start-up leaves 14-24 MiB free but resident in glibc's malloc arenas (GTK, the
   * renderer, the JIT, the class loaders); the launcher cannot set {@code MALLOC_ARENA_MAX} or
   * {@code MALLOC_TRIM_THRESHOLD_} (a {@code .cfg} holds no environment). docs/PERFORMANCE.md, "The window's
   * idle RSS, second pass".
   */
  public static final List<String> JDK22 = List.of("-XX:TrimNativeHeapInterval=5000");

  /**
   * The modification time the package's jars and runtime image carry (seconds since the epoch): the
   * ahead-of-time cache records them and is refused when they differ, so the build sets them before the
   * training run and {@code loupe-cds.sh} sets them again where the package installs them.
   */
  public static final long AOT_MTIME = 946684800L; // 2000-01-01T00:00:00Z

  /**
   * Heap and GC, chosen by {@code installer/bench-jvm-options.sh} and {@code bench/session-window.sh}
   * (docs/PERFORMANCE.md, "Packaged launcher" and "Sessions with a million flows"): G1 as on any
   * desktop-sized machine (short pauses for the window; stated, because the JVM picks the serial
   * collector on small machines), deduplicated strings (flows repeat header names and values), a
   * heap handed back to the system when Loupe idles (a periodic collection every 15 s when nothing
   * else collected, and at most 30 % of the heap kept free), and a maximum heap of 640 MiB.
   *
   * <h3>Why a fixed cap</h3>
   * Flows leave the heap once the session store has written them (the window keeps the newest
   * thousand and pages the rest from the file: its live set with 200,000 flows was 62 MiB), so the
   * heap no longer grows with the session; without a cap G1 grows it instead of collecting (4 GiB
   * RSS ingesting a million flows on a 24 GiB machine, nearly all garbage). The JVM's options cannot
   * say "a quarter of the memory, at most N" ({@code -XX:MaxRAM} replaces the machine's memory
   * rather than capping it), so the cap is a size: 640 MiB is below the JVM's default quarter on any
   * machine with 2.5 GiB or more. With it the window ingesting a million flows peaked at 813 MiB RSS
   * (927 MiB with 768 MiB, 4 GiB without a cap). What still grows with use: {@code --headless --har} without
   * {@code --session} keeps every flow in memory until it writes the HAR (a few KiB a flow,
   * bodies beyond 256 MiB spilled to disk); for captures of several hundred thousand flows use
   * {@code --session FILE} (then {@code loupe convert}), or raise the cap with
   * {@code _JAVA_OPTIONS=-Xmx4g}, which the JVM reads after the launcher's options.
   */
  public static final List<String> DEFAULT = List.of("-XX:+UseG1GC", "-XX:+UseStringDeduplication",
      "-XX:G1PeriodicGCInterval=15000", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30", "-Xmx640m",
      // Memory under load (issue 19: RSS <= 256 MiB relaying tiny bodies at 64 connections, <= 512 MiB with
      // 1 MiB bodies; docs/PERFORMANCE.md, "Issue 19: warm from the start, and memory"): G1 sized the young
      // generation for the allocation rate (200+ MiB committed for garbage that dies within a request), so
      // it is capped, and G1 may spend more time collecting rather than grow the heap (GCTimeRatio 4, i.e.
      // up to 20 %; a young collection of this live set takes a millisecond or two); one MiB of marking
      // stack per GC thread instead of four; two Netty arenas of each kind instead of one per event loop
      // (each holds whole chunks); a 64 MiB code cache reservation instead of 240 MiB.
      "-XX:MaxNewSize=32m", "-XX:GCTimeRatio=4", "-XX:MarkStackSize=1m", "-Dio.netty.allocator.numDirectArenas=2",
      "-Dio.netty.allocator.numHeapArenas=2", "-XX:ReservedCodeCacheSize=64m");

  /**
   * The memory and GC options the launcher gives a runtime of JDK {@code feature}: {@link #JDK22} from 22,
   * then {@link #DEFAULT} (the class-data, JavaFX and {@link #JDK24} options are not memory options).
   */
  public static List<String> memory(int feature) {
    List<String> options = new ArrayList<>();
    if (feature >= 22) {
      options.addAll(JDK22);
    }
    options.addAll(DEFAULT);
    return List.copyOf(options);
  }

  /**
   * Prints the launcher's options on one line (benchmarks run with what the launcher ships:
   * bench/launcher-options.sh): {@link #DEFAULT}, and with {@code --jdk N} those of a runtime of JDK N
   * ({@link #memory}).
   */
  public static void main(String[] args) {
    List<String> options = args.length == 2 && args[0].equals("--jdk") ? memory(Integer.parseInt(args[1])) : DEFAULT;
    System.out.println(String.join(" ", options));
  }
}
