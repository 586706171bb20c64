package dev.loupe.engine.internal.replay;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.engine.internal.upstream.Http3Upstreams;
import dev.loupe.engine.internal.upstream.UpstreamConnector;
import dev.loupe.engine.internal.upstream.UpstreamTls;
import io.netty.channel.EventLoop;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Requests Loupe sends itself ({@link Replayer}: replay, composer). Each one is a new flow (tier
 * FULL, no client leg, {@link Flow#replayOf()} set) sent through the engine's own
 * {@link UpstreamConnector}, so it shares the origin pools, the upstream proxy, certificate
 * verification and timeouts with proxied traffic; rules and breakpoints do not apply.
 *
 * <p>Protocols: {@link Replayer.Protocol#AUTO} goes the way proxied traffic goes under the engine's
 * {@code --upstream-protocol} (ALPN h2 or HTTP/1.1, HTTP/3 by Alt-Svc discovery); H1 and H2 are
 * forced (H2 to a cleartext origin is h2c with prior knowledge); H3 is forced in every engine mode,
 * using the engine's QUIC pool (made on first use when the engine runs in auto mode, its own pool
 * otherwise), but never through an upstream proxy (QUIC cannot go through HTTP CONNECT).
 *
 * <p>The flow's {@link Flow#clientProtocol()} stays null: there is no client leg, and HAR export,
 * filters ({@code proto.client}) and the flow table treat a null client protocol as "none", where a
 * made-up value would end up as a HAR response's {@code httpVersion}.
 *
 * <p>Thread-safe: {@link #send} validates on the caller's thread, records the flow, and runs the
 * exchange on one of the engine's event loops.
 */
public final class Replays {
  /**
   * What a replay needs from the engine.
   *
   * @param loop     the event loop the exchange runs on (the engine's I/O group hands one out)
   * @param blocking where the returned stage is completed, so callers' continuations do not run on
   *                 the event loop (inline when it is shut down)
   */
  public record Context(EngineConfig config, RecordingStore store, UpstreamConnector connector, EventLoop loop,
      Executor blocking) {
    public Context {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(store, "store");
      Objects.requireNonNull(connector, "connector");
      Objects.requireNonNull(loop, "loop");
      Objects.requireNonNull(blocking, "blocking");
    }
  }

  private Replays() {}

  /**
   * Sends {@code draft} as a new flow; see {@link Replayer#send}.
   *
   * @throws IllegalArgumentException (synchronously) for a URL that is not absolute http(s), an
   *     invalid method or header field, or HTTP/3 asked for a cleartext URL
   */
  public static CompletionStage<Flow> send(Context ctx, RequestDraft draft, Replayer.Protocol protocol,
      long replayOf) {
    Objects.requireNonNull(draft, "request");
    Objects.requireNonNull(protocol, "protocol");
    ReplayRequest request = ReplayRequest.of(draft);
    if (protocol == Replayer.Protocol.H3 && !request.head().scheme().equals("https")) {
      throw new IllegalArgumentException("HTTP/3 needs an https:// URL: " + draft.url());
    }
    RecordedFlow flow = new RecordedFlow(ctx.store().nextId(), Instant.now(), ctx.config().capture());
    flow.tier(FlowTier.FULL);
    flow.replayOf(replayOf);
    flow.timings().requestStart(System.nanoTime());
    flow.request(request.recorded(initialVersion(protocol, draft), false));
    ctx.store().add(flow);

    CompletableFuture<Flow> result = new CompletableFuture<>();
    ReplayLeg leg = new ReplayLeg(ctx, flow, request, protocol, done -> complete(ctx, result, done));
    try {
      ctx.loop().execute(leg::start);
    } catch (RejectedExecutionException stopped) {
      flow.fail(new FlowError(FlowError.Kind.INTERNAL, "the proxy engine is stopped"));
      ctx.store().completed(flow);
      result.complete(flow);
    }
    return result;
  }

  /** The version recorded until the server leg is known: the forced one, else the draft's. */
  private static String initialVersion(Replayer.Protocol protocol, RequestDraft draft) {
    return switch (protocol) {
      case H1 -> "HTTP/1.1";
      case H2 -> "HTTP/2";
      case H3 -> "HTTP/3";
      case AUTO -> draft.httpVersion().isBlank() ? "HTTP/1.1" : draft.httpVersion();
    };
  }

  private static void complete(Context ctx, CompletableFuture<Flow> result, Flow flow) {
    try {
      ctx.blocking().execute(() -> result.complete(flow));
    } catch (RejectedExecutionException stopped) {
      result.complete(flow);
    }
  }

  /** A QUIC pool like the engine's discovery pool, for engines that have none (forced h1/h2). */
  static Http3Upstreams newHttp3Pool(Context ctx) {
    EngineConfig c = ctx.config();
    return new Http3Upstreams(UpstreamTls.quicClientContext(c.trustedCas(), c.insecure()), !c.insecure(),
        ctx.blocking(), c.connectTimeout(), c.poolIdleTimeout());
  }
}
