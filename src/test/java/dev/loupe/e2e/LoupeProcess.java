package dev.loupe.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real Loupe application ({@code dev.loupe.app.Main}) in a separate JVM, on this test JVM's
 * class path: stdout is read line by line as it comes, stderr is collected. Stop it with
 * {@link #terminate()} (SIGTERM, as a service manager or a script would) or {@link #close()}.
 */
final class LoupeProcess implements AutoCloseable {
  private final Process process;
  private final LinkedBlockingQueue<String> stdoutQueue = new LinkedBlockingQueue<>();
  private final List<String> stdout = new CopyOnWriteArrayList<>();
  private final List<String> stderr = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Void> stdoutDone = new CompletableFuture<>();
  private final CompletableFuture<Void> stderrDone = new CompletableFuture<>();

  private LoupeProcess(Process process) {
    this.process = process;
    pump(process.getInputStream(), line -> {
      stdout.add(line);
      stdoutQueue.add(line);
    }, stdoutDone, "loupe-stdout");
    pump(process.getErrorStream(), stderr::add, stderrDone, "loupe-stderr");
  }

  /** Starts {@code java [jvmArgs] -cp <this class path> dev.loupe.app.Main [args]}. */
  static LoupeProcess start(List<String> jvmArgs, List<String> args) throws IOException {
    return start(List.of(), env -> { }, jvmArgs, args);
  }

  /**
   * As {@link #start(List, List)}, run through {@code wrapper} (e.g. {@code xvfb-run -a}; empty: none) with the
   * environment {@code env} changes.
   */
  static LoupeProcess start(List<String> wrapper, java.util.function.Consumer<java.util.Map<String, String>> env,
      List<String> jvmArgs, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.add(javaBin());
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.loupe.app.Main");
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    env.accept(pb.environment());
    return new LoupeProcess(pb.start());
  }

  /**
   * Starts the packaged application, {@code java [jvmArgs] -jar app/target/loupe.jar [args]}, as a
   * user runs it, when that jar is at least as new as the application's compiled classes (a
   * {@code mvn verify}/{@code package} build); otherwise (a {@code mvn test} run, which does not
   * package) the same main class on this class path. {@link #fromJar()} says which.
   */
  static LoupeProcess startPackaged(List<String> jvmArgs, List<String> args) throws IOException {
    Path jar = packagedJar();
    if (jar == null) {
      return start(jvmArgs, args);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin());
    cmd.addAll(jvmArgs);
    cmd.add("-jar");
    cmd.add(jar.toString());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    LoupeProcess p = new LoupeProcess(pb.start());
    p.fromJar = true;
    return p;
  }

  /** {@code app/target/loupe.jar} when it is fresher than every class it was built from, else null. */
  static Path packagedJar() throws IOException {
    Path root = Path.of("").toAbsolutePath();
    while (root != null && !java.nio.file.Files.isDirectory(root.resolve("app/target"))) {
      root = root.getParent();
    }
    if (root == null) {
      return null;
    }
    Path jar = root.resolve("app/target/loupe.jar");
    if (!java.nio.file.Files.isRegularFile(jar)) {
      return null;
    }
    java.nio.file.attribute.FileTime built = java.nio.file.Files.getLastModifiedTime(jar);
    for (String module : List.of("app", "proxy-engine", "ui", "cert-authority")) {
      Path classes = root.resolve(module).resolve("target/classes");
      if (!java.nio.file.Files.isDirectory(classes)) {
        continue;
      }
      try (java.util.stream.Stream<Path> s = java.nio.file.Files.walk(classes)) {
        boolean newer = s.filter(java.nio.file.Files::isRegularFile).anyMatch(f -> {
          try {
            return java.nio.file.Files.getLastModifiedTime(f).compareTo(built) > 0;
          } catch (IOException e) {
            return true;
          }
        });
        if (newer) {
          return null;
        }
      }
    }
    return jar;
  }

  private volatile boolean fromJar;

  /** Whether this process runs {@code app/target/loupe.jar} ({@link #startPackaged}). */
  boolean fromJar() {
    return fromJar;
  }

  /** Runs a command to completion (at most {@code timeout}). */
  static Result run(Duration timeout, String... args) throws Exception {
    try (LoupeProcess p = start(List.of("-Xmx256m"), List.of(args))) {
      int code = p.awaitExit(timeout);
      return new Result(code, List.copyOf(p.stdout), List.copyOf(p.stderr));
    }
  }

  record Result(int exitCode, List<String> stdout, List<String> stderr) {}

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  long pid() {
    return process.pid();
  }

  Process process() {
    return process;
  }

  /**
   * Waits until some stdout line (already printed or still to come) matches {@code pattern};
   * returns the match of the first such line.
   */
  Matcher awaitLine(Pattern pattern, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (String line : stdout) {
        Matcher m = pattern.matcher(line);
        if (m.find()) {
          return m;
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0 || (stdoutDone.isDone() && stdoutQueue.isEmpty())) {
        throw new AssertionError("no stdout line matching " + pattern + " within " + timeout
            + (process.isAlive() ? "" : " (exited with " + process.exitValue() + ")")
            + "\nstdout: " + String.join("\n", stdout) + "\nstderr: " + String.join("\n", stderr));
      }
      stdoutQueue.poll(left, TimeUnit.NANOSECONDS); // wakes up on the next line
      stdoutQueue.clear();
    }
  }

  List<String> stdout() {
    return List.copyOf(stdout);
  }

  List<String> stderr() {
    return List.copyOf(stderr);
  }

  /**
   * SIGTERM. Through the {@link ProcessHandle}: {@link Process#destroy()} also closes our ends of
   * the pipes, which would lose what the process prints while it shuts down.
   */
  void terminate() {
    process.toHandle().destroy();
  }

  /** SIGTERM to the process's descendants (a wrapper such as {@code xvfb-run} does not pass it on), then to it. */
  void terminateAll() {
    process.toHandle().descendants().forEach(ProcessHandle::destroy);
    process.toHandle().destroy();
  }

  /** Waits for the process to exit and for its output to be read; returns the exit status. */
  int awaitExit(Duration timeout) throws Exception {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("still running after " + timeout + "\nstdout: " + stdout + "\nstderr: "
          + String.join("\n", stderr));
    }
    CompletableFuture.allOf(stdoutDone, stderrDone).get(10, TimeUnit.SECONDS);
    return process.exitValue();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void pump(InputStream in, java.util.function.Consumer<String> sink, CompletableFuture<Void> done,
      String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          sink.accept(line);
        }
        done.complete(null);
      } catch (IOException e) {
        done.completeExceptionally(new UncheckedIOException(e));
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }
}
