package dev.loupe.app;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.flow.FlowStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code --session FILE} and the positional {@code FILE} ask for: a session file to record
 * into ({@code .loupe}), or a HAR file to open in the window. Checked before anything starts.
 *
 * @param record the session file to record into, or null
 * @param har    a HAR file to show in the window, or null
 */
record SessionOptions(Path record, Path har) {

  static SessionOptions resolve(LoupeCommand c) {
    Path record = c.session;
    Path har = null;
    if (c.file != null) {
      ConvertCommand.Kind kind = Files.isRegularFile(c.file) ? kindOf(c.file) : ConvertCommand.kindByName(c.file);
      if (kind == ConvertCommand.Kind.HAR) {
        if (!Files.isRegularFile(c.file)) {
          throw new LoupeCommand.UsageError("no such file: " + c.file);
        }
        if (c.headless) {
          throw new LoupeCommand.UsageError(c.file + " is a HAR file: it opens in the window. Headless, convert it"
              + " first ('loupe convert " + c.file + " OUT.loupe') and record into that with --session");
        }
        har = c.file;
      } else if (kind == ConvertCommand.Kind.LOUPE) {
        if (record != null && !record.toAbsolutePath().equals(c.file.toAbsolutePath())) {
          throw new LoupeCommand.UsageError("two session files: " + c.file + " and --session " + record);
        }
        record = c.file;
      } else {
        throw new LoupeCommand.UsageError("FILE must be a session (.loupe) or a HAR file (.har): " + c.file);
      }
    }
    if (record != null) {
      if (c.keepFlows != null) {
        throw new LoupeCommand.UsageError("--keep-flows is for flows kept in memory; a session file keeps every flow"
            + " on disk (and only the newest in memory)");
      }
      Path parent = record.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new LoupeCommand.UsageError("--session: directory does not exist: " + parent);
      }
      if (Files.isDirectory(record)) {
        throw new LoupeCommand.UsageError("--session: " + record + " is a directory");
      }
    }
    return new SessionOptions(record, har);
  }

  private static ConvertCommand.Kind kindOf(Path file) {
    try {
      return ConvertCommand.kindOf(file);
    } catch (java.io.IOException e) {
      throw new LoupeCommand.UsageError("cannot read " + file + ": " + e.getMessage());
    }
  }

  /**
   * Opens the session file and records {@code store} into it; null when no file was asked for.
   * Problems writing it (a full disk) are printed to stderr as they happen. {@code keep}: ended flows
   * kept in the store's memory once written ({@link Session#record(FlowStore, java.util.function.Consumer, int)}).
   */
  Session startRecording(FlowStore store, PrintStream out, int keep) {
    if (record == null) {
      return null;
    }
    try {
      // nobody browses it while it records: written without the filters' indexes (a third of the
      // writer's work per flow), which are built when it closes (or, after a kill, when next opened)
      Session s = Session.open(record, Path.of(System.getProperty("java.io.tmpdir")), Session.Indexing.DEFERRED);
      long before = s.count();
      s.record(store, problem -> System.err.println("Loupe: " + (problem != null ? problem
          : "writing the session works again; capture is on")), keep);
      out.println("Recording into " + s.file() + (before == 0 ? "" : " (" + before + " flows already in it)"));
      return s;
    } catch (SessionException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
