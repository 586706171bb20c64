package dev.loupe.app.ctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code loupe ctl}'s human-readable output: aligned tables and flow details. */
final class CtlOutput {
  /** URLs longer than this are cut in tables (the full URL is in {@code --json} and {@code flow ID}). */
  static final int URL_WIDTH = 80;

  private CtlOutput() {}

  static String pretty(JsonNode n) {
    try {
      return CtlCommand.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code ID  METHOD  STATUS  STATE  PROTO  URL}, one flow a line. */
  static void flowTable(PrintStream out, JsonNode flows) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "METHOD", "STATUS", "STATE", "PROTO", "NOTE", "URL"});
    for (JsonNode f : flows) {
      String note = f.path("paused").isTextual() ? "paused:" + f.get("paused").asText()
          : f.path("error").isTextual() ? f.get("error").asText()
          : f.path("replayOf").canConvertToLong() && !f.path("replayOf").isNull() ? "replay of " + f.get("replayOf").asText()
          : f.path("modifiedBy").isEmpty() ? "" : "modified";
      rows.add(new String[] {f.path("id").asText(), f.path("method").asText("-"),
          f.path("status").isNull() ? "-" : f.path("status").asText("-"), f.path("state").asText(),
          shortProto(f.path("clientProtocol").asText(null)) + "/" + shortProto(f.path("serverProtocol").asText(null)),
          note, cut(f.path("url").asText(""), URL_WIDTH)});
    }
    table(out, rows);
    if (flows.isEmpty()) {
      out.println("(no flows)");
    }
  }

  /** Rules or breakpoints: {@code ID  ON  NAME  FILTER  WHAT}. */
  static void entryTable(PrintStream out, JsonNode entries) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"ID", "ON", "NAME", "FILTER", "WHAT"});
    for (JsonNode e : entries) {
      String what = e.has("action") ? e.path("action").path("type").asText()
          : (e.path("request").asBoolean() ? "request" : "") + (e.path("request").asBoolean()
              && e.path("response").asBoolean() ? "+" : "") + (e.path("response").asBoolean() ? "response" : "");
      rows.add(new String[] {e.path("id").asText(), e.path("enabled").asBoolean() ? "yes" : "no",
          e.path("name").asText(""), e.path("filter").asText(""), what});
    }
    table(out, rows);
    if (entries.isEmpty()) {
      out.println("(none)");
    }
  }

  /** Paused flows: {@code FLOW  PHASE  SINCE  METHOD  URL}. */
  static void pausedTable(PrintStream out, JsonNode paused) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"FLOW", "PHASE", "SINCE", "METHOD", "URL"});
    for (JsonNode p : paused) {
      rows.add(new String[] {p.path("flowId").asText(), p.path("phase").asText(), p.path("since").asText(),
          p.path("request").path("method").asText(), cut(p.path("request").path("url").asText(), URL_WIDTH)});
    }
    table(out, rows);
    if (paused.isEmpty()) {
      out.println("(nothing paused)");
    }
  }

  /** {@code key: value} lines for a flat object. */
  static void keyValues(PrintStream out, JsonNode o) {
    int w = 0;
    for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
      w = Math.max(w, it.next().length());
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      out.println(pad(e.getKey() + ":", w + 1) + " " + (v.isValueNode() ? v.asText() : v.toString()));
    }
  }

  /** One flow as a person reads it: the summary, each message with its headers and body, timings, connections. */
  static void flow(PrintStream out, JsonNode f, int maxBody) {
    out.println("flow " + f.path("id").asText() + "  " + f.path("state").asText() + "  " + f.path("tier").asText()
        + "  " + f.path("clientProtocol").asText("-") + "/" + f.path("serverProtocol").asText("-")
        + "  started " + f.path("startedAt").asText());
    if (f.path("error").isTextual()) {
      out.println("error: " + f.get("error").asText());
    }
    if (f.path("paused").isTextual()) {
      out.println("paused: " + f.get("paused").asText());
    }
    if (!f.path("modifiedBy").isEmpty()) {
      out.println("modified by: " + f.get("modifiedBy"));
    }
    message(out, "request", f.get("request"), maxBody);
    message(out, "response", f.get("response"), maxBody);
    for (String side : new String[] {"originalRequest", "originalResponse"}) {
      if (f.hasNonNull(side)) {
        message(out, side.equals("originalRequest") ? "original request" : "original response", f.get(side), maxBody);
      }
    }
    JsonNode t = f.path("timings");
    if (t.isObject()) {
      StringBuilder sb = new StringBuilder("\ntimings (ms):");
      t.fields().forEachRemaining(e -> {
        if (e.getValue().asDouble() >= 0) {
          sb.append(' ').append(e.getKey().replace("Ms", "")).append('=')
              .append(String.format(Locale.ROOT, "%.1f", e.getValue().asDouble()));
        }
      });
      out.println(sb);
    }
    connection(out, "client", f.path("clientConnection"));
    connection(out, "server", f.path("serverConnection"));
    JsonNode ws = f.path("webSocket");
    if (ws.isObject()) {
      out.println("\nWebSocket: " + ws.path("messageCount").asInt() + " messages");
      for (JsonNode m : ws.path("messages")) {
        out.println("  " + (m.path("direction").asText().equals("client") ? "->" : "<-") + " " + m.path("opcode").asText()
            + " " + m.path("length").asText() + "B " + cut(m.has("body") ? m.get("body").asText()
            : "(base64) " + m.path("bodyBase64").asText(), 100));
      }
    }
  }

  private static void message(PrintStream out, String label, JsonNode m, int maxBody) {
    if (m == null || m.isNull()) {
      return;
    }
    out.println();
    if (m.has("method")) {
      out.println("--- " + label + ": " + m.path("method").asText() + " " + m.path("url").asText() + " "
          + m.path("httpVersion").asText());
    } else {
      out.println("--- " + label + ": " + m.path("httpVersion").asText() + " " + m.path("status").asText() + " "
          + m.path("reason").asText());
    }
    for (JsonNode h : m.path("headers")) {
      out.println(h.get(0).asText() + ": " + h.get(1).asText());
    }
    long size = m.path("bodySize").asLong(-1);
    if (m.has("bodyOmitted")) {
      out.println("\n(body " + size + " bytes: " + m.get("bodyOmitted").asText() + ")");
    } else if (m.path("body").isTextual() && !m.get("body").asText().isEmpty()) {
      String body = m.get("body").asText();
      byte[] b = body.getBytes(StandardCharsets.UTF_8);
      out.println();
      out.println(b.length > maxBody ? new String(b, 0, maxBody, StandardCharsets.UTF_8)
          + "\n... (" + b.length + " bytes; 'loupe ctl body' prints all)" : body);
    } else if (m.path("bodyBase64").isTextual() && !m.get("bodyBase64").asText().isEmpty()) {
      out.println("\n(binary body, " + (size >= 0 ? size : "?") + " bytes: 'loupe ctl body' writes it out)");
    }
  }

  private static void connection(PrintStream out, String side, JsonNode c) {
    if (!c.isObject()) {
      return;
    }
    StringBuilder sb = new StringBuilder(side).append(" connection: ").append(c.path("remoteAddress").asText("?"));
    if (c.path("reused").asBoolean()) {
      sb.append(" (reused)");
    }
    JsonNode tls = c.path("tls");
    if (tls.isObject()) {
      sb.append("  ").append(tls.path("protocol").asText()).append(' ').append(tls.path("cipherSuite").asText());
      if (tls.path("alpn").isTextual()) {
        sb.append(" alpn=").append(tls.get("alpn").asText());
      }
      if (tls.path("sni").isTextual()) {
        sb.append(" sni=").append(tls.get("sni").asText());
      }
      JsonNode chain = tls.path("peerCertificates");
      if (!chain.isEmpty()) {
        sb.append("\n  certificate: ").append(chain.get(0).path("subject").asText()).append(" (issuer ")
            .append(chain.get(0).path("issuer").asText()).append(", until ").append(chain.get(0).path("notAfter").asText())
            .append(')');
      }
    }
    out.println(sb);
  }

  private static String shortProto(String p) {
    if (p == null || p.equals("null")) {
      return "-";
    }
    return switch (p.toLowerCase(Locale.ROOT)) {
      case "http/1.1", "http/1.0" -> "h1";
      case "http/2", "h2", "h2c" -> "h2";
      case "http/3", "h3" -> "h3";
      default -> p;
    };
  }

  private static String cut(String s, int max) {
    String one = s.replaceAll("[\\r\\n]+", " ");
    return one.length() <= max ? one : one.substring(0, max - 1) + "…";
  }

  private static void table(PrintStream out, List<String[]> rows) {
    int[] w = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < r.length; i++) {
        sb.append(i == r.length - 1 ? r[i] : pad(r[i], w[i]) + "  ");
      }
      out.println(sb.toString().stripTrailing());
    }
  }

  private static String pad(String s, int w) {
    return s.length() >= w ? s : s + " ".repeat(w - s.length());
  }
}
