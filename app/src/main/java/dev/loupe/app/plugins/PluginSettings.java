package dev.loupe.app.plugins;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code "plugins"} object of {@code CONFDIR/settings.json}:
 * <pre>
 * "plugins": {
 *   "add-header": {"header": "X-Debug: 1", "filter": "~d example.com"},
 *   "flow-log":   {"enabled": false, "path": "/tmp/flows.jsonl"}
 * }
 * </pre>
 * Values may be strings, numbers or booleans (read as their text). Read by headless runs too (it
 * is the plugins' configuration, not the window's); the window also writes the on/off switches
 * back, keeping every other key of the file as it is. Stateless; callers serialise writes.
 */
final class PluginSettings {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  static final String FILE = "settings.json";
  static final String KEY = "plugins";

  private PluginSettings() {}

  /**
   * The plugin configuration in {@code confdir}'s settings.json ({@link PluginConfig#EMPTY} when
   * there is no file or no "plugins" object).
   *
   * @throws IOException naming the file and what is wrong with it
   */
  static PluginConfig read(Path confdir) throws IOException {
    Path file = confdir.resolve(FILE);
    if (!Files.exists(file)) {
      return PluginConfig.EMPTY;
    }
    JsonNode root;
    try {
      root = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new IOException(file + ": not valid JSON: " + e.getOriginalMessage());
    }
    JsonNode plugins = root == null ? null : root.get(KEY);
    if (plugins == null || plugins.isNull()) {
      return PluginConfig.EMPTY;
    }
    if (!plugins.isObject()) {
      throw new IOException(file + ": \"plugins\" must be an object: plugin name -> {option: value}");
    }
    Map<String, Map<String, String>> options = new LinkedHashMap<>();
    Map<String, Boolean> enabled = new HashMap<>();
    for (Map.Entry<String, JsonNode> p : iterable(plugins)) {
      if (!p.getValue().isObject()) {
        throw new IOException(file + ": plugins." + p.getKey() + " must be an object of options");
      }
      Map<String, String> o = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> kv : iterable(p.getValue())) {
        JsonNode v = kv.getValue();
        if (!v.isValueNode() || v.isNull()) {
          throw new IOException(file + ": plugins." + p.getKey() + "." + kv.getKey()
              + " must be a string, a number or a boolean");
        }
        if (kv.getKey().equals("enabled")) {
          try {
            enabled.put(p.getKey(), PluginConfig.parseBoolean("plugins." + p.getKey(), v.asText()));
          } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage());
          }
        } else {
          o.put(kv.getKey(), v.asText());
        }
      }
      options.put(p.getKey(), o);
    }
    return new PluginConfig(options, enabled, Set.of());
  }

  /** Records plugin {@code name} as switched on or off, keeping the rest of the file. */
  static void writeEnabled(Path confdir, String name, boolean on) throws IOException {
    Path file = confdir.resolve(FILE);
    ObjectNode root;
    if (Files.exists(file)) {
      JsonNode read = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
      if (read == null || !read.isObject()) {
        throw new IOException(file + ": expected a JSON object");
      }
      root = (ObjectNode) read;
    } else {
      root = JSON.createObjectNode();
    }
    JsonNode plugins = root.get(KEY);
    ObjectNode p = plugins != null && plugins.isObject() ? (ObjectNode) plugins : root.putObject(KEY);
    JsonNode entry = p.get(name);
    ObjectNode e = entry != null && entry.isObject() ? (ObjectNode) entry : p.putObject(name);
    e.put("enabled", on);
    AtomicFiles.write(file, JSON.writeValueAsBytes(root));
  }

  private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode object) {
    return object::fields;
  }
}
