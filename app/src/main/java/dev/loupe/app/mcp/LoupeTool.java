package dev.loupe.app.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Objects;

/**
 * One MCP tool: its name, what it does (for the agent), its input schema, whether it changes
 * Loupe or its traffic ({@code writes}: hidden and refused with {@code --mcp-read-only}), and
 * what it does.
 *
 * @param handler runs the call; throws {@link ToolError} for a call it refuses. Its answer is
 *                shown to the agent as JSON text (a {@code TextNode} as plain text).
 */
record LoupeTool(String name, String title, String description, Map<String, Object> schema, boolean writes,
    Handler handler) {
  /** A tool's body. */
  @FunctionalInterface
  interface Handler {
    JsonNode call(ToolArgs args);
  }

  LoupeTool {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(handler, "handler");
  }
}
