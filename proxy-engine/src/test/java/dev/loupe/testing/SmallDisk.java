package dev.loupe.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real, size-limited file system for disk-full tests: a tmpfs of a few MiB mounted on a fresh
 * directory (needs root, as in CI and on the developers' machines; elsewhere the test is skipped
 * with the reason), unmounted on {@link #close}. Writes beyond its size fail with ENOSPC, as on a
 * full disk.
 */
public final class SmallDisk implements AutoCloseable {
  private final Path dir;

  private SmallDisk(Path dir) {
    this.dir = dir;
  }

  /** Mounts a tmpfs of {@code kib} KiB on {@code dir} (created); skips the test when that is not allowed. */
  public static SmallDisk mount(Path dir, int kib) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    String out = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + kib + "k,mode=0700", "tmpfs", dir.toString()));
    Assumptions.assumeTrue(out == null, () -> "cannot mount a " + kib + " KiB tmpfs on " + dir
        + " (a disk-full test needs root): " + out);
    return new SmallDisk(dir);
  }

  /** The mounted directory. */
  public Path dir() {
    return dir;
  }

  /** Runs a command; null when it worked, else what it printed. */
  private static String run(List<String> cmd) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      return e.getMessage();
    }
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      return cmd + " did not finish";
    }
    return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + out;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    String out = run(List.of("umount", "-l", dir.toString()));
    if (out != null) {
      throw new IOException("umount " + dir + ": " + out);
    }
  }
}
