package dev.loupe.engine.flow;

import java.util.Objects;

/**
 * The head of a request, protocol neutral.
 *
 * @param method      request method, e.g. {@code GET}
 * @param scheme      {@code http} or {@code https}
 * @param host        the origin host (no brackets for IPv6)
 * @param port        the origin port
 * @param target      the path and query as sent to the origin ({@code /a?b=c}); {@code host:port} for CONNECT
 * @param httpVersion e.g. {@code HTTP/1.1}
 * @param headers     header fields as received from the client
 */
public record RequestHead(
    String method, String scheme, String host, int port, String target, String httpVersion, Headers headers) {
  public RequestHead {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(scheme, "scheme");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(httpVersion, "httpVersion");
    Objects.requireNonNull(headers, "headers");
  }

  /** The absolute URL: {@code https://host[:port]/path?query}; default ports are omitted. */
  public String url() {
    if ("CONNECT".equals(method)) {
      return authority();
    }
    return scheme + "://" + authority() + target;
  }

  /** {@code host[:port]}, port omitted when it is the scheme's default; IPv6 in brackets. */
  public String authority() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    boolean defaultPort = ("http".equals(scheme) && port == 80) || ("https".equals(scheme) && port == 443);
    return defaultPort ? h : h + ":" + port;
  }

  /** The path without the query string. */
  public String path() {
    int q = target.indexOf('?');
    return q < 0 ? target : target.substring(0, q);
  }

  /** The raw query string without '?', or null. */
  public String query() {
    int q = target.indexOf('?');
    return q < 0 ? null : target.substring(q + 1);
  }

  public RequestHead withHeaders(Headers newHeaders) {
    return new RequestHead(method, scheme, host, port, target, httpVersion, newHeaders);
  }
}
