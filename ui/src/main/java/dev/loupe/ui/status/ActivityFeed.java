package dev.loupe.ui.status;

import java.util.function.Consumer;

/**
 * Lines of activity from outside the window that the status bar shows, such as the calls an AI
 * agent makes through Loupe's MCP server. The app supplies the feed; the window subscribes.
 */
@FunctionalInterface
public interface ActivityFeed {
  /** A feed with nothing in it. */
  ActivityFeed NONE = listener -> () -> { };

  /**
   * Calls {@code listener} with each new line, on any thread, until the returned handle is closed.
   */
  AutoCloseable subscribe(Consumer<String> listener);
}
