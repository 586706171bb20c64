package dev.loupe.app;

/**
 * Shutdown hooks added while Loupe is starting. A SIGTERM (or Ctrl+C) can arrive in the middle of a start,
 * after the proxy listens but before the window has opened its session; {@link Runtime#addShutdownHook} then
 * refuses ("Shutdown in progress") and the work the hook was for would be skipped: the session left open,
 * launched browsers left running. {@link #add} does that work at once instead.
 */
final class ShutdownHooks {
  private ShutdownHooks() {}

  /**
   * Runs {@code work} when the JVM shuts down, in a thread named {@code name}; if the JVM is already shutting
   * down, runs it now, on the calling thread, and returns false (the caller should not go on starting).
   */
  static boolean add(Runnable work, String name) {
    try {
      Runtime.getRuntime().addShutdownHook(new Thread(work, name));
      return true;
    } catch (IllegalStateException shuttingDown) {
      work.run();
      return false;
    }
  }
}
