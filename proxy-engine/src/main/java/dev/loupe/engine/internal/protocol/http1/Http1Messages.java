package dev.loupe.engine.internal.protocol.http1;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
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
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
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
    // The decoder's names (AsciiStrings) and values, wrapped as they are: a relayed message
    // forwards them without a String or field object being made; Headers.fields() makes those
    // on first use (the store, a rule, the UI).
    if (h instanceof CompactHttpHeaders c) {
      // The decoders' headers: their array itself when it is full (CompactHttpHeaders copies it
      // before any later change), else a copy of the used part (a flow keeps it).
      return Headers.wrap(c.shareArray(), c.size());
    }
    CharSequence[] out = new CharSequence[2 * h.size()];
    int n = 0;
    Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence();
    while (it.hasNext() && n < out.length) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      out[n++] = e.getKey();
      out[n++] = e.getValue();
    }
    return Headers.wrap(out, n / 2);
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
    HttpHeaders out = new CompactHttpHeaders();
    for (int i = 0; i < h.size(); i++) {
      out.add(h.name(i), h.value(i));
    }
    return out;
  }

  public static ResponseHead toResponseHead(HttpResponse r) {
    return new ResponseHead(r.status().code(), r.status().reasonPhrase(), r.protocolVersion().text(),
        toHeaders(r.headers()));
  }

  /**
   * The fields a message loses at the proxy: the fixed hop-by-hop set and what its {@code
   * Connection} header names (RFC 9110 §7.6.1), in any case. Built per message without a copy of
   * anything in the common case (no {@code Connection}, or one naming only fixed options such as
   * {@code keep-alive}, {@code close}, {@code upgrade}).
   */
  public static final class HopByHop {
    private static final HopByHop FIXED = new HopByHop(false, Set.of());
    private static final HopByHop FIXED_AND_CLOSE = new HopByHop(true, Set.of());
    /** Whether {@code Connection} lists {@code close} (a field of that name goes too). */
    private final boolean close;
    /** Lower-cased names beyond the fixed set and {@code close} that {@code Connection} lists. */
    private final Set<String> extra;

    private HopByHop(boolean close, Set<String> extra) {
      this.close = close;
      this.extra = extra;
    }

    /** The fields {@code headers} loses (read in place: no String is made of a field). */
    public static HopByHop of(Headers headers) {
      Set<String> extra = null;
      boolean close = false;
      for (int i = 0; i < headers.size(); i++) {
        CharSequence n = headers.name(i);
        if (n.length() != 10 || !isToken(n, 0, 10, "connection")) {
          continue;
        }
        CharSequence v = headers.value(i);
        for (int start = tokenStart(v, 0); start >= 0; start = tokenStart(v, tokenEnd(v, start))) {
          int end = trimmedEnd(v, start, tokenEnd(v, start));
          if (isToken(v, start, end, "close")) {
            close = true;
            continue;
          }
          if (fixed(v, start, end) || neverHopByHop(v, start, end) != null) {
            continue;
          }
          if (extra == null) {
            extra = new HashSet<>();
          }
          extra.add(v.subSequence(start, end).toString().toLowerCase(Locale.ROOT));
        }
      }
      return extra != null ? new HopByHop(close, extra) : close ? FIXED_AND_CLOSE : FIXED;
    }

    /** Whether a field named {@code name} (any case) is hop-by-hop here. */
    public boolean drops(CharSequence name) {
      return fixed(name, 0, name.length()) || close && isToken(name, 0, name.length(), "close")
          || !extra.isEmpty() && extra.contains(name.toString().toLowerCase(Locale.ROOT));
    }

    /**
     * Whether {@code s[start, end)} is, in any case, one of the fields that are always hop-by-hop:
     * {@code connection, keep-alive, proxy-connection, proxy-authenticate, proxy-authorization,
     * te, upgrade}.
     */
    private static boolean fixed(CharSequence s, int start, int end) {
      return switch (end - start) {
        case 2 -> isToken(s, start, end, "te");
        case 7 -> isToken(s, start, end, "upgrade");
        case 10 -> isToken(s, start, end, "connection") || isToken(s, start, end, "keep-alive");
        case 16 -> isToken(s, start, end, "proxy-connection");
        case 18 -> isToken(s, start, end, "proxy-authenticate");
        case 19 -> isToken(s, start, end, "proxy-authorization");
        default -> false;
      };
    }
  }

  // ---- comma-separated lists (RFC 9110 §5.6.1), read in place ------------------------------------

  /** Where the next list element starts at or after {@code from} (separators and spaces skipped), or -1. */
  private static int tokenStart(CharSequence v, int from) {
    int i = from;
    while (i < v.length() && (v.charAt(i) == ',' || v.charAt(i) <= ' ')) {
      i++;
    }
    return i < v.length() ? i : -1;
  }

  /** The index of the comma ending the element that starts at {@code start}, or the length. */
  private static int tokenEnd(CharSequence v, int start) {
    int i = start;
    while (i < v.length() && v.charAt(i) != ',') {
      i++;
    }
    return i;
  }

  /** {@code end} moved back over trailing spaces (as {@link String#trim()} would). */
  private static int trimmedEnd(CharSequence v, int start, int end) {
    while (end > start && v.charAt(end - 1) <= ' ') {
      end--;
    }
    return end;
  }

  /** Whether {@code v[start, end)} is {@code lower} in any case. */
  public static boolean isToken(CharSequence v, int start, int end, String lower) {
    if (end - start != lower.length()) {
      return false;
    }
    for (int i = 0; i < lower.length(); i++) {
      char c = v.charAt(start + i);
      if (c != lower.charAt(i) && Character.toLowerCase(c) != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The {@link #NEVER_HOP_BY_HOP} name {@code v[start, end)} is, in any case, or null. */
  private static String neverHopByHop(CharSequence v, int start, int end) {
    for (String n : NEVER_HOP_BY_HOP) {
      if (isToken(v, start, end, n)) {
        return n;
      }
    }
    return null;
  }

  /** The last {@link RequestHead#authority()} made, by host, port and scheme (any thread may replace it). */
  private record Authority(String host, int port, String scheme, String value) {}

  private static volatile Authority lastAuthority = new Authority("", -1, "", "");

  /**
   * {@code head.authority()}, the String made for the previous request when it had the same host,
   * port and scheme (a reverse proxy's every request; a browser's run of requests to one site).
   */
  static String authority(RequestHead head) {
    Authority a = lastAuthority;
    String host = head.host();
    if (a.port == head.port() && (a.host == host || a.host.equals(host)) && a.scheme.equals(head.scheme())) {
      return a.value;
    }
    String value = head.authority();
    lastAuthority = new Authority(host, head.port(), head.scheme(), value);
    return value;
  }

  /**
   * The request to send to an origin: origin-form target, end-to-end headers only, {@code Host} set
   * to the target's authority, and {@code transfer-encoding: chunked} when a body of unknown length
   * follows ({@code streamedBody}: an HTTP/2 request without END_STREAM on its HEADERS and without
   * content-length). {@code webSocket} keeps the upgrade headers (minus extensions, so frames stay
   * uncompressed and readable).
   */
  public static HttpRequest toOriginRequest(RequestHead head, boolean webSocket, boolean streamedBody) {
    HopByHop drop = HopByHop.of(head.headers());
    HttpHeaders out = new CompactHttpHeaders();
    boolean hostSeen = false;
    Headers headers = head.headers();
    for (int i = 0; i < headers.size(); i++) {
      CharSequence name = headers.name(i);
      CharSequence value = headers.value(i);
      if (isToken(name, 0, name.length(), "host")) {
        if (!hostSeen) {
          out.add(HttpHeaderNames.HOST, authority(head));
          hostSeen = true;
        }
        continue;
      }
      if (isToken(name, 0, name.length(), "te") && value.toString().trim().equalsIgnoreCase("trailers")) {
        out.add(name, value);
        continue;
      }
      if (drop.drops(name) || (webSocket && isToken(name, 0, name.length(), "sec-websocket-extensions"))) {
        continue;
      }
      out.add(name, value);
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
    // The predefined status when the reason is the usual one (no new object per response).
    HttpResponseStatus status = head.reason().isEmpty() ? HttpResponseStatus.valueOf(head.status())
        : HttpResponseStatus.valueOf(head.status(), head.reason());
    HttpHeaders out = new CompactHttpHeaders();
    HopByHop drop = HopByHop.of(head.headers());
    boolean switching = head.status() == 101;
    Headers headers = head.headers();
    for (int i = 0; i < headers.size(); i++) {
      CharSequence name = headers.name(i);
      if (drop.drops(name) && !(switching && (isToken(name, 0, name.length(), "upgrade")
          || isToken(name, 0, name.length(), "connection")))) {
        continue;
      }
      out.add(name, headers.value(i));
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
    if (!h.contains(HttpHeaderNames.TRANSFER_ENCODING)) {
      return false; // the common case, without the list getAll would make
    }
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

  public static boolean allDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /**
   * Request-smuggling checks beyond the decoder's: returns a reason when the request's framing is
   * ambiguous (RFC 9112 §6.1, §6.3) or a field may not be forwarded, or null when it is fine.
   */
  public static String framingProblem(HttpRequest req) {
    HttpHeaders h = req.headers();
    // One pass over the fields, reading the decoder's AsciiStrings in place; lists are only built
    // for the rare fields that need them (Transfer-Encoding, a repeated Content-Length).
    int te = 0;
    int cl = 0;
    int host = 0;
    CharSequence contentLength = null;
    String connectionNames = null;
    String badField = null;
    Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      CharSequence value = e.getValue();
      if (badField == null) {
        badField = fieldProblem(name, value);
      }
      if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.TRANSFER_ENCODING)) {
        te++;
      } else if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.CONTENT_LENGTH)) {
        if (cl++ == 0) {
          contentLength = value;
        }
      } else if (AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.HOST)) {
        host++;
      } else if (connectionNames == null && AsciiString.contentEqualsIgnoreCase(name, HttpHeaderNames.CONNECTION)) {
        for (int start = tokenStart(value, 0); start >= 0; start = tokenStart(value, tokenEnd(value, start))) {
          String never = neverHopByHop(value, start, trimmedEnd(value, start, tokenEnd(value, start)));
          if (never != null) {
            connectionNames = never;
            break;
          }
        }
      }
    }
    if (te > 0 && cl > 0) {
      return "both Content-Length and Transfer-Encoding are present";
    }
    if (te > 0) {
      if (req.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
        return "Transfer-Encoding in an HTTP/1.0 request";
      }
      List<String> values = h.getAll(HttpHeaderNames.TRANSFER_ENCODING);
      List<String> codings = new ArrayList<>();
      for (String v : values) {
        for (String t : v.split(",")) {
          codings.add(t.trim().toLowerCase(Locale.ROOT));
        }
      }
      if (!codings.get(codings.size() - 1).equals("chunked")) {
        return "Transfer-Encoding does not end with chunked: " + String.join(", ", values);
      }
      if (codings.indexOf("chunked") != codings.size() - 1) {
        return "chunked applied more than once";
      }
    }
    if (cl > 1) {
      return "more than one Content-Length";
    }
    if (cl == 1) {
      String v = contentLength.toString().trim();
      if (v.isEmpty() || v.length() > 18 || !allDigits(v)) {
        return "invalid Content-Length: " + contentLength;
      }
    }
    if (connectionNames != null) {
      return "the Connection header names " + connectionNames + ", which a proxy must not remove";
    }
    if (host > 1) {
      return "more than one Host header";
    }
    if (host == 0 && req.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
      return "HTTP/1.1 request without a Host header";
    }
    return badField;
  }

  /** Why a field's name or value may not be forwarded, or null. */
  public static String fieldProblem(CharSequence name, CharSequence value) {
    return fieldProblem(name, 0, value);
  }

  /**
   * {@link #fieldProblem(CharSequence, CharSequence)} of the name {@code name[from, length)} (an
   * HTTP/2 pseudo-header's name without its colon: no copy is made unless there is a problem).
   */
  public static String fieldProblem(CharSequence name, int from, CharSequence value) {
    if (name.length() == from) {
      return "invalid header name: ";
    }
    for (int i = from; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c == ':' || c >= 127) {
        return "invalid header name: " + name.subSequence(from, name.length());
      }
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        return "bare CR, LF or NUL in the value of " + name.subSequence(from, name.length());
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
