package dev.loupe.ui.settings;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads and writes {@code settings.json} (and the window layout's {@code ui-state.json}) in
 * Loupe's configuration directory. Files are replaced atomically and readable by the user only. A
 * missing file means defaults; a file that cannot be read is an error naming the file and the
 * problem (the user's settings are never silently replaced by defaults).
 */
public final class SettingsFile {
  /** The settings file's name in the configuration directory. */
  public static final String NAME = "settings.json";

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path file;

  public SettingsFile(Path confdir) {
    this.file = confdir.resolve(NAME);
  }

  public Path path() {
    return file;
  }

  /** The saved settings, or {@link Settings#DEFAULTS} when none were saved. */
  public Settings load() throws IOException {
    if (!Files.exists(file)) {
      return Settings.DEFAULTS;
    }
    JsonNode root;
    try {
      root = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      throw new IOException(file + ": not valid JSON: " + e.getOriginalMessage());
    }
    if (root == null || !root.isObject()) {
      throw new IOException(file + ": expected a JSON object");
    }
    Settings d = Settings.DEFAULTS;
    List<String> ignore = new ArrayList<>();
    JsonNode hosts = root.path("ignoreHosts");
    if (hosts.isArray()) {
      hosts.forEach(h -> ignore.add(h.asText()));
    }
    String theme = root.path("theme").asText(d.theme().name());
    Settings.Theme t;
    try {
      t = Settings.Theme.valueOf(theme.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": theme must be light or dark, not '" + theme + "'");
    }
    return new Settings(
        root.path("listen").asText(d.listen()),
        hosts.isArray() ? ignore : d.ignoreHosts(),
        root.path("upstreamProxy").asText(d.upstreamProxy()),
        root.path("bodyCap").asText(d.bodyCap()),
        root.path("verifyUpstreamTls").asBoolean(d.verifyUpstreamTls()),
        t, pauseTimeout(root.path("pauseTimeoutSeconds").asInt(d.pauseTimeoutSeconds())));
  }

  /** The {@code "plugins"} object of the file as it is, or null (none, or a file that does not parse). */
  private JsonNode keptPlugins() {
    if (!Files.exists(file)) {
      return null;
    }
    try {
      JsonNode old = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
      return old == null ? null : old.get("plugins");
    } catch (IOException e) {
      return null;
    }
  }

  private int pauseTimeout(int seconds) throws IOException {
    if (seconds < 0 || seconds > Settings.MAX_PAUSE_TIMEOUT_SECONDS) {
      throw new IOException(file + ": pauseTimeoutSeconds must be 0.." + Settings.MAX_PAUSE_TIMEOUT_SECONDS);
    }
    return seconds;
  }

  /** Writes {@code s}, keeping what others keep in the file (the plugins' {@code "plugins"} object). */
  public void save(Settings s) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    JsonNode plugins = keptPlugins();
    if (plugins != null) {
      root.set("plugins", plugins);
    }
    root.put("listen", s.listen());
    ArrayNode hosts = root.putArray("ignoreHosts");
    s.ignoreHosts().forEach(hosts::add);
    root.put("upstreamProxy", s.upstreamProxy());
    root.put("bodyCap", s.bodyCap());
    root.put("verifyUpstreamTls", s.verifyUpstreamTls());
    root.put("theme", s.theme().name().toLowerCase(Locale.ROOT));
    root.put("pauseTimeoutSeconds", s.pauseTimeoutSeconds());
    AtomicFiles.write(file, JSON.writeValueAsBytes(root));
  }
}
