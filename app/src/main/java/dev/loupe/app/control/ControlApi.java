package dev.loupe.app.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.engine.api.intercept.InterceptList;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.PausedFlow;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.filter.FilterSyntaxException;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The control API's routes, without the HTTP server around them: a request (method, path, query,
 * body) in, a status and a JSON document out. It calls the same engine services as the desktop UI:
 * the {@link InterceptService} (rules, breakpoints, paused flows), the {@link FlowStore} and the
 * {@link Replayer}.
 *
 * <p>Thread-safe: requests run on the control server's worker threads, never on an event loop;
 * {@code ?wait=true} blocks only its own worker.
 */
public final class ControlApi implements AutoCloseable {
  /** A reply: HTTP status and a JSON document (null for none). */
  record Reply(int status, String json) {
    static Reply of(int status, JsonNode n) {
      try {
        return new Reply(status, ControlJson.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(n));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }

    static Reply ok(JsonNode n) {
      return of(200, n);
    }
  }

  /** {@code GET /flows} without {@code limit}. */
  static final int DEFAULT_LIMIT = 1000;

  private final FlowStore store;
  private final InterceptService intercept;
  private final java.util.function.Supplier<String> proxyAddress;
  private final About about;
  /** {@code POST /flows/ID/replay} and {@code POST /compose}. */
  private final ControlLaunches launches;
  /** The {@code /plugins} routes, or null when no plugin loader was given. */
  private final ControlPlugins plugins;

  /**
   * @param proxyAddress the running proxy's address (host:port) for {@code GET /}; asked each time,
   *     as the desktop settings may restart the proxy elsewhere
   */
  public ControlApi(FlowStore store, InterceptService intercept, Replayer replayer,
      java.util.function.Supplier<String> proxyAddress) {
    this(store, intercept, replayer, proxyAddress, new About(null, null));
  }

  /**
   * What {@code GET /} and {@code GET /ca} tell about this Loupe beyond its services.
   *
   * @param mode          {@code regular} or {@code reverse:URL} (null: not told)
   * @param caCertificate the CA certificate clients must trust (null: none, e.g. reverse mode with {@code --cert})
   */
  public record About(String mode, java.nio.file.Path caCertificate) {}

  /** Like {@link #ControlApi(FlowStore, InterceptService, Replayer, java.util.function.Supplier)}, with {@code about}. */
  public ControlApi(FlowStore store, InterceptService intercept, Replayer replayer,
      java.util.function.Supplier<String> proxyAddress, About about) {
    this(store, intercept, replayer, proxyAddress, about, null);
  }

  /** With {@code /plugins}, listing, switching and reloading {@code plugins}' plugins. */
  public ControlApi(FlowStore store, InterceptService intercept, Replayer replayer,
      java.util.function.Supplier<String> proxyAddress, About about, dev.loupe.app.plugins.PluginLoader plugins) {
    this.plugins = plugins == null ? null : new ControlPlugins(plugins);
    this.about = about;
    this.store = store;
    this.intercept = intercept;
    this.proxyAddress = proxyAddress;
    this.launches = new ControlLaunches(store, replayer);
  }

  @Override
  public void close() {
    launches.close();
  }

  /**
   * Handles one request.
   *
   * @param path  the decoded path, e.g. {@code /flows/12}
   * @param query decoded query parameters (the first value of each)
   */
  Reply handle(String method, String path, Map<String, String> query, byte[] body) {
    List<String> p = segments(path);
    String first = p.isEmpty() ? "" : p.get(0);
    return switch (first) {
      case "" -> {
        allow(method, "GET");
        yield Reply.ok(status());
      }
      case "flows" -> flows(method, p, query, body);
      case "compose" -> {
        if (p.size() != 1) {
          throw notFound(path);
        }
        allow(method, "POST");
        yield launches.compose(query, body);
      }
      case "paused" -> paused(method, p, body);
      case "breakpoints" -> list(method, p, body, intercept.breakpoints(), "breakpoint");
      case "har" -> {
        allow(method, "GET");
        yield ControlExports.har(selectFlows(query, Integer.MAX_VALUE));
      }
      case "ca" -> {
        allow(method, "GET");
        yield Reply.ok(ControlExports.ca(about.caCertificate()));
      }
      case "rules" -> list(method, p, body, intercept.rules(), "rule");
      case "plugins" -> {
        if (plugins == null) {
          throw notFound(path);
        }
        yield plugins.handle(method, p, body);
      }
      default -> throw notFound(path);
    };
  }

  private ObjectNode status() {
    ObjectNode o = ControlJson.object();
    o.put("proxy", proxyAddress.get());
    o.put("mode", about.mode());
    o.put("caCertificate", about.caCertificate() == null ? null : about.caCertificate().toAbsolutePath().toString());
    o.put("capturing", store.capturing());
    o.put("flows", store.size());
    o.put("paused", intercept.pausedFlows().size());
    o.put("rules", intercept.rules().entries().size());
    o.put("rulesActive", intercept.rules().active());
    o.put("breakpoints", intercept.breakpoints().entries().size());
    o.put("breakpointsActive", intercept.breakpoints().active());
    o.put("pauseTimeoutSeconds", intercept.pauseTimeout().toSeconds());
    o.put("plugins", intercept.plugins().list().size());
    return o;
  }

  // ---- /flows ----

  private Reply flows(String method, List<String> p, Map<String, String> query, byte[] body) {
    if (p.size() == 1) {
      allow(method, "GET");
      return Reply.ok(listFlows(query));
    }
    Flow f = flow(p.get(1));
    if (p.size() == 2) {
      allow(method, "GET");
      return Reply.ok(ControlJson.detail(f));
    }
    if (p.size() == 3 && p.get(2).equals("body")) {
      allow(method, "GET");
      return Reply.ok(ControlExports.body(f, query));
    }
    if (p.size() == 3 && p.get(2).equals("replay")) {
      allow(method, "POST");
      return launches.replay(f, query, body);
    }
    throw notFound(String.join("/", p));
  }

  private ArrayNode listFlows(Map<String, String> query) {
    ArrayNode out = ControlJson.array();
    selectFlows(query, DEFAULT_LIMIT).forEach(f -> out.add(ControlJson.summary(f)));
    return out;
  }

  /** The flows {@code ?filter=}, {@code ?since=} and {@code ?limit=} select, oldest first. */
  private List<Flow> selectFlows(Map<String, String> query, long defaultLimit) {
    Filter filter;
    try {
      filter = Filter.parse(query.getOrDefault("filter", ""));
    } catch (FilterSyntaxException e) {
      throw ApiError.badRequest("bad filter: " + e.getMessage());
    }
    long since = number(query, "since", -1);
    long limit = number(query, "limit", defaultLimit);
    if (limit < 1) {
      throw ApiError.badRequest("limit must be at least 1");
    }
    List<Flow> out = new ArrayList<>();
    for (Flow f : store.snapshot()) {
      if (f.id() > since && filter.test(f)) {
        out.add(f);
        if (out.size() >= limit) {
          break;
        }
      }
    }
    return out;
  }

  private Flow flow(String id) {
    long n;
    try {
      n = Long.parseLong(id);
    } catch (NumberFormatException e) {
      throw ApiError.notFound("no flow " + id);
    }
    Flow f = store.get(n);
    if (f == null) {
      throw ApiError.notFound("no flow " + id + " (never seen, or forgotten)");
    }
    return f;
  }

  // ---- /paused ----

  private Reply paused(String method, List<String> p, byte[] body) {
    if (p.size() == 1) {
      allow(method, "GET");
      ArrayNode out = ControlJson.array();
      intercept.pausedFlows().forEach(pf -> out.add(ControlJson.paused(pf)));
      return Reply.ok(out);
    }
    long id;
    try {
      id = Long.parseLong(p.get(1));
    } catch (NumberFormatException e) {
      throw ApiError.notFound("no paused flow " + p.get(1));
    }
    PausedFlow pf = intercept.paused(id);
    if (pf == null) {
      throw ApiError.notFound("flow " + id + " is not paused");
    }
    if (p.size() == 2) {
      allow(method, "GET");
      return Reply.ok(ControlJson.paused(pf));
    }
    if (p.size() != 3) {
      throw notFound(String.join("/", p));
    }
    String action = p.get(2);
    if (!Set.of("resume", "abort", "answer").contains(action)) {
      throw notFound(String.join("/", p));
    }
    allow(method, "POST");
    JsonNode n = ControlJson.parse(body);
    boolean released;
    switch (action) {
      case "resume" -> {
        if (n == null || n.isEmpty()) {
          released = pf.resume();
        } else if (pf.phase() == Flow.Paused.REQUEST) {
          RequestDraft d = ControlJson.requestDraft(ControlJson.requireObject(n, "the request"), pf.request(), Set.of());
          try {
            released = pf.resume(d);
          } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(e.getMessage());
          }
        } else {
          released = pf.resume(ControlJson.responseDraft(ControlJson.requireObject(n, "the response"), pf.response()));
        }
      }
      case "abort" -> released = pf.abort();
      default -> {
        ObjectNode o = n == null ? ControlJson.object() : ControlJson.requireObject(n, "the answer");
        ResponseDraft answer = ControlJson.responseDraft(o, null);
        released = pf.answer(answer);
      }
    }
    if (!released) {
      throw ApiError.conflict("flow " + id + " was already released");
    }
    ObjectNode o = ControlJson.object();
    o.put("flowId", id);
    o.put("released", action);
    return Reply.ok(o);
  }

  // ---- /rules and /breakpoints ----

  private <T extends InterceptList.Entry> Reply list(String method, List<String> p, byte[] body,
      InterceptList<T> list, String what) {
    if (p.size() == 1) {
      switch (method) {
        case "GET" -> {
          return new Reply(200, list.toJson());
        }
        case "PUT" -> {
          JsonNode n = ControlJson.parse(body);
          if (n == null) {
            throw ApiError.badRequest("PUT /" + p.get(0) + " takes a JSON array of " + what + "s");
          }
          ControlJson.requireArrayOfObjects(n, "PUT /" + p.get(0) + " body");
          change(() -> list.replace(parse(list, n, what)));
          return new Reply(200, list.toJson());
        }
        case "POST" -> {
          JsonNode n = ControlJson.parse(body);
          ControlJson.requireObject(n, "a " + what);
          List<T> one = parse(list, ControlJson.array().add(n), what);
          T entry = one.get(0);
          if (list.get(entry.id()) != null) {
            throw ApiError.conflict("there is already a " + what + " with id " + entry.id());
          }
          change(() -> list.add(entry));
          return Reply.of(201, ControlJson.MAPPER.valueToTree(entry));
        }
        default -> throw notAllowed(method, "GET, PUT, POST");
      }
    }
    String id = p.get(1);
    T entry = list.get(id);
    if (entry == null) {
      throw ApiError.notFound("no " + what + " with id " + id);
    }
    if (p.size() == 2) {
      switch (method) {
        case "GET" -> {
          return Reply.ok(ControlJson.MAPPER.valueToTree(entry));
        }
        case "PUT" -> {
          JsonNode n = ControlJson.parse(body);
          ObjectNode o = ControlJson.requireObject(n, "a " + what).deepCopy();
          if (o.has("id") && !id.equals(o.get("id").asText())) {
            throw ApiError.badRequest("the id in the body (" + o.get("id").asText() + ") is not " + id);
          }
          o.put("id", id);
          T updated = parse(list, ControlJson.array().add(o), what).get(0);
          change(() -> list.update(updated));
          return Reply.ok(ControlJson.MAPPER.valueToTree(updated));
        }
        case "DELETE" -> {
          if (!list.remove(id)) {
            throw ApiError.notFound("no " + what + " with id " + id);
          }
          return new Reply(204, null);
        }
        default -> throw notAllowed(method, "GET, PUT, DELETE");
      }
    }
    if (p.size() != 3 || !Set.of("move", "enable").contains(p.get(2))) {
      throw notFound(String.join("/", p));
    }
    allow(method, "POST");
    ObjectNode o = ControlJson.requireObject(ControlJson.parse(body), "the body");
    if (p.get(2).equals("move")) {
      JsonNode i = o.get("index");
      if (i == null || !i.isInt() || i.intValue() < 0) {
        throw ApiError.badRequest("move takes {\"index\": N} with N >= 0");
      }
      change(() -> list.move(id, i.intValue()));
    } else {
      JsonNode on = o.get("enabled");
      if (on == null || !on.isBoolean()) {
        throw ApiError.badRequest("enable takes {\"enabled\": true|false}");
      }
      change(() -> list.enable(id, on.booleanValue()));
    }
    return new Reply(200, list.toJson());
  }

  /** Parses entries with the list's own reader (the import/export format) and validates them. */
  private static <T extends InterceptList.Entry> List<T> parse(InterceptList<T> list, JsonNode array, String what) {
    List<T> entries;
    try {
      entries = list.parseJson(ControlJson.enabledByDefault((ArrayNode) array).toString());
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(e.getMessage());
    }
    for (T e : entries) {
      if (e == null) {
        throw ApiError.badRequest("a " + what + " cannot be null");
      }
      try {
        e.validate();
      } catch (FilterSyntaxException bad) {
        throw ApiError.badRequest("\"" + e.name() + "\": bad filter: " + bad.getMessage());
      } catch (IllegalArgumentException bad) {
        throw ApiError.badRequest("\"" + e.name() + "\": " + bad.getMessage());
      }
    }
    return new ArrayList<>(entries);
  }

  private static void change(Runnable r) {
    try {
      r.run();
    } catch (IllegalArgumentException e) {
      throw ApiError.badRequest(e.getMessage());
    }
  }

  // ---- helpers ----

  private static List<String> segments(String path) {
    List<String> out = new ArrayList<>();
    for (String s : path.split("/")) {
      if (!s.isEmpty()) {
        out.add(s);
      }
    }
    return out;
  }

  static long number(Map<String, String> query, String name, long dflt) {
    String v = query.get(name);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw ApiError.badRequest(name + " must be a number, got \"" + v + "\"");
    }
  }

  private static void allow(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw notAllowed(method, allowed);
    }
  }

  static ApiError notAllowed(String method, String allowed) {
    return new MethodNotAllowed(method, allowed);
  }

  private static ApiError notFound(String path) {
    return ApiError.notFound("no such endpoint: " + (path.startsWith("/") ? path : "/" + path));
  }

  /** 405, with the methods the path takes (for the {@code Allow} header). */
  static final class MethodNotAllowed extends ApiError {
    final String allowed;

    MethodNotAllowed(String method, String allowed) {
      super(405, method + " is not allowed here (allowed: " + allowed + ")");
      this.allowed = allowed;
    }
  }

}
