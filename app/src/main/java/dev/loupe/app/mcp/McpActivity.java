package dev.loupe.app.mcp;

import dev.loupe.ui.status.ActivityFeed;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The MCP calls logged in {@code CONFDIR/mcp.log} as they happen, for the window's status bar: it
 * follows the file (from its end when first subscribed to; from the start of a new file after the
 * log was rotated), so calls made through {@code /mcp} in this process and through a
 * {@code loupe mcp} attached from another process show up alike.
 *
 * <p>One daemon thread polls the file every {@value #POLL_MILLIS} ms while anyone is subscribed;
 * listeners are called on it.
 */
public final class McpActivity implements ActivityFeed {
  static final long POLL_MILLIS = 500;

  private final Path file;
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private Thread follower;

  /** Follows {@code confdir/mcp.log}. */
  public McpActivity(Path confdir) {
    this.file = confdir.resolve(McpCallLog.FILE_NAME);
  }

  @Override
  public synchronized AutoCloseable subscribe(Consumer<String> listener) {
    listeners.add(listener);
    if (follower == null) {
      follower = new Thread(this::follow, "loupe-mcp-activity");
      follower.setDaemon(true);
      follower.start();
    }
    return () -> listeners.remove(listener);
  }

  private void follow() {
    long position = size();
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      long size = size();
      if (size < position) { // rotated: a new file
        position = 0;
      }
      if (size == position) {
        continue;
      }
      byte[] b;
      try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
        f.seek(position);
        b = new byte[(int) Math.min(size - position, 1 << 20)];
        f.readFully(b);
      } catch (IOException e) {
        continue; // gone meanwhile: try again
      }
      int end = b.length;
      while (end > 0 && b[end - 1] != '\n') {
        end--; // a line still being written waits for the next round
      }
      position += end;
      for (String line : new String(b, 0, end, StandardCharsets.UTF_8).split("\n")) {
        if (!line.isEmpty()) {
          listeners.forEach(l -> l.accept(line));
        }
      }
    }
  }

  private long size() {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return 0;
    }
  }
}
