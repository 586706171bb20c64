package dev.loupe.plugins.flowlog;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.PluginContext;
import dev.loupe.spi.ResponseHook;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletionStage;

/**
 * Example observing plugin: appends every finished flow to a file as one JSON object per line
 * (JSON Lines), flushed per flow so {@code tail -f} and {@code jq} see it at once. It only
 * observes, so every flow stays on the relay tier.
 *
 * <p>Options: {@code path} (default {@code CONFDIR/plugin-data/flow-log/flows.jsonl}),
 * {@code headers} ({@code true} by default: include request and response header fields). A new
 * file is created readable by its owner only (flows carry cookies and tokens).
 *
 * <p>Threads: Loupe calls the hooks on this plugin's one thread, one at a time, so the writer needs
 * no lock.
 */
public final class FlowLogPlugin implements Plugin {
  private Path path;
  private BufferedWriter out;
  private boolean headers = true;

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
    return Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
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
    if (out == null) {
      return;
    }
    try {
      out.write(FlowJson.line(flow, headers));
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + path + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void done() {
    closeWriter();
  }

  private void closeWriter() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException ignored) {
        // the lines were flushed one by one
      }
      out = null;
    }
  }
}
