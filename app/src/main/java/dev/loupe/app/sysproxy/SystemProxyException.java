package dev.loupe.app.sysproxy;

/** Switching or restoring the system proxy failed; the message names the command and its error verbatim. */
public final class SystemProxyException extends Exception {
  private static final long serialVersionUID = 1L;

  public SystemProxyException(String message) {
    super(message);
  }

  public SystemProxyException(String message, Throwable cause) {
    super(message, cause);
  }
}
