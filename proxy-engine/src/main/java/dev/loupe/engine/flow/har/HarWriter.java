package dev.loupe.engine.flow.har;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.Timings;
import dev.loupe.engine.flow.WebSocketMessage;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.InetSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * Writes flows as an <a href="http://www.softwareishard.com/blog/har-12-spec/">HAR 1.2</a> log,
 * streaming: one entry at a time, bodies copied from {@link Body#openStream()} into the JSON text
 * in chunks, so exporting 100k flows or a spilled 1 GiB body needs no more heap than one flow's
 * heads and a few buffers.
 *
 * <h3>What goes where</h3>
 * <ul>
 *   <li>{@code log}: {@code version "1.2"}, {@code creator {name "Loupe", version}}, {@code entries};
 *       {@code pages} is omitted (a proxy sees no pages).</li>
 *   <li>{@code time} is the sum of the entry's timings other than -1, without {@code ssl}, which
 *       {@code connect} already includes. {@code send}, {@code wait} and {@code receive} must not
 *       be negative in HAR 1.2, so an unknown one is written as 0. Timings are rounded to the
 *       microsecond before summing, so {@code time} equals the written parts exactly.</li>
 *   <li>Bodies: see {@link HarBody}. Textual bodies become {@code text}; others base64 with
 *       {@code "encoding": "base64"} (HAR 1.2 defines it for {@code content}; for {@code postData}
 *       it is an extra field the schema permits, which Loupe's reader and other tools honour).
 *       gzip/deflate responses are decoded, {@code content.size} is the decoded size and
 *       {@code compression} = size - bodySize.</li>
 *   <li>{@code headersSize} is the HTTP/1.x head size (start line, fields, blank line); -1 for
 *       HTTP/2 and HTTP/3, whose compressed field blocks Loupe does not measure.</li>
 *   <li>A flow that failed before its response has a stub response (status 0, {@code x-unknown}
 *       content, sizes -1) and {@code _error}.</li>
 *   <li>A tunnel (TUNNEL tier) is an entry with method {@code CONNECT}, url {@code https://host:port},
 *       status 200 (502 when the upstream connection failed), and the tunnelled byte counts as
 *       body sizes.</li>
 * </ul>
 *
 * <h3>Custom fields</h3>
 * {@code _tier}, {@code _notes} (problems that did not fail the flow, e.g. a plugin hook that
 * threw), {@code _clientHttpVersion}, {@code _serverHttpVersion}, {@code _http3} (why the server
 * leg did or did not use HTTP/3, {@link Flow#http3Status()}), {@code _error} (string,
 * as Chrome writes it: {@code "KIND: message"}) with {@code _errorKind}; {@code _webSocketMessages}
 * and {@code _resourceType "websocket"} in Chrome's form; on {@code postData}/{@code content}:
 * {@code _truncated} and {@code _capturedSize} when bytes were not captured, {@code _contentEncoding}
 * when the text still carries a coding Loupe cannot undo (br, zstd, corrupt data); on
 * {@code request}/{@code response}: {@code _trailers}.
 *
 * <h3>Threads</h3>
 * Stateless; each call writes on the caller's thread. Flows may still be changing while they are
 * written (an in-flight flow is written as far as it got); the writer reads each one once, in the
 * order the {@code Iterable} gives them, and holds no reference to it afterwards.
 */
public final class HarWriter {
  /** {@code log.creator.name}. */
  public static final String CREATOR_NAME = "Loupe";

  private static final JsonFactory JSON = JsonFactory.builder()
      .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
      .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
      .build();

  /** ISO 8601 with milliseconds and offset, always UTC: {@code 2026-11-30T02:10:18.123Z}. */
  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX", Locale.ROOT).withZone(ZoneOffset.UTC);

  private static final BigDecimal UNKNOWN = BigDecimal.valueOf(-1);

  private HarWriter() {}

  /** {@code log.creator.version}: the jar's Implementation-Version, or {@code dev} when run from classes. */
  public static String creatorVersion() {
    String v = HarWriter.class.getPackage().getImplementationVersion();
    return v == null || v.isBlank() ? "dev" : v;
  }

  /**
   * Writes {@code flows} as one HAR 1.2 document to {@code out}, in iteration order. {@code out} is
   * flushed, not closed. On an exception {@code out} holds a partial document; use
   * {@link #writeAtomically} for files.
   */
  public static void write(Iterable<Flow> flows, OutputStream out) throws IOException {
    requireNonNull(flows, "flows");
    requireNonNull(out, "out");
    try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      g.setPrettyPrinter(prettyPrinter());
      g.writeStartObject();
      g.writeObjectFieldStart("log");
      g.writeStringField("version", "1.2");
      g.writeObjectFieldStart("creator");
      g.writeStringField("name", CREATOR_NAME);
      g.writeStringField("version", creatorVersion());
      g.writeEndObject();
      g.writeArrayFieldStart("entries");
      for (Flow flow : flows) {
        writeEntry(g, requireNonNull(flow, "flow"));
      }
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndObject();
      g.flush();
    }
  }

  /**
   * Writes {@code flows} to {@code file} so that {@code file} holds either its old content or the
   * complete new document, never a part: the HAR goes to a temporary file in the same directory,
   * is forced to disk, then moved over {@code file} atomically (or, where the file system cannot,
   * with a plain replace). On failure the temporary file is deleted and {@code file} is untouched.
   * The new file is readable by its owner only, as HAR files carry cookies and credentials.
   */
  public static void writeAtomically(Iterable<Flow> flows, Path file) throws IOException {
    requireNonNull(flows, "flows");
    Path target = requireNonNull(file, "file").toAbsolutePath();
    Path dir = target.getParent();
    Path tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
    boolean moved = false;
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        OutputStream os = new BufferedOutputStream(Channels.newOutputStream(ch), 64 * 1024);
        write(flows, os);
        os.flush();
        ch.force(true);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      moved = true;
      syncDirectory(dir);
    } finally {
      if (!moved) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  /** Makes the rename itself durable where the platform allows opening a directory (Linux, macOS). */
  private static void syncDirectory(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | RuntimeException unsupported) {
      // Windows cannot open a directory; the move is still atomic there
    }
  }

  private static DefaultPrettyPrinter prettyPrinter() {
    Separators seps = Separators.createDefaultInstance()
        .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
        .withObjectEmptySeparator("")
        .withArrayEmptySeparator("");
    DefaultPrettyPrinter pp = new DefaultPrettyPrinter(seps);
    pp.indentArraysWith(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"));
    pp.indentObjectsWith(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE.withLinefeed("\n"));
    return pp;
  }

  // ---- entry -----------------------------------------------------------------------------------

  private static void writeEntry(JsonGenerator g, Flow f) throws IOException {
    HarTimings t = HarTimings.of(f.timings());
    g.writeStartObject();
    g.writeStringField("startedDateTime", ISO.format(f.startedAt()));
    g.writeFieldName("time");
    g.writeNumber(t.total());
    if (f.isTunnel()) {
      writeTunnelRequest(g, f);
      writeTunnelResponse(g, f);
    } else {
      writeRequest(g, f);
      writeResponse(g, f);
    }
    g.writeObjectFieldStart("cache");
    g.writeEndObject();
    t.write(g);
    ConnectionInfo server = f.serverConnection();
    ConnectionInfo client = f.clientConnection();
    InetSocketAddress remote = server == null ? null : server.remoteAddress();
    if (remote != null && remote.getAddress() != null) {
      g.writeStringField("serverIPAddress", HarUrls.ipLiteral(remote.getAddress()));
    }
    if (server != null || client != null) {
      g.writeStringField("connection", Long.toString(server != null ? server.id() : client.id()));
    }
    g.writeStringField("_tier", f.tier().name());
    if (f.clientProtocol() != null) {
      g.writeStringField("_clientHttpVersion", f.clientProtocol());
    }
    if (f.serverProtocol() != null) {
      g.writeStringField("_serverHttpVersion", f.serverProtocol());
    }
    if (f.http3Status() != null) {
      g.writeStringField("_http3", f.http3Status());
    }
    if (!f.modifiedBy().isEmpty()) {
      g.writeArrayFieldStart("_modifiedBy");
      for (String m : f.modifiedBy()) {
        g.writeString(m);
      }
      g.writeEndArray();
    }
    if (!f.notes().isEmpty()) {
      g.writeArrayFieldStart("_notes");
      for (String n : f.notes()) {
        g.writeString(n);
      }
      g.writeEndArray();
    }
    if (f.replayOf() >= 0) {
      g.writeNumberField("_replayOf", f.replayOf());
    }
    FlowError error = f.error();
    if (error != null) {
      g.writeStringField("_error", error.toString());
      g.writeStringField("_errorKind", error.kind().name());
    }
    if (f.isWebSocket() || !f.webSocketMessages().isEmpty()) {
      g.writeStringField("_resourceType", "websocket");
      writeWebSocketMessages(g, f.webSocketMessages());
    }
    g.writeEndObject();
  }

  // ---- request ---------------------------------------------------------------------------------

  private static void writeRequest(JsonGenerator g, Flow f) throws IOException {
    RequestHead req = f.request();
    Headers headers = req == null ? Headers.EMPTY : req.headers();
    g.writeObjectFieldStart("request");
    g.writeStringField("method", req == null ? "" : req.method());
    g.writeStringField("url", url(req));
    g.writeStringField("httpVersion", req == null ? orEmpty(f.clientProtocol()) : req.httpVersion());
    writeCookies(g, HarCookies.requestCookies(headers), false);
    writeHeaders(g, "headers", headers);
    g.writeArrayFieldStart("queryString");
    if (req != null) {
      for (HarUrls.Param p : HarUrls.parseParams(req.query(), StandardCharsets.UTF_8)) {
        writeNameValue(g, p.name(), p.value());
      }
    }
    g.writeEndArray();
    Body body = f.requestBody();
    if (body.size() > 0 || body.capturedSize() > 0) {
      HarBody plan = HarBody.plan(body, headers.get("Content-Type"), headers.get("Content-Encoding"));
      g.writeObjectFieldStart("postData");
      g.writeStringField("mimeType", mimeType(headers));
      plan.writeText(g);
      List<HarUrls.Param> params = plan.formParams();
      if (params != null) {
        g.writeArrayFieldStart("params");
        for (HarUrls.Param p : params) {
          writeNameValue(g, p.name(), p.value());
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
    long headersSize = -1;
    if (req != null && isHttp1(req.httpVersion())) {
      // "GET /a HTTP/1.1\r\n" + fields + "\r\n"
      headersSize = req.method().length() + 1 + req.target().length() + 1 + req.httpVersion().length() + 2
          + headers.wireSize() + 2;
    }
    g.writeNumberField("headersSize", headersSize);
    g.writeNumberField("bodySize", body.size());
    writeTrailers(g, f.requestTrailers());
    g.writeEndObject();
  }

  /** An absolute URL; a CONNECT that was intercepted (not a tunnel) still names only host and port. */
  private static String url(RequestHead req) {
    if (req == null) {
      return "about:blank";
    }
    return "CONNECT".equalsIgnoreCase(req.method()) ? HarUrls.tunnel(req.host(), req.port()) : HarUrls.absolute(req);
  }

  private static void writeTunnelRequest(JsonGenerator g, Flow f) throws IOException {
    RequestHead req = f.request();
    g.writeObjectFieldStart("request");
    g.writeStringField("method", "CONNECT");
    g.writeStringField("url", tunnelUrl(f));
    g.writeStringField("httpVersion", req != null ? req.httpVersion() : orEmpty(f.clientProtocol()));
    g.writeArrayFieldStart("cookies");
    g.writeEndArray();
    writeHeaders(g, "headers", req == null ? Headers.EMPTY : req.headers());
    g.writeArrayFieldStart("queryString");
    g.writeEndArray();
    long headersSize = -1;
    if (req != null && isHttp1(req.httpVersion())) {
      headersSize = "CONNECT".length() + 1 + req.target().length() + 1 + req.httpVersion().length() + 2
          + req.headers().wireSize() + 2;
    }
    g.writeNumberField("headersSize", headersSize);
    g.writeNumberField("bodySize", f.tunnelBytesClientToServer());
    g.writeEndObject();
  }

  private static String tunnelUrl(Flow f) {
    RequestHead req = f.request();
    if (req != null) {
      return HarUrls.tunnel(req.host(), req.port());
    }
    ConnectionInfo server = f.serverConnection();
    if (server != null && server.remoteAddress() != null) {
      InetSocketAddress a = server.remoteAddress();
      String host = a.getAddress() != null ? HarUrls.ipLiteral(a.getAddress()) : a.getHostString();
      return HarUrls.tunnel(host, a.getPort());
    }
    return "about:blank";
  }

  // ---- response --------------------------------------------------------------------------------

  private static void writeResponse(JsonGenerator g, Flow f) throws IOException {
    ResponseHead res = f.response();
    if (res == null) {
      writeMissingResponse(g);
      return;
    }
    Headers headers = res.headers();
    Body body = f.responseBody();
    HarBody plan = HarBody.plan(body, headers.get("Content-Type"), headers.get("Content-Encoding"));
    g.writeObjectFieldStart("response");
    g.writeNumberField("status", res.status());
    g.writeStringField("statusText", res.reason());
    // HAR describes what the client saw: the client leg's version (an h2 client of an h1 origin got HTTP/2).
    String version = f.clientProtocol() != null ? f.clientProtocol() : res.httpVersion();
    g.writeStringField("httpVersion", version);
    writeCookies(g, HarCookies.responseCookies(headers, receivedAt(f)), true);
    writeHeaders(g, "headers", headers);
    g.writeObjectFieldStart("content");
    g.writeNumberField("size", plan.size());
    if (plan.decoded()) {
      g.writeNumberField("compression", plan.size() - body.size());
    }
    g.writeStringField("mimeType", mimeType(headers));
    plan.writeText(g);
    g.writeEndObject();
    g.writeStringField("redirectURL", orEmpty(headers.get("Location")));
    long headersSize = -1;
    if (isHttp1(version)) {
      // "HTTP/1.1 200 OK\r\n" + fields + "\r\n"
      headersSize = version.length() + 1 + 3 + 1 + res.reason().length() + 2 + headers.wireSize() + 2;
    }
    g.writeNumberField("headersSize", headersSize);
    g.writeNumberField("bodySize", body.size());
    writeTrailers(g, f.responseTrailers());
    g.writeEndObject();
  }

  /** HAR requires a response; a flow that failed before one gets this stub (as Chrome writes). */
  private static void writeMissingResponse(JsonGenerator g) throws IOException {
    g.writeObjectFieldStart("response");
    g.writeNumberField("status", 0);
    g.writeStringField("statusText", "");
    g.writeStringField("httpVersion", "");
    g.writeArrayFieldStart("cookies");
    g.writeEndArray();
    g.writeArrayFieldStart("headers");
    g.writeEndArray();
    g.writeObjectFieldStart("content");
    g.writeNumberField("size", 0);
    g.writeStringField("mimeType", "x-unknown");
    g.writeEndObject();
    g.writeStringField("redirectURL", "");
    g.writeNumberField("headersSize", -1);
    g.writeNumberField("bodySize", -1);
    g.writeEndObject();
  }

  private static void writeTunnelResponse(JsonGenerator g, Flow f) throws IOException {
    ResponseHead res = f.response();
    RequestHead req = f.request();
    int status;
    String reason;
    if (res != null) {
      status = res.status();
      reason = res.reason();
    } else if (f.error() != null && f.serverConnection() == null) {
      status = 502; // the upstream connection never opened: Loupe answered the CONNECT with 502
      reason = "Bad Gateway";
    } else {
      status = 200;
      reason = "Connection established";
    }
    Headers headers = res == null ? Headers.EMPTY : res.headers();
    long down = f.tunnelBytesServerToClient();
    g.writeObjectFieldStart("response");
    g.writeNumberField("status", status);
    g.writeStringField("statusText", reason);
    g.writeStringField("httpVersion", res != null ? res.httpVersion() : req != null ? req.httpVersion() : "");
    g.writeArrayFieldStart("cookies");
    g.writeEndArray();
    writeHeaders(g, "headers", headers);
    g.writeObjectFieldStart("content");
    g.writeNumberField("size", down);
    g.writeStringField("mimeType", "application/octet-stream");
    g.writeStringField("comment", "tunnelled bytes, not decrypted");
    g.writeEndObject();
    g.writeStringField("redirectURL", "");
    g.writeNumberField("headersSize", -1);
    g.writeNumberField("bodySize", down);
    g.writeEndObject();
  }

  private static Instant receivedAt(Flow f) {
    double total = f.timings().totalMs();
    return total < 0 ? f.startedAt() : f.startedAt().plusNanos((long) (total * 1_000_000));
  }

  // ---- parts -----------------------------------------------------------------------------------

  /** Content-Type as sent (charset included, as HAR asks); RFC 9110 §8.3's default when absent. */
  private static String mimeType(Headers headers) {
    String ct = headers.get("Content-Type");
    return ct == null ? "application/octet-stream" : ct;
  }

  private static boolean isHttp1(String version) {
    return version != null && (version.regionMatches(true, 0, "HTTP/1.", 0, 7) || version.equalsIgnoreCase("HTTP/0.9"));
  }

  private static void writeHeaders(JsonGenerator g, String field, Headers headers) throws IOException {
    g.writeArrayFieldStart(field);
    for (Headers.Field h : headers.fields()) {
      writeNameValue(g, h.name(), h.value());
    }
    g.writeEndArray();
  }

  private static void writeTrailers(JsonGenerator g, Headers trailers) throws IOException {
    if (trailers != null && !trailers.isEmpty()) {
      writeHeaders(g, "_trailers", trailers);
    }
  }

  private static void writeNameValue(JsonGenerator g, String name, String value) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", name);
    g.writeStringField("value", value);
    g.writeEndObject();
  }

  /** {@code withFlags}: Set-Cookie carries httpOnly/secure; a Cookie header does not, so they are left out. */
  private static void writeCookies(JsonGenerator g, List<HarCookies.Cookie> cookies, boolean withFlags)
      throws IOException {
    g.writeArrayFieldStart("cookies");
    for (HarCookies.Cookie c : cookies) {
      g.writeStartObject();
      g.writeStringField("name", c.name());
      g.writeStringField("value", c.value());
      if (c.path() != null) {
        g.writeStringField("path", c.path());
      }
      if (c.domain() != null) {
        g.writeStringField("domain", c.domain());
      }
      if (c.expires() != null) {
        g.writeStringField("expires", ISO.format(c.expires()));
      }
      if (withFlags) {
        g.writeBooleanField("httpOnly", c.httpOnly());
        g.writeBooleanField("secure", c.secure());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /** Chrome's form: {@code {type, time (epoch seconds), opcode, data}}; data is base64 unless opcode 1. */
  private static void writeWebSocketMessages(JsonGenerator g, List<WebSocketMessage> messages) throws IOException {
    g.writeArrayFieldStart("_webSocketMessages");
    for (WebSocketMessage m : messages) {
      g.writeStartObject();
      g.writeStringField("type", m.direction() == WebSocketMessage.Direction.CLIENT_TO_SERVER ? "send" : "receive");
      g.writeFieldName("time");
      g.writeNumber(BigDecimal.valueOf(m.time().getEpochSecond())
          .add(BigDecimal.valueOf(m.time().getNano(), 9))
          .setScale(6, RoundingMode.HALF_UP));
      g.writeNumberField("opcode", m.opcode());
      g.writeFieldName("data");
      if (m.opcode() == WebSocketMessage.TEXT) {
        g.writeString(m.text());
      } else {
        g.writeBinary(m.payload());
      }
      if (m.truncated()) {
        g.writeBooleanField("_truncated", true);
        g.writeNumberField("_length", m.length());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  /**
   * An entry's timings as written: milliseconds rounded to the microsecond, -1 for unknown
   * blocked/dns/connect/ssl, 0 for unknown send/wait/receive, and {@code total} their exact sum.
   */
  record HarTimings(
      BigDecimal blocked, BigDecimal dns, BigDecimal connect, BigDecimal ssl,
      BigDecimal send, BigDecimal waiting, BigDecimal receive) {

    static HarTimings of(Timings t) {
      BigDecimal connect = optional(t.connectMs());
      BigDecimal ssl = optional(t.sslMs());
      if (connect.signum() < 0 && ssl.signum() >= 0) {
        connect = ssl; // HAR: ssl is part of connect; with the TCP start unknown, connect is at least ssl
      }
      return new HarTimings(optional(t.blockedMs()), optional(t.dnsMs()), connect, ssl,
          required(t.sendMs()), required(t.waitMs()), required(t.receiveMs()));
    }

    private static BigDecimal optional(double ms) {
      return ms < 0 || Double.isNaN(ms) ? UNKNOWN : round(ms);
    }

    private static BigDecimal required(double ms) {
      return ms < 0 || Double.isNaN(ms) ? BigDecimal.ZERO : round(ms);
    }

    private static BigDecimal round(double ms) {
      return BigDecimal.valueOf(ms).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros();
    }

    /** HAR {@code time}: every known part except ssl, which connect includes. */
    BigDecimal total() {
      BigDecimal sum = send.add(waiting).add(receive);
      for (BigDecimal part : List.of(blocked, dns, connect)) {
        if (part.signum() >= 0) {
          sum = sum.add(part);
        }
      }
      return sum.stripTrailingZeros();
    }

    void write(JsonGenerator g) throws IOException {
      g.writeObjectFieldStart("timings");
      field(g, "blocked", blocked);
      field(g, "dns", dns);
      field(g, "connect", connect);
      field(g, "send", send);
      field(g, "wait", waiting);
      field(g, "receive", receive);
      field(g, "ssl", ssl);
      g.writeEndObject();
    }

    private static void field(JsonGenerator g, String name, BigDecimal value) throws IOException {
      g.writeFieldName(name);
      g.writeNumber(value);
    }
  }
}
