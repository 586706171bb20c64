package dev.loupe.app.plugins;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The plugin options of the {@code loupe} command line (a picocli mixin). Public interface:
 * extend, never rename.
 */
public final class PluginOptions {
  @Option(names = "--plugin", paramLabel = "PATH",
      description = "Load this plugin: a jar (plugins registered in META-INF/services) or a single-file Java"
          + " script (.java, compiled at start and reloaded when it changes). Repeatable.")
  List<Path> plugins = new ArrayList<>();

  @Option(names = "--script", paramLabel = "FILE.java",
      description = "Load this single-file Java plugin script (needs a JDK); reloaded when the file changes."
          + " Repeatable.")
  List<Path> scripts = new ArrayList<>();

  @Option(names = "--no-plugins",
      description = "Do not load plugins from the class path, CONFDIR/plugins/*.jar or CONFDIR/scripts/*.java"
          + " (--plugin and --script still load).")
  boolean noPlugins;

  @Option(names = "--set", paramLabel = "NAME.KEY=VALUE",
      description = "Set option KEY of plugin NAME (over settings.json's \"plugins\"); NAME.enabled=false loads"
          + " it switched off. Repeatable.")
  List<String> assignments = new ArrayList<>();

  @Option(names = "--plugin-timeout", paramLabel = "SECONDS",
      description = "How long a plugin hook may run before the flow goes on without it (default: 10).")
  String hookTimeout;

  /** The hook timeout asked for, or null for the default. */
  public Duration hookTimeout() {
    if (hookTimeout == null) {
      return null;
    }
    double s;
    try {
      s = Double.parseDouble(hookTimeout);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--plugin-timeout: expected a number of seconds, got '" + hookTimeout + "'");
    }
    if (!(s > 0) || s > 86_400) {
      throw new IllegalArgumentException("--plugin-timeout: expected more than 0 and at most 86400 seconds, got "
          + hookTimeout);
    }
    return Duration.ofNanos((long) (s * 1e9));
  }

  public boolean noPlugins() {
    return noPlugins;
  }

  public List<Path> plugins() {
    return List.copyOf(plugins);
  }

  public List<Path> scripts() {
    return List.copyOf(scripts);
  }

  public List<String> assignments() {
    return List.copyOf(assignments);
  }
}
