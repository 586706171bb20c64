package dev.loupe.plugins.flowlog;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.PluginContext;
import dev.loupe.spi.ResponseHook;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Example observing plugin: appends every finished flow to a file as one JSON object per line
 * (JSON Lines), on disk within {@value #FLUSH_MS} ms of the flow's end, so {@code tail -f} and
 * {@code jq} see it at once (lines are flushed in batches, not one system call per flow: at
 * thousands of flows a second that is what an observer would otherwise cost the proxy). It only
 * observes, so every flow stays on the relay tier.
 *
 * <p>Options: {@code path} (default {@code CONFDIR/plugin-data/flow-log/flows.jsonl}),
 * {@code headers} ({@code true} by default: include request and response header fields). A new
 * file is created readable by its owner only (flows carry cookies and tokens).
 *
 * <p>Threads: Loupe calls the hooks on this plugin's one thread, one at a time; the writer is
 * shared only with the plugin's flusher thread, under {@link #lock} (almost never contended).
 */
public final class FlowLogPlugin implements Plugin {
  /** How long a written line may wait in the buffer before it reaches the file. */
  static final long FLUSH_MS = 100;

  private final Object lock = new Object();
  private Path path;
  private BufferedWriter out; // guarded by lock
  private boolean dirty; // guarded by lock: lines written since the last flush
  private boolean headers = true;
  private ScheduledExecutorService flusher;
  private PluginContext context;

  @Override
  public String name() {
    return "flow-log";
  }

  @Override
  public String version() {
    String v = FlowLogPlugin.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  @Override
  public void configure(PluginContext context) {
    String p = context.option("path", "");
    Path next = p.isBlank() ? context.dataDirectory().resolve("flows.jsonl") : Path.of(p).toAbsolutePath();
    headers = !context.option("headers", "true").equalsIgnoreCase("false");
    this.context = context;
    if (flusher == null) {
      flusher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "loupe-flow-log-flusher");
        t.setDaemon(true);
        return t;
      });
      flusher.scheduleWithFixedDelay(this::flush, FLUSH_MS, FLUSH_MS, TimeUnit.MILLISECONDS);
    }
    synchronized (lock) {
      if (next.equals(path) && out != null) {
        return;
      }
      closeWriter();
      try {
        out = open(next);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot open " + next + " for appending: " + e.getMessage(), e);
      }
      path = next;
    }
    context.log("appending every finished flow to " + next);
  }

  private static BufferedWriter open(Path file) throws IOException {
    Path parent = file.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      // appended to as it is
    } catch (UnsupportedOperationException e) {
      Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND).close(); // not POSIX
    }
    return new BufferedWriter(new OutputStreamWriter(
        Files.newOutputStream(file, StandardOpenOption.APPEND), StandardCharsets.UTF_8), 64 * 1024);
  }

  /** A flow with a response: written here, unless it failed after all (then {@link #error} writes it). */
  @Override
  public CompletionStage<?> response(ResponseHook hook) {
    if (hook.flow().state() != FlowState.FAILED) {
      write(hook.flow());
    }
    return null;
  }

  @Override
  public void error(Flow flow) {
    write(flow);
  }

  private void write(Flow flow) {
    String line = FlowJson.line(flow, headers);
    synchronized (lock) {
      if (out == null) {
        return;
      }
      try {
        out.write(line);
        out.write('\n');
        dirty = true;
      } catch (IOException e) {
        throw new UncheckedIOException("cannot append to " + path + ": " + e.getMessage(), e);
      }
    }
  }

  /** On the flusher thread: what was written since the last flush goes to the file. */
  private void flush() {
    synchronized (lock) {
      if (!dirty || out == null) {
        return;
      }
      dirty = false;
      try {
        out.flush();
      } catch (IOException e) {
        context.log("cannot append to " + path + ": " + e.getMessage());
      }
    }
  }

  @Override
  public void done() {
    if (flusher != null) {
      flusher.shutdownNow();
      flusher = null;
    }
    synchronized (lock) {
      closeWriter();
    }
  }

  /** Flushes and closes the file; the caller holds {@link #lock}. */
  private void closeWriter() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        if (context != null) {
          context.log("cannot append the last lines to " + path + ": " + e.getMessage());
        }
      }
      out = null;
      dirty = false;
    }
  }
}
