package dev.loupe.app.sysproxy;

import java.util.List;

/**
 * Runs an external command to completion. The seam between the backends (which decide what to
 * run) and the OS (which runs it): production uses {@link ProcessCommandRunner}, tests a recording
 * runner that returns scripted outputs.
 */
public interface CommandRunner {

  /** What a finished command printed and returned. */
  record Output(int exitCode, String stdout, String stderr) {
    /** stderr, else stdout, trimmed: what to show when the command failed. */
    public String errorText() {
      String e = stderr.strip();
      return e.isEmpty() ? stdout.strip() : e;
    }
  }

  /**
   * Runs {@code argv} (program first, looked up on the PATH) and waits for it.
   *
   * @throws SystemProxyException when the program cannot be started or does not finish in time
   */
  Output run(List<String> argv) throws SystemProxyException;

  /** Runs {@code argv} and fails, with the command and its error output verbatim, unless it exits 0. */
  default Output check(List<String> argv) throws SystemProxyException {
    Output out = run(argv);
    if (out.exitCode() != 0) {
      throw new SystemProxyException(describe(argv) + " failed (exit " + out.exitCode() + ")"
          + (out.errorText().isEmpty() ? "" : ": " + out.errorText()));
    }
    return out;
  }

  /** The command line as a person would type it (arguments with spaces or quotes single-quoted). */
  static String describe(List<String> argv) {
    StringBuilder sb = new StringBuilder();
    for (String a : argv) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      if (a.isEmpty() || a.chars().anyMatch(c -> Character.isWhitespace(c) || c == '\'' || c == '"')) {
        sb.append('\'').append(a.replace("'", "'\\''")).append('\'');
      } else {
        sb.append(a);
      }
    }
    return sb.toString();
  }
}
