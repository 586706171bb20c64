package dev.loupe.app.mcp;

/**
 * A tool call that cannot be done, with a sentence for the agent saying why and, where it helps,
 * what to do instead. The MCP server answers it as an error result ({@code isError: true}); the
 * server goes on serving.
 */
final class ToolError extends RuntimeException {
  ToolError(String message) {
    super(message, null, false, false);
  }
}
