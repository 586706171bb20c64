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
   * Heap and GC, chosen by {@code installer/bench-jvm-options.sh} and {@code bench/session-window.sh}
   * (docs/PERFORMANCE.md, "Packaged launcher" and "Sessions with a million flows"): G1 as on any
   * desktop-sized machine (short pauses for the window; stated, because the JVM picks the serial
   * collector on small machines), deduplicated strings (flows repeat header names and values), a
   * heap handed back to the system when Loupe idles (a periodic collection every 15 s when nothing
   * else collected, and at most 30 % of the heap kept free), and a maximum heap of 768 MiB.
   *
   * <h3>Why a fixed cap</h3>
   * Flows leave the heap once the session store has written them (the window keeps the newest
   * thousand and pages the rest from the file: its live set with 200,000 flows was 62 MiB), so the
   * heap no longer grows with the session; without a cap G1 grows it instead of collecting (4 GiB
   * RSS ingesting a million flows on a 24 GiB machine, nearly all garbage). The JVM's options cannot
   * say "a quarter of the memory, at most N" ({@code -XX:MaxRAM} replaces the machine's memory
   * rather than capping it), so the cap is a size: 768 MiB is below the JVM's default quarter on any
   * machine with 3 GiB or more. What still grows with use: {@code --headless --har} without
   * {@code --session} keeps every flow in memory until it writes the HAR (a few KiB a flow,
   * bodies beyond 256 MiB spilled to disk); for captures of several hundred thousand flows use
   * {@code --session FILE} (then {@code loupe convert}), or raise the cap with
   * {@code _JAVA_OPTIONS=-Xmx4g}, which the JVM reads after the launcher's options.
   */
  public static final List<String> DEFAULT = List.of("-XX:+UseG1GC", "-XX:+UseStringDeduplication",
      "-XX:G1PeriodicGCInterval=15000", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30", "-Xmx768m");

  /** Prints {@link #DEFAULT} on one line (benchmarks run with what the launcher ships: bench/launcher-options.sh). */
  public static void main(String[] args) {
    System.out.println(String.join(" ", DEFAULT));
  }
}
