package dev.loupe.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a real program (curl, python3, node, openssl, ...) to its end and keeps what it printed. */
record ExternalCommand(int exit, byte[] stdout, String stderr) {
  /** Whether {@code program} is on the PATH (or an existing absolute path). */
  static boolean available(String program) {
    if (program.startsWith("/")) {
      return Files.isExecutable(Path.of(program));
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  static ExternalCommand run(List<String> command) {
    return run(command, Map.of(), null, 60);
  }

  /**
   * Runs {@code command} with {@code env} added to this JVM's environment (a null value removes a
   * variable), {@code stdin} fed in (or none), killed after {@code timeoutSeconds}.
   */
  static ExternalCommand run(List<String> command, Map<String, String> env, byte[] stdin, int timeoutSeconds) {
    ProcessBuilder pb = new ProcessBuilder(command);
    for (Map.Entry<String, String> e : env.entrySet()) {
      if (e.getValue() == null) {
        pb.environment().remove(e.getKey());
      } else {
        pb.environment().put(e.getKey(), e.getValue());
      }
    }
    try {
      Process p = pb.start();
      CompletableFuture<byte[]> out = drain(p.getInputStream());
      CompletableFuture<byte[]> err = drain(p.getErrorStream());
      if (stdin != null) {
        p.getOutputStream().write(stdin);
      }
      p.getOutputStream().close();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        throw new AssertionError(command + " did not finish within " + timeoutSeconds + " s; stderr: "
            + new String(err.getNow(new byte[0]), StandardCharsets.UTF_8));
      }
      return new ExternalCommand(p.exitValue(), out.join(), new String(err.join(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  String out() {
    return new String(stdout, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "exit " + exit + ", stdout: " + out() + ", stderr: " + stderr;
  }

  private static CompletableFuture<byte[]> drain(InputStream in) {
    return CompletableFuture.supplyAsync(() -> {
      try (in) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        in.transferTo(b);
        return b.toByteArray();
      } catch (IOException e) {
        return new byte[0];
      }
    });
  }
}
