package dev.loupe.app.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.internal.record.RecordingStore;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route of the control API (the README's table, every method, plus unknown, odd and
 * encoded paths) refuses a caller without the right token (a path starting with "//" gets the JDK
 * server's own 404: no context takes it, so no handler runs) — no token, a wrong or truncated one,
 * another scheme, the token in the query string or a cookie — with 401, before any work: the
 * replayer is never called and the rule and breakpoint lists stay as they were.
 */
@Timeout(600)
class ControlAuthTest {
  private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE"};
  private static final String[] PATHS = {"/", "/flows", "/flows/1", "/flows/1/replay", "/compose", "/breakpoints",
      "/breakpoints/abc", "/breakpoints/abc/move", "/breakpoints/abc/enable", "/rules", "/rules/abc",
      "/rules/abc/move", "/rules/abc/enable", "/paused", "/paused/1", "/paused/1/resume", "/paused/1/abort",
      "/paused/1/answer", "/nosuch", "//flows", "/flows/../rules", "/%2e%2e/rules", "/FLOWS", "/rules/", "/flows?filter=~all",
      "/compose?wait=true", "/flows/1/replay?wait=true&timeout=1"};
  private static final String BODY = "[{\"filter\":\"~all\",\"request\":true,"
      + "\"action\":{\"type\":\"block\",\"mode\":\"CLOSE\"}}]";

  @TempDir Path tmp;
  FlowStore store;
  InterceptService intercept;
  ControlServer server;
  String token;
  String base;
  final AtomicInteger replays = new AtomicInteger();
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @BeforeEach
  void start() throws Exception {
    store = new RecordingStore();
    intercept = InterceptService.create();
    Replayer counting = (request, protocol, replayOf) -> {
      replays.incrementAndGet();
      throw new UnsupportedOperationException("no proxy in this test");
    };
    token = ControlToken.generate();
    server = ControlServer.start(new InetSocketAddress("127.0.0.1", 0), token,
        new ControlApi(store, intercept, counting, () -> "127.0.0.1:1"));
    base = "http://127.0.0.1:" + server.address().getPort();
  }

  @AfterEach
  void stop() {
    server.close();
    intercept.close();
  }

  @Test
  void everyRouteAndMethodRefusesEveryWrongCredential() throws Exception {
    List<String[]> wrong = List.of(
        new String[] {},
        new String[] {"Authorization", "Bearer"},
        new String[] {"Authorization", "Bearer "},
        new String[] {"Authorization", "Bearer nope"},
        new String[] {"Authorization", "Bearer " + token.substring(0, token.length() - 1)},
        new String[] {"Authorization", "Bearer " + token + "x"},
        new String[] {"Authorization", "Basic " + token},
        new String[] {"Authorization", token},
        new String[] {"Authorization", "Bearer  " + token.toUpperCase(java.util.Locale.ROOT)},
        new String[] {"Cookie", "token=" + token},
        new String[] {"X-Token", token});
    List<String> failures = new ArrayList<>();
    int checked = 0;
    for (String path : PATHS) {
      for (String method : METHODS) {
        // Every method without a token; the other wrong credentials with the methods that change things.
        List<String[]> tried = List.of("GET", "POST", "PUT", "DELETE").contains(method) ? wrong
            : List.<String[]>of(wrong.get(0));
        for (String[] credential : tried) {
          HttpResponse<String> r = send(method, path, credential, false);
          checked++;
          if (!refused(r)) {
            failures.add(method + " " + path + " " + String.join(": ", credential) + " -> " + r.statusCode());
          }
        }
        HttpResponse<String> inQuery = send(method, path + (path.contains("?") ? "&" : "?") + "token=" + token,
            new String[] {}, false);
        checked++;
        if (!refused(inQuery)) {
          failures.add(method + " " + path + " with the token in the query -> " + inQuery.statusCode());
        }
      }
    }
    assertThat(failures).as("of %d requests", checked).isEmpty();
    assertThat(replays).as("the replayer was never reached").hasValue(0);
    assertThat(intercept.rules().entries()).isEmpty();
    assertThat(intercept.breakpoints().entries()).isEmpty();

    // The right token opens the same routes (so the 401s above were about the token, not the route).
    assertThat(send("GET", "/flows", new String[] {"Authorization", "Bearer " + token}, false).statusCode())
        .isEqualTo(200);
    assertThat(send("PUT", "/rules", new String[] {"Authorization", "Bearer " + token}, true).statusCode())
        .isEqualTo(200);
    assertThat(intercept.rules().entries()).hasSize(1);
  }

  /**
   * A 401 from the API, or the JDK HTTP server's own 404 for a path no context takes (a path
   * starting with "//"): then no handler ran at all, so nothing was served either.
   */
  private static boolean refused(HttpResponse<String> r) {
    return r.statusCode() == 401 || (r.statusCode() == 404 && !r.body().contains("\"error\""));
  }

  private HttpResponse<String> send(String method, String path, String[] header, boolean withBody) throws Exception {
    boolean body = withBody || method.equals("POST") || method.equals("PUT") || method.equals("PATCH");
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
        .method(method, body ? HttpRequest.BodyPublishers.ofString(BODY, StandardCharsets.UTF_8)
            : HttpRequest.BodyPublishers.noBody());
    if (header.length == 2) {
      b.header(header[0], header[1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }
}
