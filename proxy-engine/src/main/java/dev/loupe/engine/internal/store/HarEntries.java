package dev.loupe.engine.internal.store;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.WebSocketMessage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * One HAR entry as a flow, leniently: HAR 1.2 as Chromium, Firefox, mitmproxy, Charles, Fiddler,
 * HTTP Toolkit and Loupe write it, with Loupe's and Chrome's custom fields ({@code _tier},
 * {@code _clientHttpVersion}, {@code _serverHttpVersion}, {@code _http3}, {@code _modifiedBy},
 * {@code _error}, {@code _errorKind}, {@code _trailers}, {@code _truncated}, {@code _capturedSize},
 * {@code _contentEncoding}, {@code _webSocketMessages}, {@code _resourceType}).
 *
 * <h3>Bodies</h3>
 * {@code text} with {@code "encoding": "base64"} is decoded; other text is encoded in the charset of
 * its {@code mimeType} (UTF-8 by default). HAR holds response bodies with their content coding
 * undone (except where Loupe's {@code _contentEncoding} says it is not): a gzip or deflate body is
 * compressed again so that its Content-Encoding header stays true; for other codings (br, zstd) the
 * header is dropped, as the bytes kept are not in that coding. A body the HAR has no text for counts
 * as seen and not kept (truncated).
 *
 * <h3>Timings</h3>
 * The entry's {@code timings} become readings on a made-up clock, one phase after the other, so the
 * flow's timings (and a HAR written from it) give the same numbers.
 *
 * <p>Stateless; thread-safe.
 */
final class HarEntries {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  /** The made-up clock's start (any non-zero reading would do). */
  private static final long CLOCK = 1_000_000_000_000L;

  private HarEntries() {}

  /** The entry as a flow to build (its id unset), or null when it has no usable request. */
  static FlowBuilder read(JsonNode e, int index, List<ImportReport.Problem> problems) {
    Entry en = new Entry(index, problems);
    JsonNode req = e.path("request");
    String method = req.path("method").asText("").trim();
    String url = req.path("url").asText("").trim();
    if (method.isEmpty()) {
      en.skip("request.method", req.isMissingNode() ? "the entry has no request" : "missing");
      return null;
    }
    Target target = parseUrl(method, url);
    if (target == null) {
      en.skip("request.url", url.isEmpty() ? "missing" : "not an absolute URL: " + url);
      return null;
    }
    FlowBuilder b = new FlowBuilder();
    b.startedAt = en.instant(e.path("startedDateTime"), "startedDateTime");
    String tier = e.path("_tier").asText("");
    if (!tier.isEmpty()) {
      try {
        b.tier = FlowTier.valueOf(tier.toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException bad) {
        en.ignore("_tier", "unknown tier " + tier);
      }
    }
    String reqVersion = version(req.path("httpVersion").asText(""));
    Headers reqHeaders = en.headers(req.path("headers"), "request.headers");
    b.request = new RequestHead(method, target.scheme, target.host, target.port, target.target,
        reqVersion.isEmpty() ? "HTTP/1.1" : reqVersion, reqHeaders);
    b.requestTrailers = en.headers(req.path("_trailers"), "request._trailers");
    b.clientProtocol = text(e, "_clientHttpVersion", reqVersion.isEmpty() ? null : reqVersion);
    if (b.tier == FlowTier.TUNNEL) {
      b.tunnelUp = Math.max(0, req.path("bodySize").asLong(0));
      b.tunnelDown = Math.max(0, e.path("response").path("bodySize").asLong(0));
    } else {
      b.requestBody = en.requestBody(req.path("postData"), reqHeaders, req.path("bodySize").asLong(-1));
      response(e.path("response"), b, en);
    }
    b.serverProtocol = text(e, "_serverHttpVersion", b.response == null ? null : b.response.httpVersion());
    b.http3Status = text(e, "_http3", null);
    for (JsonNode m : e.path("_modifiedBy")) {
      b.modifiedBy.add(m.asText());
    }
    b.serverConnection = server(e, target, en);
    timings(e.path("timings"), b.timings, en);
    webSocket(e, b, en);
    error(e, b);
    b.state = b.error != null ? FlowState.FAILED : FlowState.COMPLETE;
    return b;
  }

  private static void response(JsonNode res, FlowBuilder b, Entry en) {
    int status = res.path("status").asInt(0);
    if (res.isMissingNode() || status <= 0) {
      return; // HAR's stub for "no response" (status 0)
    }
    Headers headers = en.headers(res.path("headers"), "response.headers");
    JsonNode content = res.path("content");
    String coding = headers.get("content-encoding");
    boolean stillEncoded = content.has("_contentEncoding");
    StoredBody body = en.body(content, "response.content", headers.get("content-type"), res.path("bodySize").asLong(-1));
    if (coding != null && !stillEncoded && !coding.isBlank() && !coding.trim().equalsIgnoreCase("identity")) {
      byte[] encoded = body == null || body.truncated() ? null : encode(coding, bytes(body));
      if (encoded != null) {
        body = new StoredBody(encoded.length, false, encoded.length, () -> new java.io.ByteArrayInputStream(encoded));
      } else {
        headers = headers.without("content-encoding"); // the bytes kept are decoded
      }
    }
    String version = version(res.path("httpVersion").asText(""));
    b.response = new ResponseHead(status, res.path("statusText").asText(""), version.isEmpty() ? "HTTP/1.1" : version,
        headers);
    b.responseBody = body;
    b.responseTrailers = en.headers(res.path("_trailers"), "response._trailers");
  }

  /** {@code bytes} compressed with {@code coding} (gzip, x-gzip, deflate), or null for other codings. */
  private static byte[] encode(String coding, byte[] bytes) {
    String c = coding.trim().toLowerCase(Locale.ROOT);
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 2 + 64);
      switch (c) {
        case "gzip", "x-gzip" -> {
          try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(bytes);
          }
        }
        case "deflate" -> {
          try (DeflaterOutputStream z = new DeflaterOutputStream(out)) {
            z.write(bytes);
          }
        }
        default -> {
          return null;
        }
      }
      return out.toByteArray();
    } catch (IOException e) {
      return null;
    }
  }

  private static byte[] bytes(StoredBody b) {
    try (var in = b.content().open()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static ConnectionInfo server(JsonNode e, Target target, Entry en) {
    String ip = e.path("serverIPAddress").asText("").trim();
    long id = 0;
    String connection = e.path("connection").asText("").trim();
    if (!connection.isEmpty()) {
      try {
        id = Long.parseLong(connection);
      } catch (NumberFormatException notNumeric) {
        id = connection.hashCode() & 0x7FFFFFFFL; // Firefox and others name connections; keep them apart
      }
    }
    if (ip.startsWith("[") && ip.endsWith("]")) {
      ip = ip.substring(1, ip.length() - 1);
    }
    if (ip.isEmpty()) {
      return null;
    }
    if (!IPV4.matcher(ip).matches() && ip.indexOf(':') < 0) {
      en.ignore("serverIPAddress", "not an IP address: " + ip);
      return null;
    }
    try {
      return new ConnectionInfo(id, new InetSocketAddress(InetAddress.getByName(ip), target.port), null, null, false);
    } catch (IOException | IllegalArgumentException bad) {
      en.ignore("serverIPAddress", "not an IP address: " + ip);
      return null;
    }
  }

  /** Lays the phases out one after another on a made-up clock. */
  private static void timings(JsonNode t, long[] r, Entry en) {
    if (t.isMissingNode()) {
      return;
    }
    double blocked = ms(t, "blocked");
    double dns = ms(t, "dns");
    double connect = ms(t, "connect");
    double ssl = ms(t, "ssl");
    double send = Math.max(0, ms(t, "send"));
    double wait = Math.max(0, ms(t, "wait"));
    double receive = Math.max(0, ms(t, "receive"));
    long at = CLOCK;
    r[0] = at;
    at += nanos(Math.max(0, blocked));
    if (dns >= 0) {
      r[1] = at;
      at += nanos(dns);
      r[2] = at;
    }
    if (connect >= 0) {
      r[3] = at;
      long tcp = nanos(ssl >= 0 ? Math.max(0, connect - ssl) : connect);
      r[4] = at + tcp;
      if (ssl >= 0) {
        r[5] = at + tcp;
        r[6] = at + nanos(connect);
      }
      at += nanos(connect);
    }
    r[7] = at;
    at += nanos(send);
    r[8] = at;
    at += nanos(wait);
    r[9] = at;
    at += nanos(receive);
    r[10] = at;
  }

  private static double ms(JsonNode t, String field) {
    JsonNode n = t.path(field);
    return n.isNumber() ? n.asDouble() : -1;
  }

  private static long nanos(double ms) {
    return BigDecimal.valueOf(ms).movePointRight(6).longValue();
  }

  private static void webSocket(JsonNode e, FlowBuilder b, Entry en) {
    JsonNode messages = e.path("_webSocketMessages");
    b.webSocket = "websocket".equalsIgnoreCase(e.path("_resourceType").asText("")) || messages.size() > 0;
    int i = 0;
    for (JsonNode m : messages) {
      String field = "_webSocketMessages[" + i++ + "]";
      String type = m.path("type").asText("");
      int opcode = m.path("opcode").asInt(WebSocketMessage.TEXT);
      String data = m.path("data").asText("");
      byte[] payload;
      if (opcode == WebSocketMessage.TEXT) {
        payload = data.getBytes(StandardCharsets.UTF_8);
      } else {
        try {
          payload = Base64.getMimeDecoder().decode(data);
        } catch (IllegalArgumentException bad) {
          en.ignore(field + ".data", "not base64");
          continue;
        }
      }
      Instant time = b.startedAt;
      JsonNode t = m.path("time");
      if (t.isNumber()) {
        BigDecimal seconds = t.decimalValue();
        time = Instant.ofEpochSecond(seconds.longValue(), seconds.remainder(BigDecimal.ONE).movePointRight(9).longValue());
      }
      long length = m.path("_truncated").asBoolean(false) ? m.path("_length").asLong(payload.length) : payload.length;
      b.messages.add(new WebSocketMessage(type.equalsIgnoreCase("send") ? WebSocketMessage.Direction.CLIENT_TO_SERVER
          : WebSocketMessage.Direction.SERVER_TO_CLIENT, opcode, payload, length, time));
    }
  }

  private static void error(JsonNode e, FlowBuilder b) {
    String error = e.path("_error").asText("").trim();
    if (error.isEmpty()) {
      return;
    }
    String kindName = e.path("_errorKind").asText("");
    FlowError.Kind kind = null;
    if (!kindName.isEmpty()) {
      try {
        kind = FlowError.Kind.valueOf(kindName);
        String prefix = kindName + ": ";
        if (error.startsWith(prefix)) {
          error = error.substring(prefix.length());
        }
      } catch (IllegalArgumentException unknown) {
        kind = null;
      }
    }
    b.error = new FlowError(kind != null ? kind : chromeKind(error), error);
  }

  /** A kind for Chromium's {@code net::ERR_*} names. */
  private static FlowError.Kind chromeKind(String error) {
    String e = error.toUpperCase(Locale.ROOT);
    if (e.contains("NAME_NOT_RESOLVED")) {
      return FlowError.Kind.DNS;
    } else if (e.contains("CONNECTION_REFUSED")) {
      return FlowError.Kind.CONNECT_REFUSED;
    } else if (e.contains("TIMED_OUT")) {
      return FlowError.Kind.CONNECT_TIMEOUT;
    } else if (e.contains("ERR_CERT")) {
      return FlowError.Kind.TLS_VERIFY;
    } else if (e.contains("ERR_SSL")) {
      return FlowError.Kind.TLS_HANDSHAKE;
    } else if (e.contains("ABORTED")) {
      return FlowError.Kind.CLIENT_ABORT;
    } else if (e.contains("CONNECTION_RESET") || e.contains("CONNECTION_CLOSED")) {
      return FlowError.Kind.SERVER_RESET;
    }
    return FlowError.Kind.INTERNAL;
  }

  private static String text(JsonNode e, String field, String otherwise) {
    String v = e.path(field).asText("");
    return v.isEmpty() ? otherwise : v;
  }

  /** HAR version spellings as Loupe names them: h2, http/2.0 and HTTP/2 are all {@code HTTP/2}. */
  static String version(String v) {
    String s = v.trim().toLowerCase(Locale.ROOT);
    return switch (s) {
      case "http/1.1", "h1", "http1.1" -> "HTTP/1.1";
      case "http/1.0" -> "HTTP/1.0";
      case "http/2", "http/2.0", "h2", "h2c" -> "HTTP/2";
      case "http/3", "http/3.0", "h3" -> "HTTP/3";
      case "", "unknown" -> "";
      default -> v.trim();
    };
  }

  /** Where a request went. */
  record Target(String scheme, String host, int port, String target) {}

  /** Splits an absolute URL (ws and wss count as http and https); for CONNECT also {@code host:port}. */
  static Target parseUrl(String method, String url) {
    String rest = url;
    String scheme;
    int colonSlash = url.indexOf("://");
    if (colonSlash > 0) {
      scheme = url.substring(0, colonSlash).toLowerCase(Locale.ROOT);
      rest = url.substring(colonSlash + 3);
    } else if (method.equalsIgnoreCase("CONNECT")) {
      scheme = "https";
    } else {
      return null;
    }
    scheme = switch (scheme) {
      case "wss" -> "https";
      case "ws" -> "http";
      default -> scheme;
    };
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return null;
    }
    int end = rest.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int i = rest.indexOf(c);
      if (i >= 0 && i < end) {
        end = i;
      }
    }
    String authority = rest.substring(0, end);
    String path = rest.substring(end);
    int hash = path.indexOf('#');
    if (hash >= 0) {
      path = path.substring(0, hash);
    }
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      authority = authority.substring(at + 1);
    }
    String host;
    String port = null;
    if (authority.startsWith("[")) {
      int close = authority.indexOf(']');
      if (close < 0) {
        return null;
      }
      host = authority.substring(1, close);
      if (authority.length() > close + 1 && authority.charAt(close + 1) == ':') {
        port = authority.substring(close + 2);
      }
    } else {
      int colon = authority.lastIndexOf(':');
      host = colon >= 0 ? authority.substring(0, colon) : authority;
      port = colon >= 0 ? authority.substring(colon + 1) : null;
    }
    if (host.isEmpty()) {
      return null;
    }
    int p = scheme.equals("https") ? 443 : 80;
    if (port != null && !port.isEmpty()) {
      try {
        p = Integer.parseInt(port);
      } catch (NumberFormatException e) {
        return null;
      }
      if (p < 1 || p > 65535) {
        return null;
      }
    }
    String target = method.equalsIgnoreCase("CONNECT") ? host.indexOf(':') >= 0 ? "[" + host + "]:" + p : host + ":" + p
        : path.isEmpty() ? "/" : path.startsWith("?") ? "/" + path : path;
    return new Target(scheme, host, p, target);
  }

  /** Reading one entry: collects its problems. */
  private static final class Entry {
    private final int index;
    private final List<ImportReport.Problem> problems;

    Entry(int index, List<ImportReport.Problem> problems) {
      this.index = index;
      this.problems = problems;
    }

    void skip(String field, String message) {
      problems.add(new ImportReport.Problem(index, field, message, true));
    }

    void ignore(String field, String message) {
      problems.add(new ImportReport.Problem(index, field, message, false));
    }

    Instant instant(JsonNode n, String field) {
      String s = n.asText("");
      if (s.isEmpty()) {
        ignore(field, "missing; the import time is used");
        return Instant.now();
      }
      try {
        return OffsetDateTime.parse(s).toInstant();
      } catch (DateTimeParseException e) {
        try {
          return Instant.parse(s);
        } catch (DateTimeParseException e2) {
          ignore(field, "not an ISO 8601 date: " + s + "; the import time is used");
          return Instant.now();
        }
      }
    }

    /** The header fields, without HTTP/2 pseudo-headers (Loupe keeps those in the head's fields). */
    Headers headers(JsonNode array, String field) {
      if (array.isMissingNode() || array.isNull()) {
        return Headers.EMPTY;
      }
      if (!array.isArray()) {
        ignore(field, "not an array");
        return Headers.EMPTY;
      }
      List<Headers.Field> out = new ArrayList<>(array.size());
      int i = 0;
      for (JsonNode h : array) {
        String name = h.path("name").asText("");
        if (name.isEmpty() || !h.has("value")) {
          ignore(field + "[" + i + "]", "a header needs a name and a value");
        } else if (!name.startsWith(":")) {
          out.add(new Headers.Field(name, h.path("value").asText("")));
        }
        i++;
      }
      return Headers.of(out);
    }

    StoredBody requestBody(JsonNode postData, Headers headers, long wireSize) {
      if (postData.isMissingNode() || postData.isNull()) {
        return null;
      }
      if (!postData.has("text") && postData.path("params").size() > 0) {
        String mime = postData.path("mimeType").asText(headers.get("content-type") == null ? ""
            : headers.get("content-type"));
        String media = mime.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
        if (!media.isEmpty() && !media.equals("application/x-www-form-urlencoded")) {
          // params without text for another type (chrome-har writes a JSON body's fields as params):
          // the bytes cannot be rebuilt; the body counts as seen and not kept
          ignore("request.postData.params", "only params, no text, for " + media + ": the body is not rebuilt");
          long size = Math.max(0, wireSize);
          return size == 0 ? null : new StoredBody(size, true, 0, java.io.InputStream::nullInputStream);
        }
        StringBuilder form = new StringBuilder();
        Charset cs = charset(postData.path("mimeType").asText(headers.get("content-type")));
        for (JsonNode p : postData.path("params")) {
          form.append(form.length() == 0 ? "" : "&").append(URLEncoder.encode(p.path("name").asText(""), cs));
          if (p.has("value")) {
            form.append('=').append(URLEncoder.encode(p.path("value").asText(""), cs));
          }
        }
        return StoredBody.of(form.toString().getBytes(cs));
      }
      return body(postData, "request.postData", postData.path("mimeType").asText(headers.get("content-type")), wireSize);
    }

    /**
     * A {@code content} or {@code postData} object's bytes, or null when it holds none.
     *
     * @param wireSize the message's {@code bodySize} (-1 unknown): what was seen when bytes are missing
     */
    StoredBody body(JsonNode o, String field, String contentType, long wireSize) {
      if (o.isMissingNode() || o.isNull()) {
        return null;
      }
      JsonNode text = o.path("text");
      boolean truncated = o.path("_truncated").asBoolean(false);
      if (text.isMissingNode() || text.isNull()) {
        long size = wireSize > 0 ? wireSize : Math.max(0, o.path("size").asLong(0));
        return size == 0 ? null : new StoredBody(size, true, 0, java.io.InputStream::nullInputStream);
      }
      byte[] bytes;
      if ("base64".equalsIgnoreCase(o.path("encoding").asText(""))) {
        try {
          bytes = Base64.getMimeDecoder().decode(text.asText());
        } catch (IllegalArgumentException e) {
          ignore(field + ".text", "marked base64 but is not");
          return null;
        }
      } else {
        String mime = o.path("mimeType").asText("");
        bytes = text.asText().getBytes(charset(mime.isEmpty() ? contentType : mime));
      }
      if (truncated) {
        long size = Math.max(bytes.length, wireSize);
        byte[] kept = bytes;
        return new StoredBody(size, size > kept.length, kept.length, () -> new java.io.ByteArrayInputStream(kept));
      }
      return StoredBody.of(bytes);
    }

    private static Charset charset(String contentType) {
      if (contentType != null) {
        for (String part : contentType.split(";")) {
          String p = part.trim();
          if (p.regionMatches(true, 0, "charset=", 0, 8)) {
            try {
              return Charset.forName(p.substring(8).replace("\"", "").trim());
            } catch (RuntimeException unknown) {
              return StandardCharsets.UTF_8;
            }
          }
        }
      }
      return StandardCharsets.UTF_8;
    }
  }
}
