package dev.loupe.app.ctl;

import dev.loupe.app.control.ControlChannel;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;

/**
 * A control API reached over HTTP with its bearer token (the JDK {@link HttpClient}, no proxy:
 * the API is local). Used by {@code loupe ctl} and by {@code loupe mcp} attached to a running Loupe.
 *
 * <p>Thread-safe.
 */
public final class HttpControlChannel implements ControlChannel {
  /** Longest a request may take: a replay with {@code ?wait=true} waits up to 600 s. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(620);

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .proxy(HttpClient.Builder.NO_PROXY)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private final String base;
  private final String token;

  /** {@code base}: e.g. {@code http://127.0.0.1:9090}; {@code token}: the bearer token. */
  public HttpControlChannel(String base, String token) {
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.token = token;
  }

  @Override
  public Reply send(String method, String path, Map<String, String> query, String body) throws IOException {
    StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
    if (query != null) {
      query.forEach((k, v) -> {
        if (v != null) {
          q.add(URLEncoder.encode(k, StandardCharsets.UTF_8) + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8));
        }
      });
    }
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path + q))
        .timeout(REQUEST_TIMEOUT)
        .header("Authorization", "Bearer " + token)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      return new Reply(r.statusCode(), r.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  public String describe() {
    return base;
  }
}
