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

  /** Heap and GC: chosen by measurement (docs/PERFORMANCE.md, "Packaged launcher"). */
  public static final List<String> DEFAULT = List.of();
}
