package dev.loupe.app.control;

import java.io.IOException;
import java.util.Map;

/**
 * One way to reach a control API: in this process ({@link ControlServer#inProcess}) or over HTTP
 * with the bearer token ({@code dev.loupe.app.ctl.HttpControlChannel}). The MCP server and
 * {@code loupe ctl} speak to Loupe only through this, so both do exactly what the HTTP API does.
 *
 * <p>Implementations are thread-safe.
 */
public interface ControlChannel {
  /**
   * A reply: the HTTP status and its body (JSON, or empty for none). Errors are
   * {@code {"error": "..."}} with a 4xx/5xx status, as on the wire.
   */
  record Reply(int status, String body) {
    /** Whether the status is 2xx. */
    public boolean ok() {
      return status >= 200 && status < 300;
    }

    /** A refused request's reason: the API's {@code "error"} sentence, else the status and body. */
    public String error() {
      try {
        com.fasterxml.jackson.databind.JsonNode n = ControlJson.MAPPER.readTree(body);
        if (n != null && n.path("error").isTextual()) {
          return n.get("error").asText();
        }
      } catch (java.io.IOException e) {
        // not JSON: say what came
      }
      return "Loupe answered " + status + (body.isBlank() ? "" : ": " + body.strip());
    }
  }

  /**
   * Sends one request.
   *
   * @param path  e.g. {@code /flows/12}
   * @param query query parameters (sent encoded; null values are left out)
   * @param body  the JSON body, or null for none
   * @throws IOException when the API cannot be reached (never for an error reply)
   */
  Reply send(String method, String path, Map<String, String> query, String body) throws IOException;

  /** Where this channel goes, for messages ("this process" or the URL). */
  String describe();
}
