package dev.loupe.engine.internal.protocol.http2;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.protocol.http1.HeaderNames;
import dev.loupe.engine.internal.protocol.http1.Http1Messages;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/2 header blocks ⇄ neutral heads, read and written in place: the names and values Netty's
 * HPACK decoder made ({@code AsciiString}s) are wrapped, not copied into Strings ({@link
 * Headers#wrap}), and neutral fields go out as the character sequences they are. The rules are
 * those the HTTP/1 object adapter ({@code Http2StreamFrameToHttpObjectCodec}) applied, so a flow
 * records and forwards the same fields on either path:
 * <ul>
 *   <li>requests in: pseudo-header fields become the head (method, target, authority), never
 *       fields; {@code cookie} crumbs are joined into one field (RFC 9113 §8.2.3); {@code trailer},
 *       {@code transfer-encoding} and {@code connection} are dropped, and so are fields named
 *       {@code x-http2-*}/{@code x-http3-*} (the adapters' own extension fields, which a client
 *       could otherwise use to steer them); without {@code :authority} the first {@code host}
 *       field is the authority, not a field.</li>
 *   <li>responses and trailers out: RFC 9110 §7.6.1 hop-by-hop fields and HTTP/2's
 *       connection-specific ones (RFC 9113 §8.2.2) are dropped, names lower-cased.</li>
 * </ul>
 */
public final class Http2Messages {
  private static final AsciiString HTTPS = AsciiString.cached("https");
  private static final AsciiString HTTP = AsciiString.cached("http");
  private static final AsciiString TE = AsciiString.cached("te");
  private static final AsciiString TRAILERS = AsciiString.cached("trailers");

  private Http2Messages() {}

  // ---- requests in ---------------------------------------------------------------------------

  /**
   * Why a request's header block is malformed (RFC 9113 §8.3.1): the stream is reset, nothing
   * reaches an origin. Null when it is well formed.
   */
  public static String malformed(Http2Headers h) {
    CharSequence method = h.method();
    if (method == null) {
      return "no :method";
    }
    if (!isToken(method)) {
      return "invalid :method";
    }
    if (isConnect(method)) {
      return h.authority() == null ? "CONNECT without :authority" : null;
    }
    CharSequence path = h.path();
    return path == null || path.length() == 0 ? "no :path" : null;
  }

  /** Whether {@code method} is CONNECT (methods are case-sensitive). */
  public static boolean isConnect(CharSequence method) {
    return AsciiString.contentEquals(method, "CONNECT");
  }

  /**
   * Why a well-formed request is refused (400) before an origin sees it, as on HTTP/1.1: more than
   * one {@code content-length} or an invalid one, no authority or two, a field that may not be
   * forwarded. Null when it may go.
   */
  public static String requestProblem(Http2Headers h) {
    int cl = 0;
    int host = h.authority() != null ? 1 : 0;
    CharSequence contentLength = null;
    String badField = null;
    Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iterator();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      CharSequence value = e.getValue();
      boolean pseudo = name.length() > 0 && name.charAt(0) == ':';
      if (badField == null) {
        badField = Http1Messages.fieldProblem(name, pseudo ? 1 : 0, value);
      }
      if (pseudo) {
        continue;
      }
      if (is(name, "content-length")) {
        if (cl++ == 0) {
          contentLength = value;
        }
      } else if (is(name, "host")) {
        host++;
      }
    }
    if (cl > 1) {
      return "more than one Content-Length";
    }
    if (cl == 1) {
      String v = contentLength.toString().trim();
      if (v.isEmpty() || v.length() > 18 || !Http1Messages.allDigits(v)) {
        return "invalid Content-Length: " + contentLength;
      }
    }
    if (host > 1) {
      return "more than one Host header";
    }
    if (host == 0) {
      return "HTTP/2 request without :authority or Host";
    }
    return badField;
  }

  /** The request target: {@code :authority} for CONNECT, else {@code :path}. */
  public static String target(Http2Headers h) {
    CharSequence method = h.method();
    return (isConnect(method) ? h.authority() : h.path()).toString();
  }

  /** The end-to-end fields of a request head, as the client sent them (see the class comment). */
  public static Headers requestHeaders(Http2Headers h) {
    return fields(h, h.authority() == null);
  }

  /**
   * The fields of a response head or a trailer block, as the peer sent them (pseudo-header fields
   * left out; see the class comment).
   */
  public static Headers fields(Http2Headers h) {
    return fields(h, false);
  }

  private static Headers fields(Http2Headers h, boolean hostIsAuthority) {
    if (h.isEmpty()) {
      return Headers.EMPTY;
    }
    CharSequence[] out = new CharSequence[2 * h.size()];
    int n = 0;
    int cookies = 0;
    int lastCookie = -1;
    Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iterator();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      if (name.length() == 0 || name.charAt(0) == ':' || dropped(name)) {
        continue;
      }
      if (hostIsAuthority && is(name, "host")) {
        hostIsAuthority = false;
        continue;
      }
      if (is(name, "cookie")) {
        cookies++;
        lastCookie = n;
      }
      out[2 * n] = name;
      out[2 * n + 1] = e.getValue();
      n++;
    }
    if (cookies > 1) {
      n = joinCookies(out, n, lastCookie);
    }
    return Headers.wrap(out, n);
  }

  /** One {@code cookie} field where the last crumb was, its value the crumbs joined by "; ". */
  private static int joinCookies(CharSequence[] fields, int n, int last) {
    StringBuilder joined = new StringBuilder();
    int kept = 0;
    CharSequence name = fields[2 * last];
    for (int i = 0; i < n; i++) {
      CharSequence fieldName = fields[2 * i];
      CharSequence value = fields[2 * i + 1];
      if (is(fieldName, "cookie")) {
        joined.append(joined.length() == 0 ? "" : "; ").append(value);
        if (i != last) {
          continue;
        }
        value = joined.toString();
        fieldName = name;
      }
      fields[2 * kept] = fieldName;
      fields[2 * kept + 1] = value;
      kept++;
    }
    return kept;
  }

  /** Request fields the adapter never passed on (see the class comment). */
  private static boolean dropped(CharSequence name) {
    if (name.length() > 8 && (name.charAt(0) == 'x' || name.charAt(0) == 'X')) {
      return Http1Messages.isToken(name, 0, 8, "x-http2-") || Http1Messages.isToken(name, 0, 8, "x-http3-");
    }
    return switch (name.length()) {
      case 7 -> is(name, "trailer");
      case 10 -> is(name, "connection");
      case 17 -> is(name, "transfer-encoding");
      default -> false;
    };
  }

  // ---- requests out --------------------------------------------------------------------------

  /**
   * The header block of {@code head} for an HTTP/2 origin: pseudo-header fields from the head
   * ({@code :authority} is {@code authority}, {@code :scheme} the connection's), then the end-to-end
   * fields, {@code te: trailers} kept (RFC 9113 §8.2.2). Fields read as HTTP/2 go out as the same
   * character sequences.
   */
  public static Http2Headers requestHeaders(RequestHead head, String authority, boolean tls) {
    Headers fields = head.headers();
    DefaultHttp2Headers out = new DefaultHttp2Headers(false, fields.size() + 4);
    out.method(HttpMethod.valueOf(head.method()).asciiName());
    out.scheme(tls ? HTTPS : HTTP);
    out.authority(authority);
    out.path(head.target());
    Http1Messages.HopByHop drop = Http1Messages.HopByHop.of(fields);
    for (int i = 0; i < fields.size(); i++) {
      CharSequence name = fields.name(i);
      CharSequence value = fields.value(i);
      if (name.length() == 2 && is(name, "te")) {
        if (value.toString().trim().equalsIgnoreCase("trailers")) {
          out.add(TE, TRAILERS);
        }
        continue;
      }
      if (drop.drops(name) || connectionSpecific(name)) {
        continue;
      }
      out.add(lowerCase(name), value);
    }
    return out;
  }

  // ---- responses in --------------------------------------------------------------------------

  /**
   * The status of a response header block, or -1 when it has none or it is not three digits
   * (RFC 9113 §8.3.2: the response is malformed).
   */
  public static int status(Http2Headers h) {
    CharSequence s = h.status();
    if (s == null || s.length() != 3) {
      return -1;
    }
    int code = 0;
    for (int i = 0; i < 3; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      code = code * 10 + (c - '0');
    }
    return code >= 100 ? code : -1;
  }

  // ---- responses out -------------------------------------------------------------------------

  /**
   * The header block of {@code head} for an HTTP/2 client: {@code :status} and the end-to-end
   * fields; {@code altSvc}, when not null, replaces the origin's {@code alt-svc} fields.
   */
  public static Http2Headers responseHeaders(ResponseHead head, String altSvc) {
    Headers fields = head.headers();
    DefaultHttp2Headers out = new DefaultHttp2Headers(false, fields.size() + 2);
    out.status(HttpResponseStatus.valueOf(head.status()).codeAsText());
    copy(fields, out, altSvc != null);
    if (altSvc != null) {
      out.add("alt-svc", altSvc);
    }
    return out;
  }

  /** Trailers for an HTTP/2 peer: the end-to-end fields. */
  public static Http2Headers trailers(Headers trailers) {
    DefaultHttp2Headers out = new DefaultHttp2Headers(false, trailers.size());
    copy(trailers, out, false);
    return out;
  }

  private static void copy(Headers fields, Http2Headers out, boolean dropAltSvc) {
    Http1Messages.HopByHop drop = Http1Messages.HopByHop.of(fields);
    for (int i = 0; i < fields.size(); i++) {
      CharSequence name = fields.name(i);
      if (drop.drops(name) || connectionSpecific(name) || dropAltSvc && is(name, "alt-svc")) {
        continue;
      }
      out.add(lowerCase(name), fields.value(i));
    }
  }

  /**
   * Fields HTTP/2 does not carry (RFC 9113 §8.2.2) beyond the hop-by-hop ones, and the adapter's
   * extension fields.
   */
  private static boolean connectionSpecific(CharSequence name) {
    return switch (name.length()) {
      case 4 -> is(name, "host");
      case 12 -> is(name, "x-http2-path");
      case 14 -> is(name, "x-http2-scheme");
      case 17 -> is(name, "transfer-encoding") || is(name, "x-http2-stream-id");
      default -> false;
    };
  }

  /**
   * {@code name} as it is when it has no upper-case letter, else lower-cased: a common name's
   * constant ({@link HeaderNames}), else a lower-cased copy.
   */
  static CharSequence lowerCase(CharSequence name) {
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        AsciiString known = HeaderNames.lowerCase(name);
        return known != null ? known : name.toString().toLowerCase(Locale.ROOT);
      }
    }
    return name;
  }

  static boolean is(CharSequence name, String lower) {
    return name.length() == lower.length() && Http1Messages.isToken(name, 0, name.length(), lower);
  }

  /** Whether {@code s} is an RFC 9110 token (a method name). */
  private static boolean isToken(CharSequence s) {
    if (s.length() == 0) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
