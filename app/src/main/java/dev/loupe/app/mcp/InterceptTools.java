package dev.loupe.app.mcp;

import static dev.loupe.app.mcp.Schemas.anyObject;
import static dev.loupe.app.mcp.Schemas.bool;
import static dev.loupe.app.mcp.Schemas.headers;
import static dev.loupe.app.mcp.Schemas.integer;
import static dev.loupe.app.mcp.Schemas.object;
import static dev.loupe.app.mcp.Schemas.string;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The tools for rules, breakpoints and paused flows: {@code list_rules}, {@code add_rule},
 * {@code remove_rule}, {@code list_breakpoints}, {@code add_breakpoint}, {@code remove_breakpoint},
 * {@code list_paused}, {@code resume_flow}, {@code abort_flow} and {@code answer_flow}.
 *
 * <p>Thread-safe: every call goes to the control API.
 */
final class InterceptTools {
  private final LoupeApi api;
  private final Redactor redactor;

  InterceptTools(LoupeApi api, Redactor redactor) {
    this.api = api;
    this.redactor = redactor;
  }

  List<LoupeTool> tools() {
    return List.of(
        new LoupeTool("list_rules", "List rules",
            "Lists Loupe's rules in the order they apply: id, name, filter, enabled, action (mapLocal, mapRemote,"
                + " rewrite, block, throttle).",
            object(List.of()), false, a -> api.get("/rules", Map.of())),
        new LoupeTool("add_rule", "Add a rule",
            "Adds a rule that changes matching traffic. The rule is JSON: {\"name\", \"filter\", \"action\"}; actions:"
                + " {\"type\":\"rewrite\",\"ops\":[{\"side\":\"REQUEST|RESPONSE\",\"kind\":\"SET_HEADER|ADD_HEADER|"
                + "REMOVE_HEADER|REPLACE_URL|REPLACE_QUERY|REPLACE_BODY|SET_STATUS\",\"match\":..,\"value\":..}]},"
                + " {\"type\":\"mapRemote\",\"url\":..,\"keepPath\":true}, {\"type\":\"mapLocal\",\"path\":..},"
                + " {\"type\":\"block\",\"mode\":\"RESPOND|CLOSE|RESET\",\"status\":403},"
                + " {\"type\":\"throttle\",\"bytesPerSecond\":..,\"latencyMillis\":..}. Answers the rule with its id.",
            object(List.of("rule"), "rule", anyObject("The rule, e.g. {\"name\": \"tag\", \"filter\": \"~d"
                + " api.example.com\", \"action\": {\"type\": \"rewrite\", \"ops\": [{\"side\": \"REQUEST\", \"kind\":"
                + " \"SET_HEADER\", \"match\": \"X-Debug\", \"value\": \"1\"}]}}.")),
            true, a -> api.post("/rules", Map.of(), a.get("rule"))),
        new LoupeTool("remove_rule", "Remove a rule", "Removes the rule with this id (from list_rules): it changes no further traffic.",
            object(List.of("id"), "id", string("The rule's id.")), true, a -> removed("/rules/", a.text("id", ""))),
        new LoupeTool("list_breakpoints", "List breakpoints",
            "Lists breakpoints: id, name, filter, whether they stop requests and/or responses, enabled.",
            object(List.of()), false, a -> api.get("/breakpoints", Map.of())),
        new LoupeTool("add_breakpoint", "Add a breakpoint",
            "Adds a breakpoint: matching flows stop before the request goes to the server (request=true) and/or"
                + " before the response goes to the client (response=true), until released with resume_flow,"
                + " abort_flow or answer_flow (see list_paused). " + FlowTools.FILTER_HELP,
            object(List.of("filter"),
                "filter", string("Which flows stop, e.g. \"~u /login & ~m POST\"."),
                "request", bool("Stop requests (default true)."),
                "response", bool("Stop responses (default false)."),
                "name", string("A name to show.")),
            true, this::addBreakpoint),
        new LoupeTool("remove_breakpoint", "Remove a breakpoint", "Removes the breakpoint with this id (from list_breakpoints): it stops no further flows.",
            object(List.of("id"), "id", string("The breakpoint's id.")), true,
            a -> removed("/breakpoints/", a.text("id", ""))),
        new LoupeTool("list_paused", "List paused flows",
            "Lists flows stopped at a breakpoint, oldest first: flowId, phase (request: not yet sent to the server;"
                + " response: not yet delivered to the client), since, and the request (and response) as they would"
                + " go on, which resume_flow can change.",
            object(List.of(), "maxBodyBytes", integer("Bytes of each body to include (default "
                + FlowTools.DEFAULT_BODY_BYTES + ").", 0, FlowTools.MAX_BODY_BYTES)),
            false, this::listPaused),
        new LoupeTool("resume_flow", "Resume a paused flow",
            "Lets a paused flow go on, unchanged or edited. In the request phase give any of method, url, headers,"
                + " body/bodyBase64 (what is left out stays as it is); in the response phase status, reason,"
                + " headers, body/bodyBase64. Header and URL values shown as [REDACTED] keep their real values.",
            object(List.of("flowId"),
                "flowId", integer("The paused flow (from list_paused).", 0, Long.MAX_VALUE),
                "method", string("Request phase: a new method."),
                "url", string("Request phase: a new URL."),
                "status", integer("Response phase: a new status.", 100, 999),
                "reason", string("Response phase: a new reason phrase."),
                "headers", headers("New headers."),
                "body", string("A new body (text, sent as UTF-8; Content-Length and gzip are handled)."),
                "bodyBase64", string("A new body (base64).")),
            true, this::resume),
        new LoupeTool("abort_flow", "Abort a paused flow",
            "Aborts a paused flow: the client's connection is closed (HTTP/1) or its stream reset (HTTP/2, HTTP/3).",
            object(List.of("flowId"), "flowId", integer("The paused flow.", 0, Long.MAX_VALUE)), true,
            a -> api.post("/paused/" + a.flowId() + "/abort", Map.of(), null)),
        new LoupeTool("answer_flow", "Answer a paused flow",
            "Answers a paused flow's client with this response instead of (further) contacting the server.",
            object(List.of("flowId"),
                "flowId", integer("The paused flow.", 0, Long.MAX_VALUE),
                "status", integer("Status (default 200).", 100, 999),
                "reason", string("Reason phrase."),
                "headers", headers("Headers."),
                "body", string("Body (text)."),
                "bodyBase64", string("Body (base64).")),
            true, a -> api.post("/paused/" + a.flowId() + "/answer", Map.of(),
                FlowTools.draft(a, "status", "reason", "headers", "body", "bodyBase64"))));
  }

  private JsonNode addBreakpoint(ToolArgs a) {
    ObjectNode b = LoupeApi.object();
    if (a.has("name")) {
      b.put("name", a.text("name", ""));
    }
    b.put("filter", a.text("filter", ""));
    b.put("request", a.flag("request", true));
    b.put("response", a.flag("response", false));
    if (!b.get("request").asBoolean() && !b.get("response").asBoolean()) {
      throw new ToolError("a breakpoint must stop requests, responses or both: set request or response to true");
    }
    return api.post("/breakpoints", Map.of(), b);
  }

  private JsonNode removed(String path, String id) {
    api.delete(path + id);
    ObjectNode o = LoupeApi.object();
    o.put("removed", id);
    return o;
  }

  private JsonNode listPaused(ToolArgs a) {
    JsonNode paused = api.get("/paused", Map.of());
    int max = (int) a.number("maxBodyBytes", FlowTools.DEFAULT_BODY_BYTES);
    for (JsonNode p : paused) {
      long id = p.path("flowId").asLong();
      Bodies.cut(p.get("request"), max, "the full body: get_body flowId=" + id + " side=request");
      Bodies.cut(p.get("response"), max, "the full body: get_body flowId=" + id + " side=response");
    }
    return Bodies.compact(redactor.redact(paused));
  }

  private JsonNode resume(ToolArgs a) {
    long id = a.flowId();
    ObjectNode edits = FlowTools.draft(a, "method", "url", "status", "reason", "headers", "body", "bodyBase64");
    if (redactor.on() && (edits.has("headers") || edits.has("url"))) {
      JsonNode paused = api.get("/paused/" + id, Map.of());
      JsonNode current = "response".equals(paused.path("phase").asText()) ? paused.get("response") : paused.get("request");
      FlowTools.restore(edits, current);
    }
    return api.post("/paused/" + id + "/resume", Map.of(), edits.isEmpty() ? null : edits);
  }
}
