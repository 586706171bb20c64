package dev.loupe.app.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.app.control.ControlChannel;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tools' view of Loupe: control API calls with JSON in and out, where a refused request
 * becomes a {@link ToolError} carrying the API's own message (which names the bad filter, field or
 * id) and an unreachable Loupe says where it was looked for.
 *
 * <p>Thread-safe (the channel is).
 */
final class LoupeApi {
  static final ObjectMapper JSON = new ObjectMapper();

  private final ControlChannel channel;

  LoupeApi(ControlChannel channel) {
    this.channel = channel;
  }

  String describe() {
    return channel.describe();
  }

  JsonNode get(String path, Map<String, String> query) {
    return parse(send("GET", path, query, null));
  }

  /** {@code GET path} as text (e.g. a HAR document, kept byte for byte). */
  String getText(String path, Map<String, String> query) {
    return send("GET", path, query, null).body();
  }

  JsonNode post(String path, Map<String, String> query, JsonNode body) {
    return parse(send("POST", path, query, body == null ? null : body.toString()));
  }

  void delete(String path) {
    send("DELETE", path, Map.of(), null);
  }

  /** An ordered query map without null values. */
  static Map<String, String> query(String... nameValuePairs) {
    Map<String, String> q = new LinkedHashMap<>();
    for (int i = 0; i < nameValuePairs.length; i += 2) {
      if (nameValuePairs[i + 1] != null) {
        q.put(nameValuePairs[i], nameValuePairs[i + 1]);
      }
    }
    return q;
  }

  private ControlChannel.Reply send(String method, String path, Map<String, String> query, String body) {
    ControlChannel.Reply r;
    try {
      r = channel.send(method, path, query, body);
    } catch (IOException e) {
      throw new ToolError("cannot reach Loupe's control API (" + channel.describe() + "): " + e.getMessage()
          + ". Is Loupe still running?");
    }
    if (!r.ok()) {
      throw new ToolError(r.error());
    }
    return r;
  }

  private static JsonNode parse(ControlChannel.Reply r) {
    if (r.body() == null || r.body().isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new ToolError("Loupe answered something that is not JSON: " + e.getMessage());
    }
  }

  /** A new empty JSON object. */
  static ObjectNode object() {
    return JSON.createObjectNode();
  }
}
