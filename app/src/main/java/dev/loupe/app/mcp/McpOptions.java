package dev.loupe.app.mcp;

/**
 * How an MCP server behaves: {@code readOnly} ({@code --mcp-read-only}: only reading tools are
 * listed; the others refuse) and whether secrets are redacted ({@code --mcp-no-redact} turns it off).
 */
public record McpOptions(boolean readOnly, boolean redact) {
  Redactor redaction() {
    return redact ? Redactor.ON : Redactor.OFF;
  }
}
