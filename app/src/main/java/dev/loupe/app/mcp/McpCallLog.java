package dev.loupe.app.mcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * The record of every MCP call: one line per tool call or resource read in {@code CONFDIR/mcp.log}
 * (owner-only; moved to {@code mcp.log.1} past {@value #ROTATE_BYTES} bytes), which the desktop
 * window shows in its status area ({@link McpActivity} follows the file, so calls made by a
 * {@code loupe mcp} in another process show up too).
 *
 * <p>A line: {@code 2026-12-02T10:15:02.114Z http get_flow {"flowId":12} ok 8ms} or
 * {@code ... error: no flow 99}. Arguments are redacted like answers and cut at
 * {@value #MAX_ARGS} characters.
 *
 * <p>Thread-safe: each line is one append to a file opened for it, so two processes can log to
 * one file without losing lines.
 */
public final class McpCallLog {
  /** The log file's name in the configuration directory. */
  public static final String FILE_NAME = "mcp.log";
  static final long ROTATE_BYTES = 4L << 20;
  static final int MAX_ARGS = 300;

  private final Path file;

  /** Logs to {@code confdir/mcp.log}. */
  public McpCallLog(Path confdir) {
    this.file = confdir.resolve(FILE_NAME);
  }

  Path file() {
    return file;
  }

  /**
   * Records one call.
   *
   * @param transport {@code http} or {@code stdio}
   * @param what      the tool name, or {@code read URI} for a resource
   * @param args      the arguments as (redacted) JSON, or empty
   * @param error     null when the call succeeded, else what went wrong
   */
  void record(String transport, String what, String args, String error, Duration took) {
    String a = args == null ? "" : args.replaceAll("[\\r\\n]+", " ");
    if (a.length() > MAX_ARGS) {
      a = a.substring(0, MAX_ARGS - 3) + "...";
    }
    String line = Instant.now() + " " + transport + " " + what + (a.isEmpty() ? "" : " " + a)
        + (error == null ? " ok" : " error: " + error.replaceAll("[\\r\\n]+", " ")) + " " + took.toMillis() + "ms\n";
    append(line);
  }

  private synchronized void append(String line) {
    try {
      if (Files.size(file) > ROTATE_BYTES) {
        Files.move(file, file.resolveSibling(FILE_NAME + ".1"), StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      // no file yet, or another process rotated it first
    }
    try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.APPEND,
        StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
      ch.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
    } catch (UnsupportedOperationException e) {
      appendWithoutPosix(line); // Windows: no POSIX permissions; the config directory is the user's own
    } catch (IOException e) {
      System.err.println("Loupe: cannot write the MCP call log " + file + ": " + e.getMessage());
    }
  }

  private void appendWithoutPosix(String line) {
    try {
      Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.err.println("Loupe: cannot write the MCP call log " + file + ": " + e.getMessage());
    }
  }
}
