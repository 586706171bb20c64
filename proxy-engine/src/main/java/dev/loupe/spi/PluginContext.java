package dev.loupe.spi;

import java.nio.file.Path;
import java.util.Map;

/** What Loupe gives a plugin: its options, a log, and a directory of its own. */
public interface PluginContext {
  /** This plugin's options: {@code key -> value} from {@code --set NAME.key=value} and settings.json. */
  Map<String, String> options();

  /** One option, or {@code fallback} when it is not set. */
  default String option(String key, String fallback) {
    String v = options().get(key);
    return v == null ? fallback : v;
  }

  /** A line in Loupe's log (stderr headless; the plugin's row in the Plugins window). */
  void log(String message);

  /** A directory for this plugin's files ({@code CONFDIR/plugin-data/NAME}), created on first use. */
  Path dataDirectory();
}
