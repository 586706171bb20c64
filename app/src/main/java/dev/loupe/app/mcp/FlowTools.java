package dev.loupe.app.mcp;

import static dev.loupe.app.mcp.Schemas.bool;
import static dev.loupe.app.mcp.Schemas.headers;
import static dev.loupe.app.mcp.Schemas.integer;
import static dev.loupe.app.mcp.Schemas.object;
import static dev.loupe.app.mcp.Schemas.oneOf;
import static dev.loupe.app.mcp.Schemas.string;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The tools that read captured traffic and send requests: {@code list_flows}, {@code get_flow},
 * {@code get_body}, {@code export_har}, {@code replay_flow} and {@code send_request}.
 *
 * <p>Thread-safe: every call goes to the control API, which does the work.
 */
final class FlowTools {
  /** Bytes of each body {@code get_flow} shows unless told otherwise, and the most it shows. */
  static final int DEFAULT_BODY_BYTES = 8 * 1024;
  static final int MAX_BODY_BYTES = 1 << 20;
  /** {@code get_body}'s default and largest slice. */
  static final int DEFAULT_SLICE = 64 * 1024;
  /** {@code export_har} inline: the default and largest HAR given in the answer. */
  static final int DEFAULT_INLINE_HAR = 1 << 20;
  static final int MAX_INLINE_HAR = 8 << 20;

  static final String FILTER_HELP = "Loupe's filter language (mitmproxy's plus comparisons): ~d DOMAIN, ~u URL-REGEX,"
      + " ~m METHOD, ~c STATUS, ~h HEADER-REGEX, ~b BODY-REGEX, ~t CONTENT-TYPE, status>=400, duration>500ms,"
      + " size>1MB, ! & | and parentheses; a bare word is a URL regex. Put spaces around & and |.";

  private final LoupeApi api;
  private final Redactor redactor;
  private final boolean readOnly;

  FlowTools(LoupeApi api, Redactor redactor, boolean readOnly) {
    this.api = api;
    this.redactor = redactor;
    this.readOnly = readOnly;
  }

  List<LoupeTool> tools() {
    return List.of(
        new LoupeTool("list_flows", "List or search captured flows",
            "Lists captured HTTP flows (requests and their responses), oldest first, optionally selected by a filter."
                + " Each line: id, time, method, URL, status, state (in_flight, complete, failed), protocols, and"
                + " whether a rule or breakpoint changed it or it is paused. Use since=<last id seen> to get only"
                + " newer flows, newest=true for the latest ones. " + FILTER_HELP,
            object(List.of(),
                "filter", string("Filter expression, e.g. \"~d api.example.com & status>=400\" (empty: all flows)."),
                "since", integer("Only flows with an id greater than this.", 0, Long.MAX_VALUE),
                "limit", integer("At most this many flows (default 100).", 1, 1000),
                "newest", bool("The newest matching flows instead of the oldest (default false).")),
            false, this::listFlows),
        new LoupeTool("get_flow", "Read one flow",
            "Reads one flow in full: request and response heads (method, URL, status, headers), bodies (text, or"
                + " base64 when binary; gzip/deflate decoded; cut at maxBodyBytes, use get_body for the rest),"
                + " trailers, timings (DNS, connect, TLS, send, wait, receive in ms), client and server connections"
                + " (addresses, TLS version, cipher, ALPN, the origin's certificate chain), WebSocket messages, the"
                + " error of a failed flow, and what a rule or breakpoint changed (originalRequest/originalResponse).",
            object(List.of("flowId"),
                "flowId", integer("The flow's id (from list_flows).", 0, Long.MAX_VALUE),
                "maxBodyBytes", integer("Bytes of each body to include (default " + DEFAULT_BODY_BYTES + ").", 0,
                    MAX_BODY_BYTES)),
            false, this::getFlow),
        new LoupeTool("get_body", "Read a body or a slice of it",
            "Reads a request or response body of a flow, or a slice of it (offset/length), as text (UTF-8) or"
                + " base64. By default gzip/deflate are decoded; decoded=false gives the bytes as sent on the wire.",
            object(List.of("flowId"),
                "flowId", integer("The flow's id.", 0, Long.MAX_VALUE),
                "side", oneOf("Which body (default response).", "request", "response"),
                "offset", integer("First byte (default 0).", 0, Long.MAX_VALUE),
                "length", integer("Bytes to read (default " + DEFAULT_SLICE + ", at most " + MAX_BODY_BYTES + ").", 0,
                    MAX_BODY_BYTES),
                "encoding", oneOf("auto (default: text when valid UTF-8, else base64), text or base64.", "auto", "text",
                    "base64"),
                "decoded", bool("Undo gzip/deflate (default true)."),
                "original", bool("The body before a rule or breakpoint changed it (default false).")),
            false, this::getBody),
        new LoupeTool("export_har", "Export flows as HAR",
            "Exports flows as one HAR 1.2 document: written to a file (path, absolute; readable by the user"
                + " only) or returned inline when it is at most maxInlineBytes. Same selection as list_flows. "
                + FILTER_HELP,
            object(List.of(),
                "filter", string("Filter expression (empty: all flows)."),
                "since", integer("Only flows with an id greater than this.", 0, Long.MAX_VALUE),
                "limit", integer("At most this many flows (default: all selected).", 1, Integer.MAX_VALUE),
                "path", string("Absolute path of the .har file to write (its directory must exist)."),
                "maxInlineBytes", integer("Largest HAR returned inline (default " + DEFAULT_INLINE_HAR + ").", 1,
                    MAX_INLINE_HAR)),
            false, this::exportHar),
        new LoupeTool("replay_flow", "Replay a flow",
            "Sends a captured flow's request again through Loupe (a new flow, marked as a replay of the"
                + " original), optionally changed: any of method, url, headers, body replace the original's."
                + " Header and URL values shown as [REDACTED] are sent with their real values."
                + " With wait (default true) it answers when the new flow has ended.",
            object(List.of("flowId"),
                "flowId", integer("The flow to replay.", 0, Long.MAX_VALUE),
                "protocol", oneOf("auto (default: as the original went upstream), h1, h2 or h3.", "auto", "h1", "h2", "h3"),
                "method", string("A new method."),
                "url", string("A new URL."),
                "headers", headers("New headers."),
                "body", string("A new body (text, sent as UTF-8)."),
                "bodyBase64", string("A new body (base64)."),
                "wait", bool("Wait for the new flow to end (default true)."),
                "timeoutSeconds", integer("How long to wait (default 60).", 1, 600)),
            true, this::replay),
        new LoupeTool("send_request", "Send a new request",
            "Composes a request and sends it through Loupe (to any URL), as a new flow; answers with the new flow's"
                + " summary (status, state). Then read it with get_flow.",
            object(List.of("url"),
                "url", string("Absolute http:// or https:// URL."),
                "method", string("Method (default GET)."),
                "headers", headers("Headers."),
                "body", string("Body (text, sent as UTF-8)."),
                "bodyBase64", string("Body (base64)."),
                "protocol", oneOf("auto (default), h1, h2 or h3.", "auto", "h1", "h2", "h3"),
                "wait", bool("Wait for the flow to end (default true)."),
                "timeoutSeconds", integer("How long to wait (default 60).", 1, 600)),
            true, this::compose));
  }

  private JsonNode listFlows(ToolArgs a) {
    long limit = a.number("limit", 100);
    boolean newest = a.flag("newest", false);
    JsonNode all = api.get("/flows", LoupeApi.query("filter", a.text("filter", null),
        "since", a.has("since") ? String.valueOf(a.number("since", 0)) : null,
        "limit", String.valueOf(newest ? Integer.MAX_VALUE : limit + 1)));
    int from = newest ? (int) Math.max(0, all.size() - limit) : 0;
    int to = newest ? all.size() : (int) Math.min(all.size(), limit);
    com.fasterxml.jackson.databind.node.ArrayNode flows = LoupeApi.JSON.createArrayNode();
    for (int i = from; i < to; i++) {
      flows.add(all.get(i));
    }
    ObjectNode out = LoupeApi.object();
    out.put("count", flows.size());
    if (!flows.isEmpty()) {
      long last = flows.get(flows.size() - 1).path("id").asLong();
      out.put("lastId", last);
      if (!newest && all.size() > limit) {
        out.put("more", "more flows match: call again with since=" + last);
      } else if (newest && from > 0) {
        out.put("more", from + " older flows match: leave out newest (and use since) to page from the oldest");
      }
    }
    out.set("flows", Bodies.compact(redactor.redact(flows)));
    return out;
  }

  private JsonNode getFlow(ToolArgs a) {
    long id = a.flowId();
    JsonNode flow = api.get("/flows/" + id, Map.of());
    int max = (int) a.number("maxBodyBytes", DEFAULT_BODY_BYTES);
    for (String side : new String[] {"request", "response", "originalRequest", "originalResponse"}) {
      String which = side.toLowerCase(java.util.Locale.ROOT).contains("request") ? "request" : "response";
      Bodies.cut(flow.get(side), max, "read the rest with get_body flowId=" + id + " side=" + which + " offset=" + max
          + (side.startsWith("original") ? " original=true" : ""));
    }
    return Bodies.compact(redactor.redact(flow));
  }

  private JsonNode getBody(ToolArgs a) {
    long id = a.flowId();
    JsonNode body = api.get("/flows/" + id + "/body", LoupeApi.query(
        "side", a.text("side", "response"),
        "offset", String.valueOf(a.number("offset", 0)),
        "length", String.valueOf(a.number("length", DEFAULT_SLICE)),
        "encoding", a.text("encoding", "auto"),
        "decoded", String.valueOf(a.flag("decoded", true)),
        "original", String.valueOf(a.flag("original", false))));
    if (body instanceof ObjectNode o && o.path("body").isTextual()) {
      o.put("body", redactor.redactBody(o.get("body").asText()));
      long end = o.path("offset").asLong() + o.path("length").asLong();
      if (end < o.path("size").asLong()) {
        o.put("more", "bytes " + end + ".." + o.path("size").asLong() + " remain: call again with offset=" + end);
      }
    }
    return body;
  }

  private JsonNode exportHar(ToolArgs a) {
    String har = api.getText("/har", LoupeApi.query("filter", a.text("filter", null),
        "since", a.has("since") ? String.valueOf(a.number("since", 0)) : null,
        "limit", a.has("limit") ? String.valueOf(a.number("limit", 0)) : null));
    JsonNode doc;
    try {
      doc = LoupeApi.JSON.readTree(har);
    } catch (IOException e) {
      throw new ToolError("Loupe's HAR could not be read: " + e.getMessage());
    }
    int entries = doc.path("log").path("entries").size();
    if (redactor.on()) {
      doc = redactor.redact(doc);
      try {
        har = LoupeApi.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    byte[] bytes = har.getBytes(StandardCharsets.UTF_8);
    if (a.has("path")) {
      return writeHar(a.text("path", ""), bytes, entries);
    }
    long max = a.number("maxInlineBytes", DEFAULT_INLINE_HAR);
    if (bytes.length > max) {
      throw new ToolError("the HAR of " + entries + " flows is " + bytes.length + " bytes, over the inline limit of "
          + max + " bytes (maxInlineBytes, at most " + MAX_INLINE_HAR + "): select fewer flows (filter, since, limit)"
          + " or give a path to write it to");
    }
    return TextNode.valueOf(har);
  }

  private JsonNode writeHar(String where, byte[] bytes, int entries) {
    if (readOnly) {
      throw new ToolError("this MCP server is read-only (--mcp-read-only): it does not write files; export inline"
          + " (leave out path)");
    }
    Path p;
    try {
      p = Path.of(where);
    } catch (InvalidPathException e) {
      throw new ToolError("path is not a valid path: " + e.getMessage());
    }
    if (!p.isAbsolute()) {
      throw new ToolError("path must be absolute, got \"" + where + "\"");
    }
    if (p.getParent() == null || !Files.isDirectory(p.getParent())) {
      throw new ToolError("the directory " + p.getParent() + " does not exist");
    }
    try {
      AtomicFiles.write(p, bytes);
    } catch (IOException e) {
      throw new ToolError("cannot write " + p + ": " + e.getMessage());
    }
    ObjectNode o = LoupeApi.object();
    o.put("path", p.toString());
    o.put("entries", entries);
    o.put("bytes", bytes.length);
    o.put("redacted", redactor.on());
    return o;
  }

  private JsonNode replay(ToolArgs a) {
    long id = a.flowId();
    ObjectNode body = draft(a, "method", "url", "headers", "body", "bodyBase64");
    body.put("protocol", a.text("protocol", "auto"));
    if (redactor.on() && (body.has("headers") || body.has("url"))) {
      JsonNode original = api.get("/flows/" + id, Map.of()).path("request");
      restore(body, original);
    }
    JsonNode flow = api.post("/flows/" + id + "/replay", waitQuery(a), body);
    return launched(flow);
  }

  private JsonNode compose(ToolArgs a) {
    ObjectNode body = draft(a, "method", "url", "headers", "body", "bodyBase64");
    body.put("protocol", a.text("protocol", "auto"));
    return launched(api.post("/compose", waitQuery(a), body));
  }

  /** The new flow's summary, redacted, with where to read it. */
  private JsonNode launched(JsonNode flow) {
    ObjectNode out = (ObjectNode) Bodies.compact(redactor.redact(flow));
    out.put("next", "read it with get_flow flowId=" + flow.path("id").asLong());
    return out;
  }

  private static Map<String, String> waitQuery(ToolArgs a) {
    return LoupeApi.query("wait", String.valueOf(a.flag("wait", true)),
        "timeout", String.valueOf(a.number("timeoutSeconds", 60)));
  }

  /** The given draft fields of the arguments, as the control API takes them. */
  static ObjectNode draft(ToolArgs a, String... fields) {
    ObjectNode o = LoupeApi.object();
    for (String f : fields) {
      if (a.has(f)) {
        o.set(f, a.get(f));
      }
    }
    return o;
  }

  /**
   * Puts real values back where an agent sent {@code [REDACTED]} (headers in pair or object form,
   * query values in the URL), from {@code original} (a draft or a flow's request).
   */
  static void restore(ObjectNode draft, JsonNode original) {
    JsonNode h = draft.get("headers");
    if (h instanceof ObjectNode byName) {
      ArrayNode pairs = LoupeApi.JSON.createArrayNode();
      byName.fields().forEachRemaining(e -> {
        if (e.getValue().isArray()) {
          e.getValue().forEach(v -> pairs.addArray().add(e.getKey()).add(v.asText()));
        } else {
          pairs.addArray().add(e.getKey()).add(e.getValue().asText());
        }
      });
      h = pairs;
    }
    if (h instanceof ArrayNode pairs) {
      draft.set("headers", Redactor.restoreHeaders(pairs, original.get("headers")));
    }
    if (draft.path("url").isTextual()) {
      draft.put("url", Redactor.restoreUrl(draft.get("url").asText(), original.path("url").asText(null)));
    }
  }
}
