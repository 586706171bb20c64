package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.WebSocketMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code ~b ~bq ~bs}: a case-insensitive regex searched in the first {@link BodyText#LIMIT} bytes of
 * the request and/or response body (content coding undone, see {@link BodyText}) and in the
 * WebSocket messages sent by that side.
 *
 * <h3>Bytes, not characters</h3>
 * Like mitmproxy, which matches bodies as bytes, the body is never decoded into a String: the regex
 * is encoded as UTF-8 and both are read as ISO-8859-1, one char per byte. So a regex with non-ASCII
 * characters finds them in UTF-8 bodies, {@code .} matches one byte, and case is ignored for ASCII
 * letters only.
 */
final class BodyAtom extends Filter {
  /** Which messages are searched. */
  enum Side {
    /** {@code ~b}: request and response. */
    ANY("b", true, true),
    /** {@code ~bq}: the request (and client-to-server WebSocket messages). */
    REQUEST("bq", true, false),
    /** {@code ~bs}: the response (and server-to-client WebSocket messages). */
    RESPONSE("bs", false, true);

    final String code;
    final boolean request;
    final boolean response;

    Side(String code, boolean request, boolean response) {
      this.code = code;
      this.request = request;
      this.response = response;
    }
  }

  private final Side side;
  private final String regex;
  /** Non-null when the regex has no metacharacters: searched without a Matcher. */
  private final Literal literal;
  private final ThreadLocal<Matcher> matchers;

  private BodyAtom(Side side, String regex, Pattern pattern) {
    this.side = side;
    this.regex = regex;
    this.literal = Literal.of(pattern.pattern(), false);
    this.matchers = ThreadLocal.withInitial(() -> pattern.matcher(""));
  }

  /**
   * Compiles {@code regex} for byte-wise matching.
   *
   * @throws PatternSyntaxException when the regex is invalid
   */
  static BodyAtom compile(Side side, String regex) {
    String bytewise = new String(regex.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    return new BodyAtom(side, regex, Pattern.compile(bytewise, Pattern.CASE_INSENSITIVE | Pattern.DOTALL));
  }

  @Override
  public boolean test(Flow flow) {
    Scratch scratch = Scratch.get();
    if (side.request) {
      RequestHead request = flow.request();
      if (request != null && find(flow.requestBody(), request.headers().get("content-encoding"), scratch)) {
        return true;
      }
    }
    if (side.response) {
      ResponseHead response = flow.response();
      if (response != null && find(flow.responseBody(), response.headers().get("content-encoding"), scratch)) {
        return true;
      }
    }
    return flow.isWebSocket() && findInMessages(flow.webSocketMessages(), scratch);
  }

  @Override
  boolean bodyOnly() {
    return true;
  }

  /** {@link #test} on a stored flow's bodies: the same steps, each body decoded once per flow. */
  @Override
  boolean testBodies(BodyScan.Bodies flow) {
    Scratch scratch = Scratch.get();
    for (int part = 0; part < 2; part++) {
      boolean request = part == 0;
      if ((request ? side.request : side.response) && flow.hasHead(request)) {
        BodyText.Buffer text = flow.text(request);
        if (text.length > 0 && find(text.bytes, text.length, scratch)) {
          return true;
        }
      }
    }
    return flow.webSocket() && findInMessages(flow.messages(), scratch);
  }

  /** Which messages {@link #test} reads: the request body, the response body. */
  boolean reads(boolean request) {
    return request ? side.request : side.response;
  }

  private boolean find(Body body, String contentEncoding, Scratch scratch) {
    int n = BodyText.read(body, contentEncoding, scratch.body);
    return n > 0 && find(scratch.body.bytes, n, scratch);
  }

  private boolean find(byte[] bytes, int length, Scratch scratch) {
    return literal != null ? literal.inBytes(bytes, length)
        : matchers.get().reset(scratch.text.reset(bytes, length)).find();
  }

  private boolean findInMessages(List<WebSocketMessage> messages, Scratch scratch) {
    for (WebSocketMessage m : messages) {
      boolean fromClient = m.direction() == WebSocketMessage.Direction.CLIENT_TO_SERVER;
      if (fromClient ? side.request : side.response) {
        byte[] payload = m.payload();
        int n = Math.min(payload.length, BodyText.LIMIT);
        if (n > 0 && find(payload, n, scratch)) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  void sql(FilterSql.Builder out) {
    out.needsBodies = true;
    out.inexact();
  }

  @Override
  void print(StringBuilder out) {
    out.append('~').append(side.code).append(' ');
    Printing.argument(out, regex);
  }
}
