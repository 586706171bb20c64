package dev.loupe.installer;

import java.util.List;

/**
 * JVM options in the packaged launcher ({@code Loupe.cfg}), besides JavaFX's module access.
 * {@code $APPDIR} is the installed {@code lib/app} directory. Constants only.
 */
public final class LauncherOptions {
  private LauncherOptions() {}

  /** Maps the class-data-sharing archive made at install time; a missing or stale one is ignored silently. */
  public static final List<String> CDS = List.of("-XX:SharedArchiveFile=$APPDIR/loupe.jsa", "-Xshare:auto");

  /**
   * Heap and GC, chosen by {@code installer/bench-jvm-options.sh} (docs/PERFORMANCE.md, "Packaged
   * launcher"): G1 as on any desktop-sized machine (short pauses for the window; stated, because the JVM
   * picks the serial collector on small machines), deduplicated strings (flows repeat header names and
   * values), and a heap handed back to the system when Loupe idles (a periodic collection every 15 s
   * when nothing else collected, and at most 30 % of the heap kept free). The maximum heap stays the
   * JVM's default (a quarter of the memory): the window keeps every flow of a session in memory, so a
   * fixed cap would end long sessions with an OutOfMemoryError.
   */
  public static final List<String> DEFAULT = List.of("-XX:+UseG1GC", "-XX:+UseStringDeduplication",
      "-XX:G1PeriodicGCInterval=15000", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30");

  /** Prints {@link #DEFAULT} on one line (benchmarks run with what the launcher ships: bench/launcher-options.sh). */
  public static void main(String[] args) {
    System.out.println(String.join(" ", DEFAULT));
  }
}
