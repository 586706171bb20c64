package dev.loupe.app.mcp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small builder for the tools' JSON schemas (only the keywords {@link ToolSchemaValidator}
 * understands), so each tool's schema reads like its argument list.
 */
final class Schemas {
  private Schemas() {}

  /** An object schema: properties in order, the required ones named, no other properties allowed. */
  static Map<String, Object> object(List<String> required, Object... nameSchemaPairs) {
    Map<String, Object> props = new LinkedHashMap<>();
    for (int i = 0; i < nameSchemaPairs.length; i += 2) {
      props.put((String) nameSchemaPairs[i], nameSchemaPairs[i + 1]);
    }
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("type", "object");
    s.put("properties", props);
    if (!required.isEmpty()) {
      s.put("required", new ArrayList<>(required));
    }
    s.put("additionalProperties", false);
    return s;
  }

  static Map<String, Object> string(String description) {
    return typed("string", description);
  }

  static Map<String, Object> bool(String description) {
    return typed("boolean", description);
  }

  static Map<String, Object> integer(String description, long min, long max) {
    Map<String, Object> s = typed("integer", description);
    s.put("minimum", min);
    s.put("maximum", max);
    return s;
  }

  static Map<String, Object> oneOf(String description, String... values) {
    Map<String, Object> s = typed("string", description);
    s.put("enum", List.of(values));
    return s;
  }

  /** A free-form JSON object (checked by Loupe's control API, which names what is wrong). */
  static Map<String, Object> anyObject(String description) {
    return typed("object", description);
  }

  /** Headers: {@code [["Name", "value"], ...]} (order and repeats kept) or {@code {"Name": "value"}}. */
  static Map<String, Object> headers(String description) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("type", List.of("array", "object"));
    s.put("description", description + " As [[\"Name\", \"value\"], ...] (order and repeats kept) or"
        + " {\"Name\": \"value\" | [\"v1\", \"v2\"]}; replaces all headers.");
    return s;
  }

  private static Map<String, Object> typed(String type, String description) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("type", type);
    s.put("description", description);
    return s;
  }
}
