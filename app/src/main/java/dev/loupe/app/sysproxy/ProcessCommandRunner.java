package dev.loupe.app.sysproxy;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs commands as real processes, with this process's environment plus optional overrides, and
 * an optional prefix (tests run every command as {@code dbus-run-session -- ...} in a temporary
 * home). A command that does not finish within the timeout is killed. Thread-safe.
 */
public final class ProcessCommandRunner implements CommandRunner {
  /** What tools print in: the OS locale's charset (Java 17's default charset may differ). */
  private static final Charset NATIVE = nativeCharset();

  private final Map<String, String> environment;
  private final List<String> prefix;
  private final Duration timeout;

  /** This process's environment, no prefix, 30 seconds per command. */
  public ProcessCommandRunner() {
    this(Map.of(), List.of(), Duration.ofSeconds(30));
  }

  /**
   * @param environment variables to set (a null value removes the variable)
   * @param prefix argv put before every command
   */
  public ProcessCommandRunner(Map<String, String> environment, List<String> prefix, Duration timeout) {
    this.environment = new java.util.HashMap<>(requireNonNull(environment, "environment"));
    this.prefix = List.copyOf(requireNonNull(prefix, "prefix"));
    this.timeout = requireNonNull(timeout, "timeout");
  }

  @Override
  public Output run(List<String> argv) throws SystemProxyException {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(argv);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE);
    environment.forEach((k, v) -> {
      if (v == null) {
        pb.environment().remove(k);
      } else {
        pb.environment().put(k, v);
      }
    });
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new SystemProxyException("cannot run " + CommandRunner.describe(argv) + ": " + e.getMessage(), e);
    }
    try {
      p.getOutputStream().close();
    } catch (IOException ignored) {
      // the command does not read its input
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new SystemProxyException(CommandRunner.describe(argv) + " did not finish within "
            + timeout.toSeconds() + " seconds");
      }
      return new Output(p.exitValue(), out.get(5, TimeUnit.SECONDS), err.get(5, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new SystemProxyException("interrupted while running " + CommandRunner.describe(argv), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new SystemProxyException("cannot read the output of " + CommandRunner.describe(argv) + ": " + e, e);
    }
  }

  private static Charset nativeCharset() {
    try {
      return Charset.forName(System.getProperty("native.encoding", Charset.defaultCharset().name()));
    } catch (IllegalArgumentException e) {
      return Charset.defaultCharset();
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try (in) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        in.transferTo(buf);
        f.complete(buf.toString(NATIVE));
      } catch (IOException e) {
        f.completeExceptionally(new UncheckedIOException(e));
      }
    }, "loupe-sysproxy-output");
    t.setDaemon(true);
    t.start();
    return f;
  }
}
