package dev.loupe.app;

import dev.loupe.ui.shell.DesktopApp;
import dev.loupe.ui.shell.DesktopContext;
import dev.loupe.ui.sysproxy.SystemProxyControl;
import java.util.Locale;

/** Opens the desktop window when this machine has a display. */
final class DesktopWindow {
  private DesktopWindow() {}

  /** Why no window can open here (no display on Linux), or null when one can. */
  static String whyNot() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (os.contains("linux") && System.getenv("DISPLAY") == null && System.getenv("WAYLAND_DISPLAY") == null) {
      return "no display: DISPLAY and WAYLAND_DISPLAY are unset; use --headless on servers";
    }
    return null;
  }

  /** Shows the window and returns when the user closes it. */
  static void showAndWait(DesktopContext ctx) {
    try {
      DesktopApp.showAndWait(ctx);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** {@code control} reporting {@code reason} as why it cannot switch (the toolbar button is disabled). */
  static SystemProxyControl unsupported(SystemProxyControl control, String reason) {
    return new SystemProxyControl() {
      @Override public String backendName() { return control.backendName(); }
      @Override public String unsupportedReason() { return reason; }
      @Override public boolean isEnabled() { return false; }
      @Override public Result enable() { return new Result(false, reason); }
      @Override public Result disable() { return new Result(true, "The system proxy was not switched"); }
    };
  }
}
