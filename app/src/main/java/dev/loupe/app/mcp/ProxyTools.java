package dev.loupe.app.mcp;

import static dev.loupe.app.mcp.Schemas.object;
import static dev.loupe.app.mcp.Schemas.oneOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import dev.loupe.app.ctl.ConnectHelp;

/**
 * {@code proxy_status} (where Loupe listens, counts, switches) and {@code connect_client} (how to
 * point a client at it and trust its CA).
 *
 * <p>Thread-safe.
 */
final class ProxyTools {
  private final LoupeApi api;
  private final McpOptions options;

  ProxyTools(LoupeApi api, McpOptions options) {
    this.api = api;
    this.options = options;
  }

  List<LoupeTool> tools() {
    return List.of(
        new LoupeTool("proxy_status", "Proxy status",
            "Where Loupe's proxy listens and in which mode, the CA certificate clients must trust, how many flows"
                + " are captured and paused, rules and breakpoints, and this MCP server's settings (read-only,"
                + " redaction).",
            object(List.of()), false, a -> status()),
        new LoupeTool("connect_client", "How to connect a client",
            "Says how to send a client's traffic through Loupe (proxy settings, or the reverse proxy's address) and"
                + " how to make it trust Loupe's CA for HTTPS, for one kind of client.",
            object(List.of(), "client", oneOf("The client (default curl).", "curl", "env", "chromium", "firefox",
                "java", "node", "python")),
            false, a -> ConnectHelp.instructions(api.get("/", Map.of()), a.text("client", "curl"))));
  }

  private JsonNode status() {
    ObjectNode s = (ObjectNode) api.get("/", Map.of());
    s.put("control", api.describe());
    ObjectNode mcp = s.putObject("mcp");
    mcp.put("readOnly", options.readOnly());
    mcp.put("redaction", options.redaction().on());
    return s;
  }
}
