package dev.loupe.app.mcp;

import com.sun.net.httpserver.HttpExchange;
import dev.loupe.app.control.ControlServer;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * MCP's streamable HTTP transport at {@code /mcp} on the control listener (the JDK HTTP server the
 * control API runs on), without sessions: each POST carries one JSON-RPC message and gets its
 * answer as {@code application/json} (a notification or response gets {@code 202}). GET (a
 * server-to-client event stream) and DELETE (ending a session) answer {@code 405}, as the
 * specification allows a server without server-initiated messages to.
 *
 * <p>{@link ControlServer} checks the bearer token before a request gets here. This class also
 * refuses requests from web pages on other origins (an {@code Origin} header that is not a
 * loopback address: DNS-rebinding protection, as the MCP specification asks), bodies over
 * {@value #MAX_BODY} bytes and unsupported {@code MCP-Protocol-Version}s.
 *
 * <p>Requests run on the control server's worker threads and block there until answered.
 */
public final class McpHttpTransport implements McpStatelessServerTransport, ControlServer.Mount {
  /** The path it is served at. */
  public static final String PATH = "/mcp";
  static final int MAX_BODY = 4 << 20;

  private final McpJsonMapper mapper;
  private volatile McpStatelessServerHandler handler;
  private volatile boolean closing;

  McpHttpTransport(McpJsonMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * Serves {@code mcp} over HTTP: the mount to give {@link ControlServer#start(java.net.InetSocketAddress, String,
   * dev.loupe.app.control.ControlApi, Map)} at {@link #PATH}.
   */
  public static McpHttpTransport serve(LoupeMcp mcp) {
    McpHttpTransport t = new McpHttpTransport(mcp.mapper());
    mcp.http(t);
    return t;
  }

  @Override
  public void setMcpHandler(McpStatelessServerHandler handler) {
    this.handler = handler;
  }

  @Override
  public Mono<Void> closeGracefully() {
    return Mono.fromRunnable(() -> closing = true);
  }

  @Override
  public void serve(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestMethod().toUpperCase(Locale.ROOT);
      if (!method.equals("POST")) {
        ex.getResponseHeaders().set("Allow", "POST");
        error(ex, 405, null, McpSchema.ErrorCodes.INVALID_REQUEST, method + " is not supported at " + PATH
            + ": this server is stateless; send each JSON-RPC message as a POST");
        return;
      }
      // the whole message is read before any answer, refusals included, so the connection stays in step
      byte[] body = read(ex.getRequestBody());
      if (closing || handler == null) {
        error(ex, 503, null, McpSchema.ErrorCodes.INTERNAL_ERROR, "Loupe is shutting down");
        return;
      }
      String origin = ex.getRequestHeaders().getFirst("Origin");
      if (origin != null && !loopbackOrigin(origin)) {
        error(ex, 403, null, McpSchema.ErrorCodes.INVALID_REQUEST, "requests from web pages on " + origin
            + " are refused");
        return;
      }
      String version = ex.getRequestHeaders().getFirst(HttpHeaders.PROTOCOL_VERSION);
      if (version != null && !protocolVersions().contains(version)) {
        error(ex, 400, null, McpSchema.ErrorCodes.INVALID_REQUEST, "unsupported MCP-Protocol-Version " + version
            + " (supported: " + String.join(", ", protocolVersions()) + ")");
        return;
      }
      if (body == null) {
        ex.getResponseHeaders().set("Connection", "close"); // the rest of the message is not read
        error(ex, 413, null, McpSchema.ErrorCodes.INVALID_REQUEST, "the message is larger than " + MAX_BODY + " bytes");
        return;
      }
      McpSchema.JSONRPCMessage message;
      try {
        message = McpSchema.deserializeJsonRpcMessage(mapper, new String(body, StandardCharsets.UTF_8));
      } catch (IOException | IllegalArgumentException e) {
        error(ex, 400, null, McpSchema.ErrorCodes.PARSE_ERROR, "not a JSON-RPC message: " + e.getMessage());
        return;
      }
      McpTransportContext context = McpTransportContext.create(Map.of("transport", "http"));
      if (message instanceof McpSchema.JSONRPCRequest request) {
        McpSchema.JSONRPCResponse response;
        try {
          response = handler.handleRequest(context, request)
              .contextWrite(c -> c.put(McpTransportContext.KEY, context))
              .block();
        } catch (RuntimeException e) {
          error(ex, 500, request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, "could not handle " + request.method()
              + ": " + e.getMessage());
          return;
        }
        send(ex, 200, mapper.writeValueAsString(response));
      } else if (message instanceof McpSchema.JSONRPCNotification notification) {
        try {
          handler.handleNotification(context, notification)
              .contextWrite(c -> c.put(McpTransportContext.KEY, context))
              .block();
        } catch (RuntimeException e) {
          // a notification has no answer to carry the failure
        }
        ex.sendResponseHeaders(202, -1);
      } else {
        ex.sendResponseHeaders(202, -1); // a response to a request this server never sends
      }
    }
  }

  private static boolean loopbackOrigin(String origin) {
    try {
      String host = URI.create(origin).getHost();
      return host != null && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]")
          || host.equals("::1"));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static byte[] read(InputStream in) throws IOException {
    byte[] b = in.readNBytes(MAX_BODY + 1);
    return b.length > MAX_BODY ? null : b;
  }

  /**
   * A JSON-RPC error answer. Written here rather than with the SDK's response type, which refuses
   * the {@code null} id JSON-RPC 2.0 prescribes when the request's id is not known.
   */
  private static void error(HttpExchange ex, int status, Object id, int code, String message) throws IOException {
    com.fasterxml.jackson.databind.node.ObjectNode r = LoupeApi.object();
    r.put("jsonrpc", McpSchema.JSONRPC_VERSION);
    r.set("id", LoupeApi.JSON.valueToTree(id));
    r.putObject("error").put("code", code).put("message", message);
    send(ex, status, r.toString());
  }

  private static void send(HttpExchange ex, int status, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(status, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }
}
