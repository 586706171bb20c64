package dev.loupe.app.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.app.plugins.PluginLoader;
import dev.loupe.engine.api.plugin.Plugins.PluginInfo;
import dev.loupe.spi.ContentView;
import java.util.List;

/**
 * The control API's {@code /plugins} routes:
 * <ul>
 *   <li>{@code GET /plugins}: every plugin (id, name, version, source, hooks, enabled,
 *       interceptFilter, lastError, errors, reloadable), the content views, the hook timeout;
 *   <li>{@code GET /plugins/ID}: one plugin;
 *   <li>{@code POST /plugins/ID} with {@code {"enabled": true|false}}: switches it;
 *   <li>{@code POST /plugins/ID/reload}: loads its jar or script again (409 with the reason when
 *       that fails; the previous version keeps running).
 * </ul>
 * Thread-safe (the loader serialises switching and reloading).
 */
final class ControlPlugins {
  private final PluginLoader loader;

  ControlPlugins(PluginLoader loader) {
    this.loader = loader;
  }

  ControlApi.Reply handle(String method, List<String> p, byte[] body) {
    if (p.size() == 1) {
      allow(method, "GET");
      ObjectNode o = ControlJson.object();
      ArrayNode list = o.putArray("plugins");
      loader.registry().list().forEach(i -> list.add(json(i)));
      ArrayNode views = o.putArray("contentViews");
      for (ContentView v : loader.registry().contentViews()) {
        views.add(name(v));
      }
      o.put("hookTimeoutMs", loader.registry().hookTimeout().toMillis());
      return ControlApi.Reply.ok(o);
    }
    long id = id(p.get(1));
    if (p.size() == 2) {
      if (method.equals("GET")) {
        return ControlApi.Reply.ok(json(info(id)));
      }
      if (!method.equals("POST")) {
        throw ControlApi.notAllowed(method, "GET, POST");
      }
      JsonNode n = ControlJson.requireObject(ControlJson.parse(body), "the body");
      JsonNode on = n.get("enabled");
      if (on == null || !on.isBoolean() || n.size() != 1) {
        throw ApiError.badRequest("expected {\"enabled\": true} or {\"enabled\": false}");
      }
      PluginInfo i = loader.enabled(id, on.booleanValue());
      if (i == null) {
        throw ApiError.notFound("no plugin " + id);
      }
      return ControlApi.Reply.ok(json(i));
    }
    if (p.size() == 3 && p.get(2).equals("reload")) {
      allow(method, "POST");
      info(id);
      String problem = loader.reload(id);
      if (problem != null) {
        throw ApiError.conflict(problem);
      }
      return ControlApi.Reply.ok(json(info(id)));
    }
    throw ApiError.notFound("no such route: /" + String.join("/", p));
  }

  private static void allow(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw ControlApi.notAllowed(method, allowed);
    }
  }

  private PluginInfo info(long id) {
    var h = loader.registry().get(id);
    if (h == null) {
      throw ApiError.notFound("no plugin " + id);
    }
    return h.info();
  }

  private ObjectNode json(PluginInfo i) {
    ObjectNode o = ControlJson.object();
    o.put("id", i.id());
    o.put("name", i.name());
    o.put("version", i.version());
    o.put("source", i.source());
    ArrayNode hooks = o.putArray("hooks");
    i.hooks().forEach(hooks::add);
    o.put("enabled", i.enabled());
    o.put("interceptFilter", i.interceptFilter());
    o.put("lastError", i.lastError());
    o.put("errors", i.errors());
    o.put("reloadable", loader.canReload(i.id()));
    return o;
  }

  private static long id(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw ApiError.notFound("no plugin " + text);
    }
  }

  private static String name(ContentView v) {
    try {
      return v.name();
    } catch (RuntimeException e) {
      return v.getClass().getSimpleName();
    }
  }
}
