package dev.loupe.app.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * The real {@code loupe} command ({@code dev.loupe.app.Main}) in its own JVM on this test's class
 * path (a headless run blocks until SIGTERM, so it cannot run in-process). Stdout and stderr are
 * collected line by line; {@link #close()} stops it with SIGTERM, then kills it if it lingers.
 */
public final class LoupeJvm implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b");
  private static final Pattern CONTROL = Pattern.compile("^Control API on http://(127\\.0\\.0\\.1:\\d+) \\(token: (\\S+), also in (.+)\\)$");

  private final Process process;
  private final List<String> stdout = new CopyOnWriteArrayList<>();
  private final List<String> stderr = new CopyOnWriteArrayList<>();

  private LoupeJvm(Process process) {
    this.process = process;
    pump(process.getInputStream(), stdout, "loupe-stdout");
    pump(process.getErrorStream(), stderr, "loupe-stderr");
  }

  /** {@code java -cp <test class path> dev.loupe.app.Main ARGS}, with paranoid Netty leak detection. */
  public static LoupeJvm start(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-Dio.netty.leakDetection.level=paranoid", "-cp", System.getProperty("java.class.path"),
        "dev.loupe.app.Main"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    return new LoupeJvm(pb.start());
  }

  /** The proxy's port, once it printed it. */
  public int proxyPort() {
    return Integer.parseInt(await(LISTENING).group(1));
  }

  /** {@code host:port}, token and token file from the "Control API on ..." line. */
  public Matcher controlLine() {
    return await(CONTROL);
  }

  /** The first stdout line matching {@code p} (waiting up to 60 s for it). */
  public Matcher await(Pattern p) {
    Matcher[] found = new Matcher[1];
    Awaitility.await("stdout line " + p).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
        .failFast("loupe exited: " + this, () -> !process.isAlive())
        .until(() -> {
          for (String line : stdout) {
            Matcher m = p.matcher(line);
            if (m.find()) {
              found[0] = m;
              return true;
            }
          }
          return false;
        });
    return found[0];
  }

  public List<String> stderr() {
    return List.copyOf(stderr);
  }

  /** Stops it and fails if Netty's leak detector reported anything on its stderr. */
  public void closeCheckingLeaks() throws InterruptedException {
    close();
    if (stderr.stream().anyMatch(l -> l.contains("LEAK"))) {
      throw new AssertionError("Netty reported a leak:\n" + String.join("\n", stderr));
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.toHandle().destroy(); // SIGTERM, as a service manager would
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public String toString() {
    return "stdout:\n" + String.join("\n", stdout) + "\nstderr:\n" + String.join("\n", stderr);
  }

  private static void pump(InputStream in, List<String> sink, String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          sink.add(line);
        }
      } catch (IOException e) {
        sink.add("(read failed: " + e + ")");
      }
    }, name);
    t.setDaemon(true);
    t.start();
  }
}
