package dev.loupe.engine.api.intercept;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A response as a rule or a breakpoint editor sees and changes it: status, reason, headers and the
 * whole body (decoded when its {@code Content-Encoding} is gzip or deflate, see {@link RequestDraft}).
 *
 * @param status      e.g. 200 (100..999)
 * @param reason      reason phrase (HTTP/1.1 only; may be empty)
 * @param httpVersion what the origin spoke (informational)
 * @param headers     header fields in order
 * @param body        the body bytes (never null)
 */
public record ResponseDraft(int status, String reason, String httpVersion, Headers headers, byte[] body) {
  public ResponseDraft {
    if (status < 100 || status > 999) {
      throw new IllegalArgumentException("status must be 100..999, got " + status);
    }
    reason = reason == null ? "" : reason;
    Objects.requireNonNull(httpVersion, "httpVersion");
    Objects.requireNonNull(headers, "headers");
    body = body == null ? new byte[0] : body;
  }

  public static ResponseDraft of(ResponseHead head, byte[] wireBody) {
    return new ResponseDraft(head.status(), head.reason(), head.httpVersion(), head.headers(),
        ContentCoding.decodeOrKeep(head.headers(), wireBody));
  }

  /** A {@code status} response with a text body (content type {@code text/plain; charset=utf-8}). */
  public static ResponseDraft text(int status, String text) {
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    return new ResponseDraft(status, Statuses.reason(status), "HTTP/1.1",
        Headers.of("content-type", "text/plain; charset=utf-8"), b);
  }

  public ResponseHead toHead() {
    return new ResponseHead(status, reason, httpVersion, headers);
  }

  /** The body as it goes on the wire: encoded again per {@code Content-Encoding}. */
  public byte[] wireBody() {
    return ContentCoding.encodeOrKeep(headers, body);
  }

  public ResponseDraft withStatus(int s) {
    return new ResponseDraft(s, s == status ? reason : Statuses.reason(s), httpVersion, headers, body);
  }

  public ResponseDraft withHeaders(Headers h) {
    return new ResponseDraft(status, reason, httpVersion, h, body);
  }

  public ResponseDraft withBody(byte[] b) {
    return new ResponseDraft(status, reason, httpVersion, headers, b);
  }

  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  public boolean sameAs(ResponseDraft o) {
    return o != null && status == o.status && headers.equals(o.headers) && java.util.Arrays.equals(body, o.body);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResponseDraft d && sameAs(d) && reason.equals(d.reason);
  }

  @Override
  public int hashCode() {
    return Objects.hash(status, headers, java.util.Arrays.hashCode(body));
  }

  @Override
  public String toString() {
    return status + " " + reason + " (" + body.length + " body bytes)";
  }
}
