package dev.loupe.ui.shell;

import dev.loupe.ui.settings.Settings;
import javafx.scene.Scene;

/** Loupe's style sheets: the base (light) one, and the dark one layered on top of it. */
public final class Themes {
  static final String BASE = "/dev/loupe/ui/loupe.css";
  static final String DARK = "/dev/loupe/ui/loupe-dark.css";

  private Themes() {}

  /** Gives {@code scene} the style sheets of {@code theme}. */
  public static void apply(Scene scene, Settings.Theme theme) {
    scene.getStylesheets().setAll(url(BASE));
    if (theme == Settings.Theme.DARK) {
      scene.getStylesheets().add(url(DARK));
    }
  }

  private static String url(String resource) {
    return Themes.class.getResource(resource).toExternalForm();
  }
}
