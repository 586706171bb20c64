package dev.loupe.app.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.app.control.ControlApi.Reply;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control API's replays and composes ({@code POST /flows/ID/replay}, {@code POST /compose}):
 * each is handed to the {@link Replayer}, and the caller is answered with the flow it made, which
 * is recognised among the store's new flows by its method, URL and replayed flow. Thread-safe, as
 * {@link ControlApi} is: a {@code ?wait=true} blocks only its own worker.
 */
final class ControlLaunches implements AutoCloseable {
  /** How long a replay or compose may take to show up as a flow when the caller does not wait for it. */
  static final Duration FLOW_APPEARS = Duration.ofSeconds(30);
  /** Default and longest {@code ?wait=true} ({@code &timeout=SECONDS}). */
  static final int DEFAULT_WAIT_SECONDS = 60;
  static final int MAX_WAIT_SECONDS = 600;

  private final Replayer replayer;
  /** Replays and composes sent through the API whose new flow is not known yet. */
  private final CopyOnWriteArrayList<Launch> launches = new CopyOnWriteArrayList<>();
  /**
   * Flows added while a launch was pending and not claimed by one yet (a flow is claimed once, so
   * two identical launches get two different flows). Confined to the subscription's delivery thread.
   */
  private final Set<Long> fresh = new HashSet<>();
  private final FlowStore.Subscription subscription;

  ControlLaunches(FlowStore store, Replayer replayer) {
    this.replayer = replayer;
    this.subscription = store.subscribe(this::onFlowEvent);
  }

  @Override
  public void close() {
    subscription.close();
  }

  Reply replay(Flow f, Map<String, String> query, byte[] body) {
    if (f.request() == null || f.isTunnel()) {
      throw ApiError.conflict("flow " + f.id() + " has no HTTP request to replay");
    }
    Body b = f.requestBody();
    if (b != null && (!b.isComplete() || b.truncated())) {
      throw ApiError.conflict("flow " + f.id() + "'s request body was not captured in full; compose it instead");
    }
    RequestDraft draft = RequestDraft.of(f.request(), b == null ? new byte[0] : b.bytes());
    JsonNode n = ControlJson.parse(body);
    Replayer.Protocol protocol = Replayer.Protocol.AUTO;
    if (n != null) {
      ObjectNode o = ControlJson.requireObject(n, "the replay options");
      protocol = protocol(o);
      draft = ControlJson.requestDraft(o, draft, Set.of("protocol"));
    }
    return launch(draft, protocol, f.id(), query);
  }

  Reply compose(Map<String, String> query, byte[] body) {
    JsonNode n = ControlJson.parse(body);
    if (n == null) {
      throw ApiError.badRequest("compose needs a request: {\"method\", \"url\", \"headers\", \"body\", \"protocol\"}");
    }
    ObjectNode o = ControlJson.requireObject(n, "the request");
    Replayer.Protocol protocol = protocol(o);
    return launch(ControlJson.requestDraft(o, null, Set.of("protocol")), protocol, -1, query);
  }

  private static Replayer.Protocol protocol(ObjectNode o) {
    if (!o.has("protocol")) {
      return Replayer.Protocol.AUTO;
    }
    String s = ControlJson.text(o, "protocol");
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "auto" -> Replayer.Protocol.AUTO;
      case "h1", "http/1.1" -> Replayer.Protocol.H1;
      case "h2", "http/2" -> Replayer.Protocol.H2;
      case "h3", "http/3" -> Replayer.Protocol.H3;
      default -> throw ApiError.badRequest("protocol must be auto, h1, h2 or h3, got \"" + s + "\"");
    };
  }

  /**
   * Sends {@code draft} and answers with the new flow's summary: once the flow exists (202), or with
   * {@code ?wait=true} once it has ended (200; 202 if it is still running after the timeout).
   */
  private Reply launch(RequestDraft draft, Replayer.Protocol protocol, long replayOf, Map<String, String> query) {
    boolean wait = Boolean.parseBoolean(query.getOrDefault("wait", "false"));
    long waitSeconds = ControlApi.number(query, "timeout", DEFAULT_WAIT_SECONDS);
    if (waitSeconds < 1 || waitSeconds > MAX_WAIT_SECONDS) {
      throw ApiError.badRequest("timeout must be 1.." + MAX_WAIT_SECONDS + " seconds");
    }
    Launch l = new Launch(draft.method().trim(), draft.toHead().url(), replayOf);
    launches.add(l);
    CompletionStage<Flow> done;
    try {
      done = replayer.send(draft, protocol, replayOf);
    } catch (IllegalArgumentException e) {
      launches.remove(l);
      throw ApiError.badRequest(e.getMessage());
    } catch (UnsupportedOperationException e) {
      launches.remove(l);
      throw new ApiError(501, "replay is not available: " + e.getMessage());
    }
    CompletableFuture<Flow> ended = done.toCompletableFuture();
    try {
      Flow f;
      if (wait) {
        try {
          f = ended.get(waitSeconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          f = l.flow.getNow(null);
          if (f == null) {
            throw new ApiError(504, "the request did not end within " + waitSeconds + " s");
          }
        }
      } else {
        try {
          f = (Flow) CompletableFuture.anyOf(l.flow, ended).get(FLOW_APPEARS.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          throw new ApiError(504, "the request was handed to the proxy, but its flow did not appear within "
              + FLOW_APPEARS.toSeconds() + " s");
        }
      }
      return Reply.of(f.state() == FlowState.IN_FLIGHT ? 202 : 200, ControlJson.summary(f));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiError(503, "interrupted");
    } catch (ExecutionException e) {
      throw new ApiError(502, "the request could not be sent: " + e.getCause());
    } finally {
      launches.remove(l);
    }
  }

  /** One replay or compose waiting to learn its flow: the first new flow with its method, URL and replayOf. */
  private static final class Launch {
    final String method;
    final String url;
    final long replayOf;
    final CompletableFuture<Flow> flow = new CompletableFuture<>();

    Launch(String method, String url, long replayOf) {
      this.method = method;
      this.url = url;
      this.replayOf = replayOf;
    }

    boolean matches(Flow f) {
      return f.replayOf() == replayOf && f.request() != null && f.request().method().equals(method)
          && f.request().url().equals(url);
    }
  }

  /** On the subscription's delivery thread, one event at a time. */
  private void onFlowEvent(FlowEvent e) {
    if (launches.isEmpty()) {
      fresh.clear();
      return;
    }
    Flow f = e.flow();
    if (e.type() == FlowEvent.Type.ADDED) {
      fresh.add(f.id());
    }
    if (!fresh.contains(f.id())) {
      return;
    }
    for (Launch l : launches) {
      if (!l.flow.isDone() && l.matches(f)) {
        fresh.remove(f.id());
        l.flow.complete(f);
        return;
      }
    }
    if (e.type() == FlowEvent.Type.COMPLETED) {
      fresh.remove(f.id());
    }
  }
}
