package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A case-insensitive regex searched (not anchored) in one part of the request or response head:
 * {@code ~u ~d ~m ~h ~hq ~hs ~t ~tq ~ts}, and {@code ~client} (the launched client a flow came from). Each thread reuses its own {@link Matcher}, and URLs and
 * header lines are presented as views, so a test allocates nothing once warm. A regex without
 * metacharacters is searched by {@link Literal} instead.
 */
final class RegexAtom extends Filter {
  /** Where the regex is searched. */
  enum Target {
    /** {@code ~u}: the absolute URL, as {@link RequestHead#url()} spells it. */
    URL("u"),
    /** {@code ~d}: the origin host. */
    DOMAIN("d"),
    /** {@code ~m}: the request method. */
    METHOD("m"),
    /** {@code ~h}: each {@code name: value} line of the request or the response headers. */
    HEADER("h"),
    /** {@code ~hq}: each {@code name: value} line of the request headers. */
    REQUEST_HEADER("hq"),
    /** {@code ~hs}: each {@code name: value} line of the response headers. */
    RESPONSE_HEADER("hs"),
    /** {@code ~t}: the Content-Type of the request or the response. */
    CONTENT_TYPE("t"),
    /** {@code ~tq}: the request's Content-Type. */
    REQUEST_CONTENT_TYPE("tq"),
    /** {@code ~ts}: the response's Content-Type. */
    RESPONSE_CONTENT_TYPE("ts"),
    /** {@code ~client}: the label of the client Loupe launched that sent the flow ({@link Flow#client()}). */
    CLIENT("client");

    final String code;

    Target(String code) {
      this.code = code;
    }
  }

  private final Target target;
  private final String regex;
  /** Non-null when the regex is a plain ASCII word: searched without a Matcher. */
  private final Literal literal;
  private final ThreadLocal<Matcher> matchers;

  private RegexAtom(Target target, String regex, Pattern pattern) {
    this.target = target;
    this.regex = regex;
    this.literal = Literal.of(regex, true);
    this.matchers = ThreadLocal.withInitial(() -> pattern.matcher(""));
  }

  /**
   * Compiles {@code regex} for {@code target}.
   *
   * @throws PatternSyntaxException when the regex is invalid
   */
  static RegexAtom compile(Target target, String regex) {
    return new RegexAtom(target, regex, Pattern.compile(regex, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE));
  }

  @Override
  public boolean test(Flow flow) {
    RequestHead request = flow.request();
    return switch (target) {
      case URL -> request != null && find(url(request, Scratch.get().url));
      case DOMAIN -> request != null && find(request.host());
      case METHOD -> request != null && find(request.method());
      case HEADER -> (request != null && anyLine(request.headers())) || anyLine(responseHeaders(flow));
      case REQUEST_HEADER -> request != null && anyLine(request.headers());
      case RESPONSE_HEADER -> anyLine(responseHeaders(flow));
      case CONTENT_TYPE -> (request != null && contentType(request.headers())) || contentType(responseHeaders(flow));
      case REQUEST_CONTENT_TYPE -> request != null && contentType(request.headers());
      case RESPONSE_CONTENT_TYPE -> contentType(responseHeaders(flow));
      case CLIENT -> flow.client() != null && find(flow.client());
    };
  }

  @Override
  Tri decide(Flow flow) {
    return switch (target) {
      case URL, DOMAIN, METHOD, REQUEST_HEADER, REQUEST_CONTENT_TYPE, CLIENT -> Tri.of(test(flow));
      case HEADER, CONTENT_TYPE -> test(flow) ? Tri.YES : Tri.MAYBE; // the response may still match
      case RESPONSE_HEADER, RESPONSE_CONTENT_TYPE -> Tri.MAYBE;
    };
  }

  private static Headers responseHeaders(Flow flow) {
    ResponseHead response = flow.response();
    return response == null ? Headers.EMPTY : response.headers();
  }

  private boolean find(CharSequence text) {
    return literal != null ? literal.inText(text) : matchers.get().reset(text).find();
  }

  private boolean anyLine(Headers headers) {
    if (headers.isEmpty()) {
      return false;
    }
    HeaderLine line = Scratch.get().headerLine;
    for (Headers.Field f : headers.fields()) {
      if (find(line.reset(f))) {
        return true;
      }
    }
    return false;
  }

  private boolean contentType(Headers headers) {
    for (Headers.Field f : headers.fields()) {
      if (f.name().equalsIgnoreCase("content-type") && find(f.value())) {
        return true;
      }
    }
    return false;
  }

  /** Writes {@link RequestHead#url()} into {@code out} (cleared first) without intermediate strings. */
  static StringBuilder url(RequestHead request, StringBuilder out) {
    out.setLength(0);
    boolean connect = "CONNECT".equals(request.method());
    if (!connect) {
      out.append(request.scheme()).append("://");
    }
    String host = request.host();
    if (host.indexOf(':') >= 0) {
      out.append('[').append(host).append(']');
    } else {
      out.append(host);
    }
    String scheme = request.scheme();
    int port = request.port();
    boolean defaultPort = ("http".equals(scheme) && port == 80) || ("https".equals(scheme) && port == 443);
    if (!defaultPort) {
      out.append(':').append(port);
    }
    if (!connect) {
      out.append(request.target());
    }
    return out;
  }

  @Override
  void sql(FilterSql.Builder out) {
    switch (target) {
      case URL -> out.find("url", regex);
      case DOMAIN -> out.find("host", regex);
      case METHOD -> out.find("method", regex);
      case REQUEST_CONTENT_TYPE -> out.find("req_type", regex);
      case RESPONSE_CONTENT_TYPE -> out.find("res_type", regex);
      case CONTENT_TYPE -> {
        out.sql("(");
        out.find("req_type", regex);
        out.sql(" OR ");
        out.find("res_type", regex);
        out.sql(")");
      }
      case CLIENT -> out.find("client", regex);
      case HEADER, REQUEST_HEADER, RESPONSE_HEADER -> out.inexact();
    }
  }

  @Override
  void print(StringBuilder out) {
    out.append('~').append(target.code).append(' ');
    Printing.argument(out, regex);
  }
}
