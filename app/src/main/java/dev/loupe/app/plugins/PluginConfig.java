package dev.loupe.app.plugins;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plugin options and on/off flags, by plugin name: what settings.json's {@code "plugins"} object
 * says, overridden by {@code --set NAME.key=VALUE}. The key {@code enabled} is the on/off flag
 * ({@code false} loads the plugin switched off), every other key is an option the plugin reads.
 * Immutable.
 */
record PluginConfig(Map<String, Map<String, String>> options, Map<String, Boolean> enabled,
    Set<String> namedOnCommandLine) {
  static final PluginConfig EMPTY = new PluginConfig(Map.of(), Map.of(), Set.of());

  PluginConfig {
    Map<String, Map<String, String>> o = new LinkedHashMap<>();
    options.forEach((k, v) -> o.put(k, Map.copyOf(v)));
    options = java.util.Collections.unmodifiableMap(o);
    enabled = Map.copyOf(enabled);
    namedOnCommandLine = Set.copyOf(namedOnCommandLine);
  }

  /** The options of plugin {@code name} (empty when none). */
  Map<String, String> optionsOf(String name) {
    return options.getOrDefault(name, Map.of());
  }

  /** False when plugin {@code name} is to start switched off. */
  boolean enabledOf(String name) {
    return enabled.getOrDefault(name, true);
  }

  /**
   * These settings with {@code --set} assignments applied on top.
   *
   * @throws IllegalArgumentException naming the assignment that is not {@code NAME.key=VALUE}
   */
  PluginConfig withAssignments(List<String> assignments) {
    Map<String, Map<String, String>> o = new HashMap<>();
    options.forEach((k, v) -> o.put(k, new LinkedHashMap<>(v)));
    Map<String, Boolean> e = new HashMap<>(enabled);
    Set<String> named = new LinkedHashSet<>(namedOnCommandLine);
    for (String a : assignments) {
      int eq = a.indexOf('=');
      int dot = a.indexOf('.');
      if (eq < 0 || dot <= 0 || dot > eq - 2) {
        throw new IllegalArgumentException("expected NAME.key=VALUE (a plugin's name, an option, its value), got '"
            + a + "'");
      }
      String name = a.substring(0, dot);
      String key = a.substring(dot + 1, eq);
      String value = a.substring(eq + 1);
      named.add(name);
      if (key.equals("enabled")) {
        e.put(name, parseBoolean(a, value));
      } else {
        o.computeIfAbsent(name, n -> new LinkedHashMap<>()).put(key, value);
      }
    }
    return new PluginConfig(o, e, named);
  }

  static boolean parseBoolean(String where, String value) {
    return switch (value.toLowerCase(java.util.Locale.ROOT)) {
      case "true", "on", "yes", "1" -> true;
      case "false", "off", "no", "0" -> false;
      default -> throw new IllegalArgumentException(where + ": 'enabled' is true or false, not '" + value + "'");
    };
  }
}
