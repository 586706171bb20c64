package dev.loupe.app.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Hides secrets in what the MCP server tells an agent: values of credential headers
 * ({@code Authorization}, {@code Proxy-Authorization}, {@code Cookie}, {@code Set-Cookie}, API-key
 * and token headers), of query parameters, form fields and JSON members whose names say they are
 * secrets ({@code api_key}, {@code access_token}, {@code password}, ...), and of cookies. A hidden
 * value becomes {@value #MARK} (an {@code Authorization} value keeps its scheme:
 * {@code Bearer [REDACTED]}), so an agent still sees that a credential was sent and where.
 *
 * <p>It works on the control API's JSON (header pairs {@code [[name, value], ...]}, {@code url},
 * {@code body}) and on HAR ({@code {"name", "value"}} objects, {@code cookies}, {@code text}),
 * walking the tree, so every tool and resource goes through the same code. When an agent sends a
 * header or URL it got redacted back (resuming an edited request), {@link #restoreHeaders} and
 * {@link #restoreUrl} put the real values back, so redaction never changes traffic.
 *
 * <p>Stateless and thread-safe; {@link #OFF} passes everything through.
 */
final class Redactor {
  static final String MARK = "[REDACTED]";
  static final Redactor ON = new Redactor(true);
  static final Redactor OFF = new Redactor(false);

  private static final Pattern SECRET_HEADER = Pattern.compile(
      "(?i)^(authorization|proxy-authorization|cookie|set-cookie|set-cookie2)$"
          + "|(?i)(api[-_]?key|token|secret|password|passwd|credential|signature|session|auth)");
  private static final Pattern SECRET_NAME = Pattern.compile(
      "(?i)(api[-_]?key|apikey|token|secret|password|passwd|pwd|credential|signature|session[-_]?id|sessid"
          + "|authorization)|(?i)^(key|auth|sig|code|jwt|otp|pin)$");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final boolean on;

  private Redactor(boolean on) {
    this.on = on;
  }

  boolean on() {
    return on;
  }

  /** {@code n} with secrets hidden (a copy when anything changed; {@code n} itself is never modified). */
  JsonNode redact(JsonNode n) {
    if (!on || n == null) {
      return n;
    }
    JsonNode copy = n.deepCopy();
    walk(copy, null);
    return copy;
  }

  static boolean secretHeader(String name) {
    return SECRET_HEADER.matcher(name).find() && !name.equalsIgnoreCase("content-security-policy");
  }

  static boolean secretName(String name) {
    return SECRET_NAME.matcher(name).find();
  }

  private void walk(JsonNode n, String field) {
    if (n instanceof ObjectNode o) {
      // a HAR name/value pair (header, cookie, query parameter, form field)
      if (o.path("name").isTextual() && o.path("value").isTextual()) {
        String name = o.get("name").asText();
        boolean secret = "cookies".equals(field) || (isHeaderField(field) ? secretHeader(name) : secretName(name));
        if (secret) {
          o.put("value", hide(name, o.get("value").asText()));
        }
      }
      List<String> names = new ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      for (String k : names) {
        JsonNode v = o.get(k);
        if (v.isTextual()) {
          String t = v.asText();
          switch (k) {
            case "url" -> o.put(k, redactUrl(t));
            case "body", "text" -> o.put(k, redactBody(t));
            default -> { }
          }
        } else {
          walk(v, k);
        }
      }
    } else if (n instanceof ArrayNode a) {
      for (int i = 0; i < a.size(); i++) {
        JsonNode e = a.get(i);
        if (isHeaderField(field) && e.isArray() && e.size() == 2 && e.get(0).isTextual() && e.get(1).isTextual()) {
          if (secretHeader(e.get(0).asText())) {
            ((ArrayNode) e).set(1, TextNode.valueOf(hide(e.get(0).asText(), e.get(1).asText())));
          }
        } else {
          walk(e, field);
        }
      }
    }
  }

  private static boolean isHeaderField(String field) {
    return field != null && (field.equals("headers") || field.endsWith("Trailers") || field.equals("trailers"));
  }

  private static String hide(String name, String value) {
    if (name.equalsIgnoreCase("authorization") || name.equalsIgnoreCase("proxy-authorization")) {
      int sp = value.indexOf(' ');
      if (sp > 0) {
        return value.substring(0, sp) + " " + MARK; // keep the scheme: Bearer, Basic, Digest ...
      }
    }
    return MARK;
  }

  /** The URL with the values of secret-looking query parameters hidden. */
  String redactUrl(String url) {
    if (!on) {
      return url;
    }
    int q = url.indexOf('?');
    if (q < 0) {
      return url;
    }
    int hash = url.indexOf('#', q);
    String query = hash < 0 ? url.substring(q + 1) : url.substring(q + 1, hash);
    String rest = hash < 0 ? "" : url.substring(hash);
    return url.substring(0, q + 1) + redactPairs(query, '&') + rest;
  }

  private static String redactPairs(String pairs, char sep) {
    StringBuilder sb = new StringBuilder(pairs.length());
    int start = 0;
    while (start <= pairs.length()) {
      int end = pairs.indexOf(sep, start);
      if (end < 0) {
        end = pairs.length();
      }
      String pair = pairs.substring(start, end);
      int eq = pair.indexOf('=');
      if (eq > 0 && secretName(decode(pair.substring(0, eq)))) {
        sb.append(pair, 0, eq + 1).append(MARK);
      } else {
        sb.append(pair);
      }
      if (end < pairs.length()) {
        sb.append(sep);
      }
      start = end + 1;
    }
    return sb.toString();
  }

  private static String decode(String s) {
    try {
      return java.net.URLDecoder.decode(s, java.nio.charset.StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }

  /** A JSON body with secret members hidden, a form body with secret fields hidden; other text unchanged. */
  String redactBody(String body) {
    if (!on || body.isEmpty()) {
      return body;
    }
    String t = body.strip();
    if ((t.startsWith("{") && t.endsWith("}")) || (t.startsWith("[") && t.endsWith("]"))) {
      try {
        JsonNode n = JSON.readTree(t);
        if (hideMembers(n)) {
          return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n);
        }
        return body;
      } catch (java.io.IOException e) {
        return body;
      }
    }
    if (t.indexOf('=') > 0 && t.indexOf(' ') < 0 && t.indexOf('\n') < 0) { // looks like a form body
      return redactPairs(body, '&');
    }
    return body;
  }

  /** Hides secret members throughout a JSON document; whether anything was hidden. */
  private static boolean hideMembers(JsonNode n) {
    boolean changed = false;
    if (n instanceof ObjectNode o) {
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (secretName(e.getKey()) && (e.getValue().isValueNode() && !e.getValue().isNull())) {
          e.setValue(TextNode.valueOf(MARK));
          changed = true;
        } else {
          changed |= hideMembers(e.getValue());
        }
      }
    } else if (n instanceof ArrayNode a) {
      for (JsonNode e : a) {
        changed |= hideMembers(e);
      }
    }
    return changed;
  }

  /**
   * {@code sent} headers ({@code [[name, value], ...]}) with every value an agent got redacted and
   * sent back replaced by the real value from {@code original} (same name, in order).
   */
  static ArrayNode restoreHeaders(ArrayNode sent, JsonNode original) {
    Map<String, List<String>> real = new HashMap<>();
    if (original instanceof ArrayNode a) {
      for (JsonNode pair : a) {
        if (pair.isArray() && pair.size() == 2) {
          real.computeIfAbsent(pair.get(0).asText().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
              .add(pair.get(1).asText());
        }
      }
    }
    Map<String, Integer> used = new HashMap<>();
    ArrayNode out = sent.deepCopy();
    for (JsonNode pair : out) {
      if (pair instanceof ArrayNode p && p.size() == 2 && p.get(1).asText().contains(MARK)) {
        String key = p.get(0).asText().toLowerCase(Locale.ROOT);
        List<String> values = real.getOrDefault(key, List.of());
        int i = used.merge(key, 1, Integer::sum) - 1;
        if (i < values.size()) {
          p.set(1, TextNode.valueOf(values.get(i)));
        }
      }
    }
    return out;
  }

  /** {@code sent} with query values an agent got redacted replaced by those of {@code original} (by name). */
  static String restoreUrl(String sent, String original) {
    if (sent == null || original == null || !sent.contains(MARK)) {
      return sent;
    }
    int oq = original.indexOf('?');
    Map<String, String> real = new HashMap<>();
    if (oq >= 0) {
      String q = original.substring(oq + 1);
      int hash = q.indexOf('#');
      for (String pair : (hash < 0 ? q : q.substring(0, hash)).split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          real.putIfAbsent(pair.substring(0, eq), pair.substring(eq + 1));
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    int q = sent.indexOf('?');
    sb.append(sent, 0, q + 1);
    String rest = sent.substring(q + 1);
    String[] pairs = rest.split("&", -1);
    for (int i = 0; i < pairs.length; i++) {
      String pair = pairs[i];
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(eq + 1).startsWith(MARK) && real.containsKey(pair.substring(0, eq))) {
        pair = pair.substring(0, eq + 1) + real.get(pair.substring(0, eq)) + pair.substring(eq + 1 + MARK.length());
      }
      sb.append(i > 0 ? "&" : "").append(pair);
    }
    return sb.toString();
  }
}
