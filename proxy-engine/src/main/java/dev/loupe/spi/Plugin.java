package dev.loupe.spi;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.WebSocketMessage;
import java.util.concurrent.CompletionStage;

/**
 * A Loupe plugin. Every method has a do-nothing default: implement the hooks you need. Found by
 * {@link java.util.ServiceLoader} ({@code META-INF/services/dev.loupe.spi.Plugin}), from a jar in
 * {@code CONFDIR/plugins/} or {@code --plugin PATH}, or compiled from a single-file script.
 *
 * <h3>Tiers: what a plugin declares decides what it costs</h3>
 * A plugin whose {@link #interceptFilter()} is null only <em>observes</em>: its flow hooks run after
 * the fact on a plugin thread, with read-only hooks, and every flow stays on the relay tier (bytes
 * forwarded untouched). A plugin that returns a filter <em>intercepts</em> the flows that filter can
 * match: they take the full tier (the whole request, then the whole response, collected), and
 * {@link #request} / {@link #response} run before the message goes on, free to change it. Flows the
 * filter cannot match stay on the relay tier and are only observed.
 *
 * <h3>Threads and faults</h3>
 * Hooks never run on an event loop: each plugin has one thread, so a plugin's hooks never run
 * concurrently with each other. A hook that throws records the error on the flow (naming the plugin
 * and the hook) and the flow goes on unchanged; so does one that does not return within the hook
 * timeout (10 s by default). The proxy keeps serving either way.
 *
 * <h3>Lifecycle</h3>
 * {@link #load} once, {@link #configure} with the options (again whenever they change), {@link
 * #running} once the proxy listens, {@link #done} when the plugin is unloaded or Loupe stops.
 */
public interface Plugin {
  /** A short unique name (options are {@code NAME.key}); defaults to the class's simple name. */
  default String name() {
    return getClass().getSimpleName();
  }

  /** The plugin's version, shown in the Plugins window. */
  default String version() {
    return "0";
  }

  /**
   * The flows this plugin may change, in the filter language (docs/FILTERS.md; {@code "~all"} or
   * {@code "."} for every flow), or null for a plugin that only observes (the default). Read once
   * after each {@link #configure}.
   */
  default String interceptFilter() {
    return null;
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  /** Called once when the plugin is loaded, before anything else. */
  default void load(PluginContext context) {}

  /** The plugin's options ({@code --set NAME.key=value}, settings.json), at start and on change. */
  default void configure(PluginContext context) {}

  /** The proxy is listening. */
  default void running() {}

  /** The plugin is unloaded (reloaded, switched off) or Loupe stops. */
  default void done() {}

  // ---- flow hooks (mitmproxy's addon events) ----------------------------------------------------

  /** A CONNECT request arrived (regular mode); {@code flow} holds its head. Observe only. */
  default void connect(Flow flow) {}

  /** A request head arrived (observers: after the fact). */
  default void requestHeaders(Flow flow) {}

  /**
   * The whole request is here. For intercepted flows, change it through {@code hook} before it goes
   * on; return null (or a completed stage) to let it go at once, or a stage completed later to hold
   * the flow until then (a pause; the hook timeout then does not apply, the pause timeout does).
   */
  default CompletionStage<?> request(RequestHook hook) {
    return null;
  }

  /** A response head arrived from the origin (observers: after the fact). */
  default void responseHeaders(Flow flow) {}

  /** The whole response is here; like {@link #request}, for the response. */
  default CompletionStage<?> response(ResponseHook hook) {
    return null;
  }

  /** The flow failed ({@link Flow#error()} says why). */
  default void error(Flow flow) {}

  /** A WebSocket message was relayed (observe only). */
  default void webSocketMessage(Flow flow, WebSocketMessage message) {}
}
