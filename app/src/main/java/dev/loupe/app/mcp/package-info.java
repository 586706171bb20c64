/**
 * Loupe's MCP (Model Context Protocol) server, on the official Java SDK: tools and resources for
 * coding agents over the control API.
 *
 * <p>{@link dev.loupe.app.mcp.LoupeMcp} builds the server from the tools ({@code ProxyTools},
 * {@code FlowTools}, {@code InterceptTools}; each a {@code LoupeTool} with a JSON schema checked by
 * {@link dev.loupe.app.mcp.ToolSchemaValidator}) for either transport:
 * {@link dev.loupe.app.mcp.McpHttpTransport} (stateless streamable HTTP at {@code /mcp} on the
 * control listener) or stdio ({@link dev.loupe.app.mcp.McpCommand}, {@code loupe mcp}). Every tool
 * reaches Loupe through a {@link dev.loupe.app.control.ControlChannel}; answers pass through
 * {@code Redactor}; every call is written by {@link dev.loupe.app.mcp.McpCallLog} and shown in the
 * window through {@link dev.loupe.app.mcp.McpActivity}. Documented in README.md ("MCP server").
 */
package dev.loupe.app.mcp;
