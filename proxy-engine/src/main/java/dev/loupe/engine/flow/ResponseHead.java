package dev.loupe.engine.flow;

import java.util.Objects;

/**
 * The head of a response (final or informational), protocol neutral.
 *
 * @param status      status code
 * @param reason      reason phrase (empty for HTTP/2 and HTTP/3)
 * @param httpVersion e.g. {@code HTTP/1.1}
 * @param headers     header fields as received from the origin
 */
public record ResponseHead(int status, String reason, String httpVersion, Headers headers) {
  public ResponseHead {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(httpVersion, "httpVersion");
    Objects.requireNonNull(headers, "headers");
  }

  public boolean informational() {
    return status >= 100 && status < 200;
  }
}
