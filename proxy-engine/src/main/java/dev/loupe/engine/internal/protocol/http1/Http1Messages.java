package dev.loupe.engine.internal.protocol.http1;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * HTTP/1.1 wire messages ⇄ neutral heads, with the RFC 9110 §7.6.1 hop-by-hop rules: connection
 * options and the fields the {@code Connection} header names never cross the proxy; framing
 * ({@code Content-Length} / {@code Transfer-Encoding: chunked}) is kept so the encoder re-frames the
 * same body.
 */
public final class Http1Messages {
  private static final Set<String> HOP_BY_HOP = Set.of(
      "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
      "te", "upgrade");
  /**
   * Fields that frame or route a message: a {@code Connection} option naming one never removes it
   * (RFC 9110 §7.6.1 lets {@code Connection} name only hop-by-hop fields). Removing
   * {@code Content-Length} that way would let the origin read the body as a second request that
   * Loupe never saw (request smuggling); a request that tries is refused with a 400.
   */
  private static final Set<String> NEVER_HOP_BY_HOP = Set.of(
      "content-length", "transfer-encoding", "host", "trailer", "content-type", "content-encoding",
      "content-range", "cache-control");

  private Http1Messages() {}

  public static Headers toHeaders(HttpHeaders h) {
    if (h.isEmpty()) {
      return Headers.EMPTY;
    }
    List<Headers.Field> fields = new ArrayList<>(h.size());
    for (Map.Entry<String, String> e : h) {
      fields.add(new Headers.Field(e.getKey(), e.getValue()));
    }
    return Headers.of(fields);
  }

  /**
   * Headers of a message converted from HTTP/2 by Netty's adapter, as they were on the wire:
   * without the adapter's own {@code x-http2-*} extension headers, its {@code transfer-encoding:
   * chunked} (HTTP/2 has no transfer codings; it marks a body to stream), and, for a request, the
   * {@code host} it made from {@code :authority} (kept on the request head as its authority).
   */
  public static Headers toHeadersFromHttp2(HttpHeaders h, boolean request) {
    List<Headers.Field> fields = new ArrayList<>(h.size());
    boolean hostDropped = !request;
    for (Map.Entry<String, String> e : h) {
      String name = e.getKey();
      if (name.regionMatches(true, 0, "x-http2-", 0, 8) || name.regionMatches(true, 0, "x-http3-", 0, 8)
          || name.equalsIgnoreCase("transfer-encoding")) {
        continue;
      }
      if (!hostDropped && name.equalsIgnoreCase("host")) {
        hostDropped = true;
        continue;
      }
      fields.add(new Headers.Field(name, e.getValue()));
    }
    return Headers.of(fields);
  }

  public static HttpHeaders toNetty(Headers h) {
    HttpHeaders out = new DefaultHttpHeaders();
    for (Headers.Field f : h.fields()) {
      out.add(f.name(), f.value());
    }
    return out;
  }

  public static ResponseHead toResponseHead(HttpResponse r) {
    return new ResponseHead(r.status().code(), r.status().reasonPhrase(), r.protocolVersion().text(),
        toHeaders(r.headers()));
  }

  /** Names the {@code Connection} header lists, lower-cased, plus the fixed hop-by-hop set. */
  private static Set<String> hopByHop(Headers headers) {
    List<String> connection = headers.getAll("connection");
    if (connection.isEmpty()) {
      return HOP_BY_HOP; // the common case on HTTP/1.1 and always on HTTP/2: no copy
    }
    Set<String> names = new HashSet<>(HOP_BY_HOP);
    for (String v : connection) {
      for (String token : v.split(",")) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        if (!t.isEmpty() && !NEVER_HOP_BY_HOP.contains(t)) {
          names.add(t);
        }
      }
    }
    return names;
  }

  /**
   * The request to send to the origin: origin-form target, end-to-end headers only, {@code Host}
   * set to the target's authority. {@code webSocket} keeps the upgrade headers (minus extensions,
   * so frames stay uncompressed and readable).
   */
  /**
   * The request to send to an origin: end-to-end headers, {@code Host} from the authority, and
   * {@code transfer-encoding: chunked} when a body of unknown length follows ({@code
   * streamedBody}: an HTTP/2 request without END_STREAM on its HEADERS and without content-length).
   */
  public static HttpRequest toOriginRequest(RequestHead head, boolean webSocket, boolean streamedBody) {
    Set<String> drop = hopByHop(head.headers());
    HttpHeaders out = new DefaultHttpHeaders();
    boolean hostSeen = false;
    for (Headers.Field f : head.headers().fields()) {
      String name = f.name().toLowerCase(Locale.ROOT);
      if (name.equals("host")) {
        if (!hostSeen) {
          out.add(HttpHeaderNames.HOST, head.authority());
          hostSeen = true;
        }
        continue;
      }
      if (name.equals("te") && f.value().trim().equalsIgnoreCase("trailers")) {
        out.add(f.name(), f.value());
        continue;
      }
      if (drop.contains(name) || (webSocket && name.equals("sec-websocket-extensions"))) {
        continue;
      }
      out.add(f.name(), f.value());
    }
    if (!hostSeen) {
      out.set(HttpHeaderNames.HOST, head.authority());
    }
    if (streamedBody && !out.contains(HttpHeaderNames.CONTENT_LENGTH) && !isChunked(out)) {
      out.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    if (webSocket) {
      out.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
      out.set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
    }
    return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(head.method()), head.target(), out);
  }

  /**
   * The response to send to the client, end-to-end headers only. Returns whether the client
   * connection must close after it (a body delimited by close for an HTTP/1.0 client).
   */
  public static HttpResponse toClientResponse(ResponseHead head, HttpVersion clientVersion,
      boolean bodyAllowed, boolean clientKeepAlive) {
    HttpResponseStatus status = new HttpResponseStatus(head.status(), head.reason().isEmpty()
        ? HttpResponseStatus.valueOf(head.status()).reasonPhrase() : head.reason());
    HttpHeaders out = new DefaultHttpHeaders();
    Set<String> drop = hopByHop(head.headers());
    boolean switching = head.status() == 101;
    for (Headers.Field f : head.headers().fields()) {
      String name = f.name().toLowerCase(Locale.ROOT);
      if (drop.contains(name) && !(switching && (name.equals("upgrade") || name.equals("connection")))) {
        continue;
      }
      out.add(f.name(), f.value());
    }
    HttpVersion version = clientVersion.equals(HttpVersion.HTTP_1_0) ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
    DefaultHttpResponse r = new DefaultHttpResponse(version, status, out);
    if (head.informational()) {
      return r;
    }
    boolean framed = out.contains(HttpHeaderNames.CONTENT_LENGTH) || isChunked(out);
    if (bodyAllowed && !framed) {
      if (version.equals(HttpVersion.HTTP_1_1)) {
        out.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      } else {
        clientKeepAlive = false;
      }
    }
    if (version.equals(HttpVersion.HTTP_1_0) && isChunked(out)) {
      // HTTP/1.0 has no chunked coding: the body is delimited by close instead.
      out.remove(HttpHeaderNames.TRANSFER_ENCODING);
      clientKeepAlive = false;
    }
    if (!clientKeepAlive) {
      out.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (version.equals(HttpVersion.HTTP_1_0)) {
      out.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    return r;
  }

  public static boolean isChunked(HttpHeaders h) {
    for (String v : h.getAll(HttpHeaderNames.TRANSFER_ENCODING)) {
      for (String t : v.split(",")) {
        if (t.trim().equalsIgnoreCase("chunked")) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether the client asked for keep-alive (HTTP/1.1 default on, HTTP/1.0 default off). */
  public static boolean keepAlive(HttpMessage m) {
    return io.netty.handler.codec.http.HttpUtil.isKeepAlive(m);
  }

  /** Whether a response to {@code method} with {@code status} carries a body (RFC 9110 §6.4.1). */
  public static boolean bodyAllowed(String method, int status) {
    return !(method.equals("HEAD") || (status >= 100 && status < 200) || status == 204 || status == 304
        || (method.equals("CONNECT") && status / 100 == 2));
  }

  /**
   * Request-smuggling checks beyond the decoder's: returns a reason when the request's framing is
   * ambiguous (RFC 9112 §6.1, §6.3), or null when it is fine.
   */
  private static boolean allDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  public static String framingProblem(HttpRequest req) {
    HttpHeaders h = req.headers();
    List<String> te = h.getAll(HttpHeaderNames.TRANSFER_ENCODING);
    List<String> cl = h.getAll(HttpHeaderNames.CONTENT_LENGTH);
    if (!te.isEmpty() && !cl.isEmpty()) {
      return "both Content-Length and Transfer-Encoding are present";
    }
    if (!te.isEmpty()) {
      if (req.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
        return "Transfer-Encoding in an HTTP/1.0 request";
      }
      List<String> codings = new ArrayList<>();
      for (String v : te) {
        for (String t : v.split(",")) {
          codings.add(t.trim().toLowerCase(Locale.ROOT));
        }
      }
      if (!codings.get(codings.size() - 1).equals("chunked")) {
        return "Transfer-Encoding does not end with chunked: " + String.join(", ", te);
      }
      if (codings.indexOf("chunked") != codings.size() - 1) {
        return "chunked applied more than once";
      }
    }
    if (cl.size() > 1) {
      return "more than one Content-Length";
    }
    if (cl.size() == 1) {
      String v = cl.get(0).trim();
      if (v.isEmpty() || v.length() > 18 || !allDigits(v)) {
        return "invalid Content-Length: " + cl.get(0);
      }
    }
    for (String v : h.getAll(HttpHeaderNames.CONNECTION)) {
      for (String token : v.split(",")) {
        String t = token.trim().toLowerCase(Locale.ROOT);
        if (NEVER_HOP_BY_HOP.contains(t)) {
          return "the Connection header names " + t + ", which a proxy must not remove";
        }
      }
    }
    if (h.getAll(HttpHeaderNames.HOST).size() > 1) {
      return "more than one Host header";
    }
    if (req.protocolVersion().equals(HttpVersion.HTTP_1_1) && !h.contains(HttpHeaderNames.HOST)) {
      return "HTTP/1.1 request without a Host header";
    }
    for (Map.Entry<String, String> e : h) {
      String name = e.getKey();
      if (name.isEmpty() || name.chars().anyMatch(c -> c <= ' ' || c == ':' || c >= 127)) {
        return "invalid header name: " + name;
      }
      String value = e.getValue();
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c == '\r' || c == '\n' || c == 0) {
          return "bare CR, LF or NUL in the value of " + name;
        }
      }
    }
    return null;
  }

  /**
   * Why an HTTP/1.x request line's version is refused, or null for {@code HTTP/1.1} and
   * {@code HTTP/1.0} exactly as RFC 9112 §2.3 spells them (Netty upper-cases what it parses, so the
   * decoder's own constants are the only versions that arrived well-formed).
   */
  public static String versionProblem(HttpVersion v) {
    if (v == HttpVersion.HTTP_1_1 || v == HttpVersion.HTTP_1_0) {
      return null;
    }
    if (v.majorVersion() != 1) {
      return "HTTP version " + v.text() + " is not spoken on an HTTP/1 connection";
    }
    return "invalid HTTP version in the request line (only HTTP/1.1 and HTTP/1.0, in capitals)";
  }

  /** Whether the request asks to switch to WebSocket (RFC 6455 §4.1). */
  public static boolean isWebSocketUpgrade(HttpRequest req) {
    HttpHeaders h = req.headers();
    return req.method().equals(HttpMethod.GET)
        && h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
        && h.containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
  }
}
