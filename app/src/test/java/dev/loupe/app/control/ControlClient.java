package dev.loupe.app.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A caller of the control API over real HTTP (the JDK client), with or without the token. */
final class ControlClient {
  static final ObjectMapper JSON = new ObjectMapper();

  /** A reply: status, JSON body (null when empty) and the raw response. */
  record Reply(int status, JsonNode json, HttpResponse<String> raw) {
    /** The body as a string, for assertion messages. */
    @Override
    public String toString() {
      return status + " " + raw.body();
    }
  }

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final String base;
  private final String token;

  ControlClient(String hostPort, String token) {
    this.base = "http://" + hostPort;
    this.token = token;
  }

  ControlClient withToken(String other) {
    return new ControlClient(base.substring("http://".length()), other);
  }

  Reply get(String path) {
    return send("GET", path, null);
  }

  Reply delete(String path) {
    return send("DELETE", path, null);
  }

  Reply post(String path, Object json) {
    return send("POST", path, json);
  }

  Reply put(String path, Object json) {
    return send("PUT", path, json);
  }

  /** {@code json}: null (no body), a String (sent as is) or anything Jackson writes. */
  Reply send(String method, String path, Object json) {
    try {
      String body = json == null ? null : json instanceof String s ? s : JSON.writeValueAsString(json);
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(90))
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
      if (token != null) {
        b.header("Authorization", "Bearer " + token);
      }
      if (body != null) {
        b.header("Content-Type", "application/json");
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      JsonNode n = r.body().isBlank() ? null : JSON.readTree(r.body());
      return new Reply(r.statusCode(), n, r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
