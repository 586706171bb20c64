package dev.loupe.app.control;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The control API's HTTP server: the JDK's {@code com.sun.net.httpserver} on its own small thread
 * pool (never a proxy event loop), in front of a {@link ControlApi}. Every request must carry
 * {@code Authorization: Bearer TOKEN}; replies are JSON, errors {@code {"error": "..."}}.
 *
 * <p>Lifecycle: {@link #start} binds and serves; {@link #close} stops at once (requests in progress,
 * such as a {@code ?wait=true}, are cut off: it runs when Loupe exits) and closes the API.
 */
public final class ControlServer implements AutoCloseable {
  /** Request bodies larger than this are refused (413). */
  static final int MAX_BODY = 32 << 20;
  /** Worker threads: requests waiting for a replay ({@code ?wait=true}) each hold one. */
  static final int WORKERS = 8;

  private final HttpServer server;
  private final ThreadPoolExecutor workers;
  private final ControlApi api;
  private final byte[] token;

  private ControlServer(HttpServer server, ThreadPoolExecutor workers, ControlApi api, String token) {
    this.server = server;
    this.workers = workers;
    this.api = api;
    this.token = token.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Serves {@code api} on {@code address} (port 0: any free port) for callers presenting {@code token}.
   *
   * @throws IOException when the address cannot be bound
   */
  public static ControlServer start(InetSocketAddress address, String token, ControlApi api) throws IOException {
    return start(address, token, api, Map.of());
  }

  /**
   * An endpoint served beside the API behind the same token (e.g. MCP at {@code /mcp}). It is
   * called only for authorized requests whose path is its own (or below it), on a worker thread,
   * and must close the exchange.
   */
  public interface Mount {
    void serve(HttpExchange exchange) throws IOException;
  }

  /** Like {@link #start(InetSocketAddress, String, ControlApi)}, also serving {@code mounts} by path. */
  public static ControlServer start(InetSocketAddress address, String token, ControlApi api, Map<String, Mount> mounts)
      throws IOException {
    HttpServer server = HttpServer.create(address, 50);
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor workers = new ThreadPoolExecutor(WORKERS, WORKERS, 30, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(256), r -> {
          Thread t = new Thread(r, "loupe-control-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    workers.allowCoreThreadTimeOut(true);
    ControlServer cs = new ControlServer(server, workers, api, token);
    server.createContext("/", cs::serve);
    mounts.forEach((path, mount) -> server.createContext(path, ex -> cs.serveMount(ex, path, mount)));
    server.setExecutor(workers);
    server.start();
    return cs;
  }

  /** The bound address (with the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  @Override
  public void close() {
    server.stop(0); // stop(1) waits the whole second whenever a keep-alive connection is open
    workers.shutdownNow();
    api.close();
  }

  /** The API in this process, without HTTP: the same routes, errors and JSON as over the wire. */
  public static ControlChannel inProcess(ControlApi api) {
    return new ControlChannel() {
      @Override
      public ControlChannel.Reply send(String method, String path, Map<String, String> query, String body) {
        Map<String, String> q = new HashMap<>();
        if (query != null) {
          query.forEach((k, v) -> {
            if (v != null) {
              q.put(k, v);
            }
          });
        }
        byte[] b = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        ControlApi.Reply r = answer(() -> api.handle(method, path, q, b));
        return new ControlChannel.Reply(r.status(), r.json() == null ? "" : r.json());
      }

      @Override
      public String describe() {
        return "this process";
      }
    };
  }

  /** Runs a route, turning a refused request into its error reply. */
  private static ControlApi.Reply answer(java.util.function.Supplier<ControlApi.Reply> route) {
    try {
      return route.get();
    } catch (ApiError e) {
      return error(e.status(), e.getMessage());
    } catch (RuntimeException e) {
      return error(500, "internal error: " + e);
    }
  }

  private void serveMount(HttpExchange ex, String path, Mount mount) throws IOException {
    String p = ex.getRequestURI().getPath();
    if (!authorized(ex.getRequestHeaders().getFirst("Authorization"))) {
      try (ex) {
        send(ex, unauthorized(), null);
      }
      return;
    }
    if (p == null || !(p.equals(path) || p.startsWith(path + "/"))) {
      try (ex) {
        send(ex, error(404, "no such endpoint: " + p), null);
      }
      return;
    }
    mount.serve(ex);
  }

  private void serve(HttpExchange ex) throws IOException {
    try (ex) {
      ControlApi.Reply reply;
      String allow = null;
      try {
        reply = dispatch(ex);
      } catch (ApiError e) {
        reply = error(e.status(), e.getMessage());
        if (e instanceof ControlApi.MethodNotAllowed m) {
          allow = m.allowed;
        }
      } catch (RuntimeException e) {
        reply = error(500, "internal error: " + e);
      }
      send(ex, reply, allow);
    }
  }

  private static void send(HttpExchange ex, ControlApi.Reply reply, String allow) throws IOException {
    if (reply.status() == 401) {
      ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"loupe\"");
    }
    if (allow != null) {
      ex.getResponseHeaders().set("Allow", allow);
    }
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    if (reply.json() == null) {
      ex.sendResponseHeaders(reply.status(), -1);
      return;
    }
    byte[] body = (reply.json() + "\n").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json; charset=utf-8");
    ex.sendResponseHeaders(reply.status(), body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private ControlApi.Reply dispatch(HttpExchange ex) throws IOException {
    if (!authorized(ex.getRequestHeaders().getFirst("Authorization"))) {
      // the body is left unread: closing the exchange discards it (LeftOverInputStream.skip would spin at EOF)
      return unauthorized();
    }
    byte[] body = read(ex.getRequestBody());
    String path = ex.getRequestURI().getPath();
    return api.handle(ex.getRequestMethod().toUpperCase(java.util.Locale.ROOT), path == null ? "/" : path,
        query(ex.getRequestURI().getRawQuery()), body);
  }

  private boolean authorized(String header) {
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(token, header.substring(7).trim().getBytes(StandardCharsets.UTF_8));
  }

  private static ControlApi.Reply unauthorized() {
    return error(401, "missing or wrong token: send Authorization: Bearer TOKEN (the token is in"
        + " the control-token file in Loupe's configuration directory)");
  }

  static ControlApi.Reply error(int status, String message) {
    ObjectNode o = ControlJson.object();
    o.put("error", message);
    return ControlApi.Reply.of(status, o);
  }

  private static byte[] read(InputStream in) throws IOException {
    byte[] b = in.readNBytes(MAX_BODY + 1);
    if (b.length > MAX_BODY) {
      throw new ApiError(413, "request body larger than " + MAX_BODY + " bytes");
    }
    return b;
  }

  /** Decoded query parameters; the first value of each name wins. */
  static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        out.putIfAbsent(URLDecoder.decode(name, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw ApiError.badRequest("bad query parameter: " + pair);
      }
    }
    return out;
  }
}
