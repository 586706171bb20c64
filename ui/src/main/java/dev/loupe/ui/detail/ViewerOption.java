package dev.loupe.ui.detail;

import dev.loupe.spi.ContentView;

/**
 * One entry of a body viewer's chooser: a built-in viewer, or a plugin's content view.
 *
 * @param mode the built-in viewer ({@link ViewerMode#PLUGIN} for a plugin's)
 * @param view the plugin's view, or null for a built-in viewer
 */
public record ViewerOption(ViewerMode mode, ContentView view) {
  static ViewerOption of(ViewerMode mode) {
    return new ViewerOption(mode, null);
  }

  static ViewerOption of(ContentView view) {
    return new ViewerOption(ViewerMode.PLUGIN, view);
  }

  /** The chooser's text: the viewer's label, or the plugin view's name. */
  @Override
  public String toString() {
    if (view == null) {
      return mode.label();
    }
    try {
      return view.name();
    } catch (RuntimeException e) {
      return view.getClass().getSimpleName();
    }
  }
}
