package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs commands as child processes: standard input closed at once (a tool that would prompt reads
 * end-of-file instead of waiting for a terminal), both outputs read concurrently, killed after a
 * timeout. Programs are looked up on {@code PATH} plus the sbin directories, where Debian keeps
 * {@code update-ca-certificates} but a desktop user's {@code PATH} often does not reach.
 *
 * <p>Stateless; thread-safe.
 */
public final class ProcessCommandRunner implements CommandRunner {
  private static final List<String> EXTRA_DIRS = List.of("/usr/local/sbin", "/usr/sbin", "/sbin");

  private final Duration timeout;

  /** A runner that gives each command at most two minutes. */
  public ProcessCommandRunner() {
    this(Duration.ofMinutes(2));
  }

  /** A runner that kills commands still running after {@code timeout}. */
  public ProcessCommandRunner(Duration timeout) {
    this.timeout = requireNonNull(timeout, "timeout");
  }

  @Override
  public CommandResult run(List<String> argv) throws IOException {
    requireNonNull(argv, "argv");
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("empty command line");
    }
    List<String> resolved = new java.util.ArrayList<>(argv);
    Path program = find(argv.get(0));
    if (program != null) {
      resolved.set(0, program.toString());
    }
    Process process = new ProcessBuilder(resolved).start();
    process.getOutputStream().close();
    CompletableFuture<byte[]> out = drain(process.getInputStream());
    CompletableFuture<byte[]> err = drain(process.getErrorStream());
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IOException(String.join(" ", argv) + " did not finish within " + timeout.toSeconds() + " s");
      }
      Charset charset = Charset.defaultCharset();
      return new CommandResult(
          argv,
          process.exitValue(),
          new String(out.get(5, TimeUnit.SECONDS), charset),
          new String(err.get(5, TimeUnit.SECONDS), charset));
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + argv.get(0), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IOException("could not read the output of " + argv.get(0) + ": " + e, e);
    }
  }

  @Override
  public boolean isAvailable(String program) {
    return find(program) != null;
  }

  /** The executable file for {@code program}, or null. */
  static Path find(String program) {
    if (program.contains("/") || program.contains(File.separator)) {
      Path path = Path.of(program);
      return Files.isExecutable(path) ? path : null;
    }
    boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    String pathVariable = System.getenv("PATH");
    List<String> dirs = new java.util.ArrayList<>();
    if (pathVariable != null) {
      dirs.addAll(List.of(pathVariable.split(File.pathSeparator)));
    }
    if (!windows) {
      dirs.addAll(EXTRA_DIRS);
    }
    for (String dir : dirs) {
      if (dir.isEmpty()) {
        continue;
      }
      for (String name : windows ? List.of(program + ".exe", program) : List.of(program)) {
        Path candidate = Path.of(dir, name);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }

  private static CompletableFuture<byte[]> drain(InputStream stream) {
    CompletableFuture<byte[]> result = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (InputStream in = stream) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        in.transferTo(buffer);
        result.complete(buffer.toByteArray());
      } catch (IOException e) {
        result.completeExceptionally(new UncheckedIOException(e));
      }
    }, "loupe-command-output");
    reader.setDaemon(true);
    reader.start();
    return result;
  }
}
