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
   * @throws IllegalArgumentException when the URL is not an absolute http or https URL
   */
  public RequestHead toHead() {
    URI u;
    try {
      u = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("invalid URL: " + e.getMessage());
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("the URL must start with http:// or https://, got " + url);
    }
    String host = u.getHost();
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("no host in URL " + url);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = u.getPort() > 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
    String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
    String target = u.getRawQuery() == null ? path : path + "?" + u.getRawQuery();
    String m = method.trim();
    if (m.isEmpty() || !m.chars().allMatch(c -> c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
      throw new IllegalArgumentException("invalid method: \"" + method + "\"");
    }
    return new RequestHead(m, scheme, host.toLowerCase(Locale.ROOT), port, target, httpVersion, headers);
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
