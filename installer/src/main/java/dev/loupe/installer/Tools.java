package dev.loupe.installer;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;

/**
 * Runs the JDK's tools in process ({@code jdeps}, {@code jmod}, {@code jlink}, {@code jpackage}, through
 * {@link ToolProvider}) and other programs as child processes, failing loudly with their output.
 * Stateless; calls block until the tool ends.
 */
final class Tools {
  private Tools() {}

  /** Runs a JDK tool and returns what it printed; throws with its output when it exits non-zero. */
  static String jdk(String tool, List<String> args) {
    ToolProvider provider = ToolProvider.findFirst(tool)
        .orElseThrow(() -> new IllegalStateException(tool + " is not in this JDK (a full JDK 17 or newer is needed)"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    System.out.println("> " + tool + " " + String.join(" ", args));
    int rc;
    try (PrintWriter o = new PrintWriter(out); PrintWriter e = new PrintWriter(err)) {
      rc = provider.run(o, e, args.toArray(String[]::new));
    }
    if (rc != 0) {
      throw new IllegalStateException(tool + " failed (exit " + rc + "):\n" + out + err);
    }
    return out.toString();
  }

  /** Runs a program, its output going to ours; throws when it fails, naming {@code hint} if it is missing. */
  static void run(List<String> command, long timeout, TimeUnit unit, String hint)
      throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder(command).inheritIO().start();
    } catch (IOException e) {
      throw new IOException("cannot run " + command.get(0) + ": " + e.getMessage() + (hint == null ? "" : " (" + hint + ")"), e);
    }
    if (!p.waitFor(timeout, unit)) {
      p.destroyForcibly();
      throw new IOException(command.get(0) + " did not finish within " + timeout + " " + unit);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + ")");
    }
  }
}
