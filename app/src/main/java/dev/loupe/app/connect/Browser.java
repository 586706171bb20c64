package dev.loupe.app.connect;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A browser installed on this machine that Loupe can start with a profile of its own.
 *
 * @param id         short, stable name: {@code chromium}, {@code chrome}, {@code edge}, {@code brave},
 *                   {@code firefox}
 * @param name       what the user sees ({@code Google Chrome}); also the label of its flows
 * @param family     how it is configured
 * @param executable the program to run
 */
public record Browser(String id, String name, Family family, Path executable) {
  /** How a browser of this kind takes its proxy and trust settings. */
  public enum Family {
    /** Command-line flags: {@code --proxy-server}, {@code --ignore-certificate-errors-spki-list}. */
    CHROMIUM,
    /** A profile directory: {@code user.js} preferences and its own NSS database ({@code cert9.db}). */
    FIREFOX
  }

  public Browser {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(family, "family");
    Objects.requireNonNull(executable, "executable");
  }
}
