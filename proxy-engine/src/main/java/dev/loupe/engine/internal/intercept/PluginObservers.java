package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.spi.Plugin;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The plugins' observing hooks, fed from the flow store's events after the fact (so the flows they
 * see stay on the relay tier): {@code connect} / {@code requestHeaders} when a flow is added, and
 * {@code request}, {@code responseHeaders}, {@code response}, {@code webSocketMessage}, {@code error}
 * when it completes, each queued on the plugin's thread in that order. Only the hooks a plugin
 * implements are queued (an observed request or response copies the body for it).
 */
final class PluginObservers {
  private final List<PluginEntry> entries;
  /** Flows whose request went through in-flight hooks: not observed again at completion. */
  private final Map<Long, Boolean> intercepted = new ConcurrentHashMap<>();

  PluginObservers(List<PluginEntry> entries) {
    this.entries = entries;
  }

  /** {@code flow}'s request went through plugins' in-flight hooks. */
  void claim(RecordedFlow flow) {
    intercepted.put(flow.id(), Boolean.TRUE);
  }

  /** On the store's delivery thread: queues each plugin's observing hooks for the flow, in order. */
  void onFlowEvent(FlowEvent event) {
    RecordedFlow flow = RecordedFlow.of(event.flow());
    if (entries.isEmpty()) {
      intercepted.remove(flow.id());
      return;
    }
    if (event.type() == FlowEvent.Type.ADDED && flow.request() != null) {
      boolean connect = flow.request().method().equals("CONNECT");
      String hook = connect ? "connect" : "requestHeaders";
      for (PluginEntry e : entries) {
        if (e.enabled && e.overrides(hook)) {
          Plugin p = e.plugin;
          e.observe(hook, flow, () -> {
            if (connect) {
              p.connect(flow);
            } else {
              p.requestHeaders(flow);
            }
            return null;
          });
        }
      }
    } else if (event.type() == FlowEvent.Type.COMPLETED) {
      boolean inFlight = intercepted.remove(flow.id()) != null;
      for (PluginEntry e : entries) {
        if (e.enabled) {
          observeCompleted(e, flow, inFlight && e.filter != null);
        }
      }
    }
  }

  /** Queues the after-the-fact hooks for a finished flow on {@code e}'s thread. */
  private static void observeCompleted(PluginEntry e, RecordedFlow flow, boolean sawInFlight) {
    Plugin p = e.plugin;
    if (flow.request() == null || flow.request().method().equals("CONNECT") && flow.state() != FlowState.FAILED) {
      return;
    }
    // Only the hooks the plugin implements: the defaults do nothing, and an observed request or
    // response hook copies the body for the plugin, which one that never looks should not pay for.
    if (!sawInFlight && e.overrides("request")) {
      e.observe("request", flow, () -> p.request(PluginHooks.Request.observed(flow, p.name())));
    }
    if (flow.response() != null) {
      if (e.overrides("responseHeaders")) {
        e.observe("responseHeaders", flow, () -> {
          p.responseHeaders(flow);
          return null;
        });
      }
      if (!sawInFlight && e.overrides("response")) {
        e.observe("response", flow, () -> p.response(PluginHooks.Response.observed(flow, p.name())));
      }
    }
    if (e.overrides("webSocketMessage")) {
      for (WebSocketMessage m : flow.webSocketMessages()) {
        e.observe("webSocketMessage", flow, () -> {
          p.webSocketMessage(flow, m);
          return null;
        });
      }
    }
    if (flow.state() == FlowState.FAILED && e.overrides("error")) {
      e.observe("error", flow, () -> {
        p.error(flow);
        return null;
      });
    }
  }
}
