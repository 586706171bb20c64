package dev.loupe.engine.api.intercept;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

/**
 * A request as a rule, a breakpoint editor or the composer sees and changes it: method, absolute
 * URL, headers and the whole body. Immutable; the {@code with...} methods make edited copies.
 *
 * <p>The body is the <em>decoded</em> body when the request's {@code Content-Encoding} is one Loupe
 * can re-encode (gzip, deflate): edit the text, and the engine compresses it again and fixes
 * {@code Content-Length} on the way out (see {@link ContentCoding}). Other encodings are left as they
 * came.
 *
 * @param method      e.g. {@code POST}
 * @param url         absolute {@code http(s)://host[:port]/path?query}
 * @param httpVersion what the client spoke (informational; the server leg picks its own)
 * @param headers     header fields in order
 * @param body        the body bytes (never null; empty for none)
 */
public record RequestDraft(String method, String url, String httpVersion, Headers headers, byte[] body) {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  public RequestDraft {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(httpVersion, "httpVersion");
    Objects.requireNonNull(headers, "headers");
    body = body == null ? new byte[0] : body;
  }

  /** A draft of {@code head} with {@code body} as it was on the wire (decoded here when possible). */
  public static RequestDraft of(RequestHead head, byte[] wireBody) {
    return new RequestDraft(head.method(), head.url(), head.httpVersion(), head.headers(),
        ContentCoding.decodeOrKeep(head.headers(), wireBody));
  }

  /**
   * The head this draft sends: scheme, host, port and target from the URL.
   *
   * <p>The authority is checked strictly (it decides where the request goes); the path and query are
   * kept as written, as the proxy keeps them on the wire: characters RFC 3986 does not list there
   * ({@code ?a[]=1}, {@code |}, {@code {}}) are what real clients send and origins accept, so a captured
   * request can be edited and replayed as it was. Non-ASCII characters (typed in an editor) are sent
   * percent-encoded as UTF-8; a space or a control character is refused. A fragment and user
   * information ({@code user:password@}) are left out.
   *
   * @throws IllegalArgumentException when the URL is not an absolute http or https URL
   */
  public RequestHead toHead() {
    String raw = url.trim();
    int sep = raw.indexOf("://");
    String scheme = sep <= 0 ? "" : raw.substring(0, sep).toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("the URL must start with http:// or https://, got " + url);
    }
    int authEnd = sep + 3;
    while (authEnd < raw.length() && "/?#".indexOf(raw.charAt(authEnd)) < 0) {
      authEnd++;
    }
    // user information (user:password@) is not part of the request (RFC 9110 §4.2.4); it is left out
    // here, as it always was, and the composer keeps it out of its history (HistorySecrets)
    String authority = raw.substring(raw.lastIndexOf('@', authEnd - 1) < sep + 3 ? sep + 3
        : raw.lastIndexOf('@', authEnd - 1) + 1, authEnd);
    URI u;
    try {
      u = new URI(scheme + "://" + authority + "/");
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("invalid host or port in URL " + url + ": " + e.getReason());
    }
    String host = u.getHost();
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("no host in URL " + url);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (u.getPort() == 0 || u.getPort() > 65535) {
      throw new IllegalArgumentException("invalid host or port in URL " + url + ": port out of range");
    }
    int port = u.getPort() > 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
    String rest = raw.substring(authEnd);
    int hash = rest.indexOf('#');
    if (hash >= 0) {
      rest = rest.substring(0, hash);
    }
    String target = target(rest.isEmpty() ? "/" : rest.charAt(0) == '?' ? "/" + rest : rest);
    String m = method.trim();
    if (m.isEmpty() || !m.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
      throw new IllegalArgumentException("invalid method: \"" + method + "\"");
    }
    return new RequestHead(m, scheme, host.toLowerCase(Locale.ROOT), port, target, httpVersion, headers);
  }

  /** The path and query as sent: visible ASCII kept, other characters percent-encoded as UTF-8. */
  private String target(String t) {
    StringBuilder out = null;
    for (int i = 0; i < t.length(); i++) {
      char c = t.charAt(i);
      if (c < 0x20 || c == 0x7F) {
        throw new IllegalArgumentException("control character 0x" + Integer.toHexString(c) + " in URL " + url);
      }
      if (c == ' ') {
        throw new IllegalArgumentException("space in URL (write it as %20): " + url);
      }
      if (c < 0x80) {
        if (out != null) {
          out.append(c);
        }
        continue;
      }
      if (out == null) {
        out = new StringBuilder(t.length() + 16).append(t, 0, i);
      }
      int cp = t.codePointAt(i);
      if (Character.isSurrogate((char) cp) && Character.charCount(cp) == 1) {
        throw new IllegalArgumentException("an unpaired surrogate in URL " + url);
      }
      if (Character.charCount(cp) == 2) {
        i++;
      }
      for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
        out.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
      }
    }
    return out == null ? t : out.toString();
  }

  /** The body as it goes on the wire: encoded again per {@code Content-Encoding}. */
  public byte[] wireBody() {
    return ContentCoding.encodeOrKeep(headers, body);
  }

  public RequestDraft withMethod(String m) {
    return new RequestDraft(m, url, httpVersion, headers, body);
  }

  public RequestDraft withUrl(String u) {
    return new RequestDraft(method, u, httpVersion, headers, body);
  }

  public RequestDraft withHeaders(Headers h) {
    return new RequestDraft(method, url, httpVersion, h, body);
  }

  public RequestDraft withBody(byte[] b) {
    return new RequestDraft(method, url, httpVersion, headers, b);
  }

  /** The body as UTF-8 text (for editors and regex rules). */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** Same method, URL, headers and body bytes. */
  public boolean sameAs(RequestDraft o) {
    return o != null && method.equals(o.method) && url.equals(o.url) && headers.equals(o.headers)
        && java.util.Arrays.equals(body, o.body);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequestDraft d && sameAs(d) && httpVersion.equals(d.httpVersion);
  }

  @Override
  public int hashCode() {
    return Objects.hash(method, url, headers, java.util.Arrays.hashCode(body));
  }

  @Override
  public String toString() {
    return method + " " + url + " (" + body.length + " body bytes)";
  }
}
