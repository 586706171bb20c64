package dev.loupe.app;

/**
 * Entry point of {@code loupe.jar}. Parses the command line (see {@link LoupeCommand}) and exits
 * with its status: 0 on success, 2 on a usage error (with a one-line reason), 1 on a runtime
 * failure. A started proxy runs until SIGINT or SIGTERM.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code (blocks while a proxy runs). */
  public static int run(String... args) {
    return LoupeCommand.commandLine().execute(args);
  }
}
