package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What a finished command printed and how it exited.
 *
 * @param argv the command line that ran
 * @param exitCode the process's exit status
 * @param stdout everything it wrote to standard output (platform charset)
 * @param stderr everything it wrote to standard error
 */
public record CommandResult(List<String> argv, int exitCode, String stdout, String stderr) {
  /** Checks for nulls and copies {@code argv}. */
  public CommandResult {
    argv = List.copyOf(requireNonNull(argv, "argv"));
    requireNonNull(stdout, "stdout");
    requireNonNull(stderr, "stderr");
  }

  /** True when the command exited with status 0. */
  public boolean succeeded() {
    return exitCode == 0;
  }

  /**
   * The tool's own words for the user: standard error and standard output (in that order, each
   * trimmed, empty ones left out), verbatim.
   */
  public String output() {
    String err = stderr.strip();
    String out = stdout.strip();
    if (err.isEmpty()) {
      return out;
    }
    return out.isEmpty() ? err : err + "\n" + out;
  }

  /** The command line and the tool's output, for failure messages: "{@code argv}: output". */
  public String describeFailure() {
    String output = output();
    return String.join(" ", argv) + " exited with " + exitCode + (output.isEmpty() ? "" : ":\n" + output);
  }
}
