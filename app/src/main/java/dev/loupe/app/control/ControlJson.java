package dev.loupe.app.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.intercept.ContentCoding;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The control API's JSON shapes: flow summaries and details, request and response drafts (read and
 * written the same way, so a draft read from {@code GET /paused} can be edited and sent back).
 *
 * <p>A message is {@code {"method", "url", "httpVersion", "headers": [[name, value], ...], "body"}}
 * (request) or {@code {"status", "reason", "httpVersion", "headers", "body"}} (response); the body is
 * {@code "body"} (text) when it is valid UTF-8, else {@code "bodyBase64"}. Bodies are shown as an
 * editor sees them: decoded when their {@code Content-Encoding} is gzip or deflate (Loupe encodes
 * edited bodies again and fixes {@code Content-Length}).
 */
final class ControlJson {
  static final ObjectMapper MAPPER = JsonMapper.builder().build();
  /** Captured bodies larger than this are left out of {@code GET /flows/ID} (their size is given). */
  static final long MAX_BODY_SHOWN = 16L << 20;

  private static final Set<String> REQUEST_FIELDS = Set.of("method", "url", "httpVersion", "headers", "body",
      "bodyBase64");
  private static final Set<String> RESPONSE_FIELDS = Set.of("status", "reason", "httpVersion", "headers", "body",
      "bodyBase64");

  private ControlJson() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  /** Parses a request body as JSON; an empty body gives null. */
  static JsonNode parse(byte[] body) {
    if (body.length == 0) {
      return null;
    }
    try {
      JsonNode n = MAPPER.readTree(body);
      return n == null || n.isMissingNode() ? null : n;
    } catch (JsonProcessingException e) {
      throw ApiError.badRequest("not valid JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw ApiError.badRequest("could not read the request body: " + e.getMessage());
    }
  }

  /** Like {@link #parse(byte[])} for text, with {@link IllegalArgumentException} for bad JSON. */
  static JsonNode parseText(String json) {
    try {
      return parse(json.getBytes(StandardCharsets.UTF_8));
    } catch (ApiError e) {
      throw new IllegalArgumentException(e.getMessage());
    }
  }

  /** Checks that {@code n} is a JSON array of objects (rules or breakpoints). */
  static ArrayNode requireArrayOfObjects(JsonNode n, String what) {
    if (!(n instanceof ArrayNode a)) {
      throw ApiError.badRequest(what + " must be a JSON array");
    }
    for (int i = 0; i < a.size(); i++) {
      if (!a.get(i).isObject()) {
        throw ApiError.badRequest(what + ": entry " + (i + 1) + " must be a JSON object, got " + a.get(i));
      }
    }
    return a;
  }

  /**
   * A copy of the array of rules or breakpoints where entries that do not say {@code "enabled"} are
   * enabled (a rule written by hand without it should act, not sit there switched off).
   */
  static ArrayNode enabledByDefault(ArrayNode entries) {
    ArrayNode out = entries.deepCopy();
    for (JsonNode e : out) {
      if (e instanceof ObjectNode o && !o.has("enabled")) {
        o.put("enabled", true);
      }
    }
    return out;
  }

  static ObjectNode requireObject(JsonNode n, String what) {
    if (!(n instanceof ObjectNode o)) {
      throw ApiError.badRequest(what + " must be a JSON object");
    }
    return o;
  }

  /** Lower-case enum name, or null. */
  static String name(Enum<?> e) {
    return e == null ? null : e.name().toLowerCase(Locale.ROOT);
  }

  // ---- flows ----

  /** One line of {@code GET /flows}. */
  static ObjectNode summary(Flow f) {
    ObjectNode o = object();
    RequestHead req = f.request();
    ResponseHead res = f.response();
    o.put("id", f.id());
    o.put("startedAt", f.startedAt().toString());
    o.put("method", req == null ? null : req.method());
    o.put("url", req == null ? null : req.url());
    if (res == null) {
      o.putNull("status");
    } else {
      o.put("status", res.status());
    }
    o.put("state", name(f.state()));
    o.put("tier", name(f.tier()));
    o.put("paused", name(f.paused()));
    ArrayNode by = o.putArray("modifiedBy");
    f.modifiedBy().forEach(by::add);
    ArrayNode notes = o.putArray("notes");
    f.notes().forEach(notes::add);
    if (f.replayOf() < 0) {
      o.putNull("replayOf");
    } else {
      o.put("replayOf", f.replayOf());
    }
    o.put("clientProtocol", f.clientProtocol());
    o.put("serverProtocol", f.serverProtocol());
    FlowError e = f.error();
    o.put("error", e == null ? null : name(e.kind()) + ": " + e.message());
    return o;
  }

  /** {@code GET /flows/ID}: the summary plus heads, bodies and what a rule or breakpoint changed. */
  static ObjectNode detail(Flow f) {
    ObjectNode o = summary(f);
    RequestHead req = f.request();
    ResponseHead res = f.response();
    o.set("request", req == null ? null : request(req, f.requestBody()));
    o.set("response", res == null ? null : response(res, f.responseBody()));
    if (f.originalRequest() != null) {
      o.set("originalRequest", request(f.originalRequest(),
          f.originalRequestBody() != null ? f.originalRequestBody() : f.requestBody()));
    }
    if (f.originalResponse() != null) {
      o.set("originalResponse", response(f.originalResponse(),
          f.originalResponseBody() != null ? f.originalResponseBody() : f.responseBody()));
    }
    if (!f.requestTrailers().isEmpty()) {
      o.set("requestTrailers", headers(f.requestTrailers()));
    }
    if (!f.responseTrailers().isEmpty()) {
      o.set("responseTrailers", headers(f.responseTrailers()));
    }
    ControlFlowJson.addExtras(o, f);
    return o;
  }

  private static ObjectNode request(RequestHead h, Body body) {
    ObjectNode o = object();
    o.put("method", h.method());
    o.put("url", h.url());
    o.put("httpVersion", h.httpVersion());
    o.set("headers", headers(h.headers()));
    body(o, h.headers(), body);
    return o;
  }

  private static ObjectNode response(ResponseHead h, Body body) {
    ObjectNode o = object();
    o.put("status", h.status());
    o.put("reason", h.reason());
    o.put("httpVersion", h.httpVersion());
    o.set("headers", headers(h.headers()));
    body(o, h.headers(), body);
    return o;
  }

  private static void body(ObjectNode o, Headers headers, Body body) {
    if (body == null) {
      putBody(o, new byte[0]);
      o.put("bodySize", 0);
      return;
    }
    o.put("bodySize", body.size());
    if (body.truncated()) {
      o.put("truncated", true);
    }
    if (body.capturedSize() > MAX_BODY_SHOWN) {
      o.put("bodyOmitted", "larger than " + MAX_BODY_SHOWN + " bytes");
      return;
    }
    byte[] wire = body.bytes();
    putBody(o, body.truncated() ? wire : ContentCoding.decodeOrKeep(headers, wire));
  }

  // ---- drafts ----

  static ObjectNode request(RequestDraft d) {
    ObjectNode o = object();
    o.put("method", d.method());
    o.put("url", d.url());
    o.put("httpVersion", d.httpVersion());
    o.set("headers", headers(d.headers()));
    putBody(o, d.body());
    return o;
  }

  static ObjectNode response(ResponseDraft d) {
    ObjectNode o = object();
    o.put("status", d.status());
    o.put("reason", d.reason());
    o.put("httpVersion", d.httpVersion());
    o.set("headers", headers(d.headers()));
    putBody(o, d.body());
    return o;
  }

  static ObjectNode paused(PausedFlow p) {
    ObjectNode o = object();
    o.put("flowId", p.flow().id());
    o.put("phase", name(p.phase()));
    o.put("since", p.since().toString());
    o.set("request", request(p.request()));
    o.set("response", p.response() == null ? null : response(p.response()));
    o.set("flow", summary(p.flow()));
    return o;
  }

  /**
   * {@code base} with the fields {@code n} gives replaced (headers replace all headers). With no
   * base, {@code url} is required and the method defaults to GET.
   *
   * @param extra further field names the caller reads itself (e.g. {@code protocol})
   */
  static RequestDraft requestDraft(ObjectNode n, RequestDraft base, Set<String> extra) {
    checkFields(n, REQUEST_FIELDS, extra, "request");
    RequestDraft d = base != null ? base
        : new RequestDraft("GET", requiredText(n, "url"), "HTTP/1.1", Headers.EMPTY, null);
    if (n.has("method")) {
      d = d.withMethod(text(n, "method"));
    }
    if (n.has("url")) {
      d = d.withUrl(text(n, "url"));
    }
    if (n.has("httpVersion")) {
      d = new RequestDraft(d.method(), d.url(), text(n, "httpVersion"), d.headers(), d.body());
    }
    if (n.has("headers")) {
      d = d.withHeaders(headers(n.get("headers")));
    }
    byte[] body = body(n);
    if (body != null) {
      d = d.withBody(body);
    }
    try {
      d.toHead();
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(e.getMessage());
    }
    return d;
  }

  /** Like {@link #requestDraft} for a response; with no base, a 200 with a text/plain content type. */
  static ResponseDraft responseDraft(ObjectNode n, ResponseDraft base) {
    checkFields(n, RESPONSE_FIELDS, Set.of(), "response");
    ResponseDraft d = base != null ? base : ResponseDraft.text(200, "");
    try {
      if (n.has("status")) {
        JsonNode s = n.get("status");
        if (!s.isInt()) {
          throw ApiError.badRequest("status must be a number, got " + s);
        }
        d = d.withStatus(s.intValue());
      }
      if (n.has("reason")) {
        d = new ResponseDraft(d.status(), text(n, "reason"), d.httpVersion(), d.headers(), d.body());
      }
      if (n.has("httpVersion")) {
        d = new ResponseDraft(d.status(), d.reason(), text(n, "httpVersion"), d.headers(), d.body());
      }
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(e.getMessage());
    }
    if (d.reason().indexOf('\r') >= 0 || d.reason().indexOf('\n') >= 0) {
      throw ApiError.badRequest("the reason phrase cannot contain line breaks");
    }
    if (n.has("headers")) {
      d = d.withHeaders(headers(n.get("headers")));
    }
    byte[] body = body(n);
    if (body != null) {
      d = d.withBody(body);
    }
    return d;
  }

  private static void checkFields(ObjectNode n, Set<String> known, Set<String> extra, String what) {
    for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f) && !extra.contains(f)) {
        List<String> all = new ArrayList<>(known);
        all.addAll(extra);
        all.sort(null);
        throw ApiError.badRequest("unknown " + what + " field \"" + f + "\" (known: " + String.join(", ", all) + ")");
      }
    }
  }

  static String text(ObjectNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || !v.isTextual()) {
      throw ApiError.badRequest(field + " must be a string");
    }
    return v.textValue();
  }

  private static String requiredText(ObjectNode n, String field) {
    if (!n.has(field)) {
      throw ApiError.badRequest(field + " is required");
    }
    return text(n, field);
  }

  /** {@code "body"} (text, sent as UTF-8) or {@code "bodyBase64"}, or null when neither is given. */
  private static byte[] body(ObjectNode n) {
    if (n.has("body") && n.has("bodyBase64")) {
      throw ApiError.badRequest("give body or bodyBase64, not both");
    }
    if (n.has("body")) {
      return text(n, "body").getBytes(StandardCharsets.UTF_8);
    }
    if (n.has("bodyBase64")) {
      try {
        return Base64.getMimeDecoder().decode(text(n, "bodyBase64"));
      } catch (IllegalArgumentException e) {
        throw ApiError.badRequest("bodyBase64 is not base64: " + e.getMessage());
      }
    }
    return null;
  }

  static void putBody(ObjectNode o, byte[] body) {
    String text = utf8(body);
    if (text != null) {
      o.put("body", text);
    } else {
      o.put("bodyBase64", Base64.getEncoder().encodeToString(body));
    }
  }

  /** The bytes as text when they are valid UTF-8, else null. */
  private static String utf8(byte[] b) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  static ArrayNode headers(Headers h) {
    ArrayNode a = array();
    for (Headers.Field f : h.fields()) {
      a.addArray().add(f.name()).add(f.value());
    }
    return a;
  }

  /** {@code [[name, value], ...]} or {@code {"name": "value" | ["v1", "v2"], ...}}, validated. */
  static Headers headers(JsonNode n) {
    List<Headers.Field> fields = new ArrayList<>();
    if (n.isArray()) {
      for (JsonNode pair : n) {
        if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isTextual() || !pair.get(1).isTextual()) {
          throw ApiError.badRequest("headers must be [[name, value], ...] with string names and values, got " + pair);
        }
        fields.add(field(pair.get(0).textValue(), pair.get(1).textValue()));
      }
    } else if (n.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        JsonNode v = e.getValue();
        if (v.isTextual()) {
          fields.add(field(e.getKey(), v.textValue()));
        } else if (v.isArray()) {
          for (JsonNode one : v) {
            if (!one.isTextual()) {
              throw ApiError.badRequest("header " + e.getKey() + ": values must be strings");
            }
            fields.add(field(e.getKey(), one.textValue()));
          }
        } else {
          throw ApiError.badRequest("header " + e.getKey() + ": value must be a string or an array of strings");
        }
      }
    } else {
      throw ApiError.badRequest("headers must be [[name, value], ...] or an object");
    }
    return Headers.of(fields);
  }

  private static Headers.Field field(String name, String value) {
    if (name.isEmpty() || !name.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
      throw ApiError.badRequest("invalid header name: \"" + name + "\"");
    }
    if (value.chars().anyMatch(c -> c == '\r' || c == '\n' || c == 0)) {
      throw ApiError.badRequest("header " + name + ": a value cannot contain line breaks or NUL");
    }
    return new Headers.Field(name, value);
  }
}
