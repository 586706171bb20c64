package dev.loupe.plugins.flowlog;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * One finished flow as one line of JSON. Fields (absent ones are null):
 * {@code id, startedAt} (ISO 8601), {@code method, url, httpVersion, status, reason,
 * clientProtocol, serverProtocol, tier} ({@code relay}, {@code full}, {@code tunnel}),
 * {@code requestBodyBytes, responseBodyBytes, durationMs, error {kind, message}, modifiedBy [],
 * notes []}, {@code webSocketMessages}, and with headers on {@code requestHeaders,
 * responseHeaders} as arrays of {@code [name, value]} pairs (order and repeats kept). Pure.
 */
final class FlowJson {
  private FlowJson() {}

  static String line(Flow f, boolean withHeaders) {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    StringBuilder sb = new StringBuilder(512);
    sb.append('{');
    field(sb, "id").append(f.id());
    field(sb, "startedAt");
    instant(sb, f.startedAt());
    field(sb, "method");
    string(sb, req == null ? null : req.method());
    field(sb, "url");
    string(sb, req == null ? null : req.url());
    field(sb, "httpVersion");
    string(sb, req == null ? null : req.httpVersion());
    field(sb, "status").append(res == null ? "null" : Integer.toString(res.status()));
    field(sb, "reason");
    string(sb, res == null ? null : res.reason());
    field(sb, "clientProtocol");
    string(sb, f.clientProtocol());
    field(sb, "serverProtocol");
    string(sb, f.serverProtocol());
    field(sb, "tier");
    string(sb, f.tier() == null ? null : f.tier().name().toLowerCase(Locale.ROOT));
    field(sb, "requestBodyBytes").append(f.requestBody().size());
    field(sb, "responseBodyBytes").append(f.responseBody().size());
    double ms = f.timings().totalMs();
    field(sb, "durationMs").append(ms < 0 ? "null" : Double.toString(Math.round(ms * 1000) / 1000.0));
    field(sb, "error");
    FlowError e = f.error();
    if (e == null) {
      sb.append("null");
    } else {
      sb.append("{\"kind\":");
      string(sb, e.kind().name().toLowerCase(Locale.ROOT));
      sb.append(",\"message\":");
      string(sb, e.message());
      sb.append('}');
    }
    field(sb, "modifiedBy");
    strings(sb, f.modifiedBy());
    field(sb, "notes");
    strings(sb, f.notes());
    field(sb, "webSocketMessages").append(f.webSocketMessages().size());
    if (withHeaders) {
      field(sb, "requestHeaders");
      headers(sb, req == null ? null : req.headers());
      field(sb, "responseHeaders");
      headers(sb, res == null ? null : res.headers());
    }
    return sb.append('}').toString();
  }

  private static StringBuilder field(StringBuilder sb, String name) {
    if (sb.length() > 1) {
      sb.append(',');
    }
    return sb.append('"').append(name).append("\":");
  }

  private static void strings(StringBuilder sb, List<String> values) {
    sb.append('[');
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      string(sb, values.get(i));
    }
    sb.append(']');
  }

  private static void headers(StringBuilder sb, Headers h) {
    if (h == null) {
      sb.append("null");
      return;
    }
    sb.append('[');
    boolean first = true;
    for (Headers.Field field : h.fields()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append('[');
      string(sb, field.name());
      sb.append(',');
      string(sb, field.value());
      sb.append(']');
    }
    sb.append(']');
  }

  /** The seconds part of the last instant written, and its text ({@code 2026-12-02T13:41:15}). */
  private static final class SecondCache {
    long epochSecond = Long.MIN_VALUE;
    String text;
  }

  private static final ThreadLocal<SecondCache> SECOND = ThreadLocal.withInitial(SecondCache::new);

  /**
   * {@code at} as a JSON string, the same text as {@link Instant#toString()} (ISO 8601, UTC, the
   * fraction in groups of three digits), without formatting the date and time again for every flow
   * of the same second (a formatter costs more than the rest of the line).
   */
  static void instant(StringBuilder sb, Instant at) {
    if (at == null) {
      sb.append("null");
      return;
    }
    SecondCache cache = SECOND.get();
    long second = at.getEpochSecond();
    if (cache.epochSecond != second) {
      String whole = Instant.ofEpochSecond(second).toString(); // "...T13:41:15Z"
      cache.text = whole.substring(0, whole.length() - 1);
      cache.epochSecond = second;
    }
    sb.append('"').append(cache.text);
    int nano = at.getNano();
    if (nano > 0) {
      sb.append('.');
      if (nano % 1_000_000 == 0) {
        pad(sb, nano / 1_000_000, 3);
      } else if (nano % 1_000 == 0) {
        pad(sb, nano / 1_000, 6);
      } else {
        pad(sb, nano, 9);
      }
    }
    sb.append("Z\"");
  }

  private static void pad(StringBuilder sb, int value, int digits) {
    for (int limit = 10, d = 1; d < digits; d++, limit *= 10) {
      if (value < limit) {
        sb.append('0');
      }
    }
    sb.append(value);
  }

  /** A JSON string (RFC 8259 §7): quotes, backslash and control characters escaped. */
  static void string(StringBuilder sb, String s) {
    if (s == null) {
      sb.append("null");
      return;
    }
    sb.append('"');
    int plain = 0;
    while (plain < s.length() && !needsEscape(s.charAt(plain))) {
      plain++;
    }
    sb.append(s, 0, plain); // most values (methods, URLs, header fields) have nothing to escape
    for (int i = plain; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 || c == '"' || c == '\\' || c == 0x2028 || c == 0x2029;
  }
}
