package dev.loupe.app;

import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.shell.DesktopApp;
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
  static void showAndWait(FlowStore store, String listening) {
    try {
      DesktopApp.showAndWait(store, listening);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
