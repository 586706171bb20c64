package dev.loupe.app.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One call's arguments, already checked against the tool's schema by the SDK (types, ranges,
 * required and unknown names); the getters fill in defaults.
 */
final class ToolArgs {
  private final ObjectNode args;

  ToolArgs(ObjectNode args) {
    this.args = args;
  }

  ObjectNode json() {
    return args;
  }

  boolean has(String name) {
    return args.hasNonNull(name);
  }

  JsonNode get(String name) {
    return args.get(name);
  }

  String text(String name, String dflt) {
    JsonNode v = args.get(name);
    return v == null || v.isNull() ? dflt : v.asText();
  }

  long number(String name, long dflt) {
    JsonNode v = args.get(name);
    return v == null || v.isNull() ? dflt : v.asLong();
  }

  boolean flag(String name, boolean dflt) {
    JsonNode v = args.get(name);
    return v == null || v.isNull() ? dflt : v.asBoolean();
  }

  /** A required flow id (the schema makes it present). */
  long flowId() {
    JsonNode v = args.get("flowId");
    if (v == null || !v.canConvertToLong()) {
      throw new ToolError("flowId is required: the id list_flows shows");
    }
    return v.asLong();
  }
}
