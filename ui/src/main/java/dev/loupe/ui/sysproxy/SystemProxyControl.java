package dev.loupe.ui.sysproxy;

/**
 * The port a toolbar toggle uses to point the operating system's proxy settings at Loupe and back.
 * Implemented by the application module (which saves the previous settings and restores them on
 * exit, even after a crash); the UI only calls it. Plain Java, no JavaFX.
 *
 * <p>{@link #enable()} and {@link #disable()} run external tools ({@code gsettings},
 * {@code networksetup}, {@code reg}...) and can take a second or more: call them off the FX
 * thread. All methods are thread-safe. A failure is a {@link Result} with {@code ok == false} and
 * the error message verbatim, never an exception.
 */
public interface SystemProxyControl {

  /** Outcome of {@link #enable()} or {@link #disable()}: a one-line message for the status bar. */
  record Result(boolean ok, String message) {
    public Result {
      if (message == null) {
        throw new NullPointerException("message");
      }
    }
  }

  /** What is switched, e.g. "GNOME (gsettings)", "KDE (kioslaverc)", "macOS (networksetup)". */
  String backendName();

  /**
   * Why switching cannot work on this machine (e.g. no gsettings or kwriteconfig on the PATH), or
   * null when it is supported. A toggle should be disabled, with this as its tooltip, when non-null.
   */
  String unsupportedReason();

  /** Whether the system proxy currently points at this Loupe (switched by this process). */
  boolean isEnabled();

  /** Saves the current settings and points the system's HTTP and HTTPS proxy at Loupe. */
  Result enable();

  /** Restores the settings saved by {@link #enable()}; ok and a no-op when not enabled. */
  Result disable();
}
