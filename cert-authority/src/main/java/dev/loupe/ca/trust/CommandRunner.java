package dev.loupe.ca.trust;

import java.io.IOException;
import java.util.List;

/**
 * Runs external tools ({@code certutil}, {@code update-ca-certificates}, {@code security}, ...).
 * The seam that lets the command lines of other operating systems be asserted in tests, where the
 * tools cannot run; {@link ProcessCommandRunner} is the real one.
 */
public interface CommandRunner {
  /**
   * Runs {@code argv} to completion, with standard input closed, and returns what it printed.
   *
   * @throws IOException when the program cannot be started or does not finish in time
   */
  CommandResult run(List<String> argv) throws IOException;

  /** True when {@code program} (a bare name such as {@code "certutil"}) can be run. */
  boolean isAvailable(String program);
}
