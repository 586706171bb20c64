package dev.loupe.app.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.app.control.ControlChannel;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpStatelessSyncServer;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Loupe's MCP server: its tools ({@link FlowTools}, {@link InterceptTools}, {@link ProxyTools}) and
 * resources (recent flows, the CA certificate), served by the official Java SDK over streamable
 * HTTP ({@link #http}, stateless, at {@code /mcp} on the control listener) or stdio ({@link #stdio},
 * {@code loupe mcp}). Every tool reaches Loupe through a {@link ControlChannel}, so both transports
 * do exactly what the control API does.
 *
 * <p>Every call is logged ({@link McpCallLog}); answers are redacted ({@link Redactor}) unless
 * switched off; with {@code readOnly}, tools that change Loupe or send traffic are not listed and
 * refuse to run. A failing call is an error result naming the problem, and the server goes on.
 *
 * <p>Thread-safe: the SDK may run calls concurrently; each goes to the thread-safe channel.
 */
public final class LoupeMcp {
  static final String NAME = "loupe";
  static final String RECENT_FLOWS = "loupe://flows/recent";
  static final String CA_CERTIFICATE = "loupe://ca/certificate.pem";
  /** Flows the recent-flows resource lists. */
  static final int RECENT = 100;
  static final String INSTRUCTIONS = "Loupe is an HTTP(S) debugging proxy. Its tools read the traffic it captured"
      + " (list_flows with a filter, get_flow, get_body, export_har), send requests (replay_flow, send_request),"
      + " change traffic with rules and breakpoints, and release paused flows (list_paused, resume_flow,"
      + " abort_flow, answer_flow). proxy_status and connect_client say how to send a client through it.";

  /** The SDK's own logging (SLF4J to java.util.logging): errors only; every call is in the call log anyway. */
  private static final java.util.logging.Logger SDK_LOG = java.util.logging.Logger.getLogger("io.modelcontextprotocol");

  static {
    SDK_LOG.setLevel(java.util.logging.Level.SEVERE);
  }

  private final LoupeApi api;
  private final McpOptions options;
  private final McpCallLog log;
  private final List<LoupeTool> tools;
  private final McpJsonMapper mapper = new JacksonMcpJsonMapper(LoupeApi.JSON);

  /** Tools over {@code channel}, logging to {@code log}. */
  public LoupeMcp(ControlChannel channel, McpOptions options, McpCallLog log) {
    this.api = new LoupeApi(channel);
    this.options = options;
    this.log = log;
    Redactor r = options.redaction();
    List<LoupeTool> all = new ArrayList<>();
    all.addAll(new ProxyTools(api, options).tools());
    all.addAll(new FlowTools(api, r, options.readOnly()).tools());
    all.addAll(new InterceptTools(api, r).tools());
    this.tools = List.copyOf(all);
  }

  List<LoupeTool> tools() {
    return tools;
  }

  McpJsonMapper mapper() {
    return mapper;
  }

  /** A stateless streamable-HTTP server on {@code transport} (see {@link McpHttpTransport}). */
  public McpStatelessSyncServer http(McpStatelessServerTransport transport) {
    return McpServer.sync(transport)
        .serverInfo(NAME, version())
        .instructions(INSTRUCTIONS)
        .capabilities(capabilities())
        .jsonMapper(mapper)
        .jsonSchemaValidator(new ToolSchemaValidator())
        .validateToolInputs(true)
        .requestTimeout(Duration.ofMinutes(11)) // a replay may wait up to 10 minutes
        .addToolFilter((ctx, tool) -> visible(tool.name()))
        .tools(tools.stream().map(t -> new McpStatelessServerFeatures.SyncToolSpecification(spec(t),
            (ctx, req) -> call(t, "http", req))).toList())
        .resources(resources().stream().map(r -> new McpStatelessServerFeatures.SyncResourceSpecification(r,
            (ctx, req) -> read(req.uri(), "http"))).toList())
        .build();
  }

  /** A server on stdio (one client, the process that started {@code loupe mcp}). */
  public McpSyncServer stdio(McpServerTransportProvider transport) {
    return McpServer.sync(transport)
        .serverInfo(NAME, version())
        .instructions(INSTRUCTIONS)
        .capabilities(capabilities())
        .jsonMapper(mapper)
        .jsonSchemaValidator(new ToolSchemaValidator())
        .validateToolInputs(true)
        .requestTimeout(Duration.ofMinutes(11))
        .addToolFilter((ctx, tool) -> visible(tool.name()))
        .tools(tools.stream().map(t -> new McpServerFeatures.SyncToolSpecification(spec(t),
            (exchange, req) -> call(t, "stdio", req))).toList())
        .resources(resources().stream().map(r -> new McpServerFeatures.SyncResourceSpecification(r,
            (exchange, req) -> read(req.uri(), "stdio"))).toList())
        .build();
  }

  private boolean visible(String tool) {
    return !options.readOnly() || tools.stream().noneMatch(t -> t.name().equals(tool) && t.writes());
  }

  private static McpSchema.ServerCapabilities capabilities() {
    return McpSchema.ServerCapabilities.builder().tools(false).resources(false, false).build();
  }

  private static McpSchema.Tool spec(LoupeTool t) {
    return McpSchema.Tool.builder()
        .name(t.name())
        .title(t.title())
        .description(t.description())
        .inputSchema(t.schema())
        .annotations(new McpSchema.ToolAnnotations(t.title(), !t.writes(), false, false, t.writes(), null))
        .build();
  }

  /** Runs one tool call: refusals and failures become error results; every call is logged. */
  McpSchema.CallToolResult call(LoupeTool tool, String transport, McpSchema.CallToolRequest request) {
    long start = System.nanoTime();
    ObjectNode args = request.arguments() == null ? LoupeApi.object()
        : LoupeApi.JSON.valueToTree(request.arguments());
    String error = null;
    try {
      if (tool.writes() && options.readOnly()) {
        throw new ToolError("this MCP server is read-only (--mcp-read-only): " + tool.name()
            + " changes Loupe or sends traffic and is not available");
      }
      JsonNode answer = tool.handler().call(new ToolArgs(args));
      return McpSchema.CallToolResult.builder().addTextContent(text(answer)).isError(false).build();
    } catch (ToolError e) {
      error = e.getMessage();
    } catch (RuntimeException e) {
      error = "internal error in " + tool.name() + ": " + e;
    } finally {
      log.record(transport, tool.name(), args.isEmpty() ? "" : options.redaction().redact(args).toString(), error,
          Duration.ofNanos(System.nanoTime() - start));
    }
    return McpSchema.CallToolResult.builder().addTextContent(error).isError(true).build();
  }

  private List<McpSchema.Resource> resources() {
    return List.of(
        McpSchema.Resource.builder().uri(RECENT_FLOWS).name("recent-flows").title("Recent flows")
            .description("The newest " + RECENT + " captured flows (summaries: id, method, URL, status, state), oldest"
                + " first; read one with the get_flow tool.")
            .mimeType("application/json").build(),
        McpSchema.Resource.builder().uri(CA_CERTIFICATE).name("ca-certificate").title("Loupe's CA certificate")
            .description("The CA certificate (PEM) clients must trust for Loupe to see their HTTPS traffic.")
            .mimeType("application/x-pem-file").build());
  }

  /** Reads a resource; failures become MCP errors (logged like tool calls). */
  McpSchema.ReadResourceResult read(String uri, String transport) {
    long start = System.nanoTime();
    String error = null;
    try {
      return switch (uri) {
        case RECENT_FLOWS -> text(uri, "application/json", text(recentFlows()));
        case CA_CERTIFICATE -> text(uri, "application/x-pem-file", api.get("/ca", Map.of()).path("pem").asText());
        default -> throw new ToolError("no resource " + uri + " (Loupe has " + RECENT_FLOWS + " and " + CA_CERTIFICATE
            + ")");
      };
    } catch (ToolError e) {
      error = e.getMessage();
      throw new io.modelcontextprotocol.spec.McpError(new McpSchema.JSONRPCResponse.JSONRPCError(
          McpSchema.ErrorCodes.INVALID_PARAMS, error, null));
    } finally {
      log.record(transport, "read " + uri, "", error, Duration.ofNanos(System.nanoTime() - start));
    }
  }

  private JsonNode recentFlows() {
    JsonNode all = api.get("/flows", LoupeApi.query("limit", String.valueOf(Integer.MAX_VALUE)));
    ArrayNode recent = LoupeApi.JSON.createArrayNode();
    for (int i = Math.max(0, all.size() - RECENT); i < all.size(); i++) {
      recent.add(all.get(i));
    }
    return Bodies.compact(options.redaction().redact(recent));
  }

  private static McpSchema.ReadResourceResult text(String uri, String mime, String text) {
    return new McpSchema.ReadResourceResult(List.of(new McpSchema.TextResourceContents(uri, mime, text)));
  }

  private static String text(JsonNode answer) {
    if (answer.isTextual()) {
      return answer.asText();
    }
    try {
      return LoupeApi.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static String version() {
    String v = LoupeMcp.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
