package dev.loupe.app.connect;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A browser {@link BrowserLauncher} started. When its process exits (the user closed it, or
 * {@link #close()}), its temporary profile is deleted and the exit actions run (closing its
 * listener); then {@link #exited()} completes.
 *
 * <p>Thread-safe.
 */
public final class LaunchedBrowser implements AutoCloseable {
  private final Browser browser;
  private final Process process;
  private final Path profile;
  private final Path log;
  private final List<Runnable> onExit = new CopyOnWriteArrayList<>();
  private final CompletableFuture<Integer> exited = new CompletableFuture<>();
  /** What the browser printed last, kept when its log goes with the clean-up. */
  private volatile String lastOutput = "";

  LaunchedBrowser(Browser browser, Process process, Path profile, Path log) {
    this.browser = browser;
    this.process = process;
    this.profile = profile;
    this.log = log;
    process.onExit().thenRun(this::cleanUp);
  }

  public Browser browser() {
    return browser;
  }

  public long pid() {
    return process.pid();
  }

  /** The temporary profile (gone once {@link #exited()} completes). */
  public Path profile() {
    return profile;
  }

  public boolean isRunning() {
    return process.isAlive();
  }

  /** Runs {@code action} after the browser exited and its profile is gone (at once if that happened). */
  public void onExit(Runnable action) {
    onExit.add(action);
    if (exited.isDone()) {
      action.run();
    }
  }

  /** Completes with the browser's exit code once it exited and its profile was deleted. */
  public CompletableFuture<Integer> exited() {
    return exited;
  }

  /** The last lines the browser printed (for an error message when it exits at once). */
  public String outputTail() {
    if (exited.isDone()) {
      return lastOutput;
    }
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "";
    }
  }

  /** Stops the browser (its child processes too) and waits up to 10 s for the clean-up. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      exited.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the clean-up reports nothing more useful than the missing profile
    }
  }

  private void cleanUp() {
    // Helper processes (renderers, the crash handler) may still be writing for a moment.
    process.descendants().forEach(ProcessHandle::destroy);
    for (int attempt = 0; attempt < 20 && Files.exists(profile); attempt++) {
      deleteTree(profile);
      if (Files.exists(profile)) {
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    lastOutput = outputTail();
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a temp file the OS clears
    }
    for (Runnable r : onExit) {
      try {
        r.run();
      } catch (RuntimeException ignored) {
        // one action's failure does not stop the others
      }
    }
    exited.complete(process.exitValue());
  }

  /** Deletes {@code dir} and everything in it, as far as it can. */
  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException exc) {
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
          Files.deleteIfExists(d);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException ignored) {
      // retried by the caller; what cannot go stays in the temp folder
    }
  }
}
