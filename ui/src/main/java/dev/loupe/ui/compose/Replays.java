package dev.loupe.ui.compose;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Protocols;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Consumer;

/**
 * Replaying recorded flows: the request a flow's replay sends ({@link #draftOf}), the protocol it
 * goes out with ({@link #protocolOf}), and replaying a selection one after the other
 * ({@link #inOrder}). Pure but for the {@link Replayer}; no JavaFX.
 */
public final class Replays {
  private Replays() {}

  /**
   * What a finished sequence did.
   *
   * @param replayed the new flows, in order
   * @param skipped  one line per flow that could not be replayed ({@code #12: tunnels cannot be replayed})
   */
  public record Outcome(List<Flow> replayed, List<String> skipped) {
    public Outcome {
      replayed = List.copyOf(replayed);
      skipped = List.copyOf(skipped);
    }

    /** {@code Replayed 3 flows (#14, #15, #16); skipped #12: ...}. */
    public String message() {
      StringBuilder sb = new StringBuilder("Replayed ").append(replayed.size())
          .append(replayed.size() == 1 ? " flow" : " flows");
      if (!replayed.isEmpty()) {
        sb.append(" (");
        for (int i = 0; i < replayed.size(); i++) {
          sb.append(i == 0 ? "#" : ", #").append(replayed.get(i).id());
        }
        sb.append(')');
      }
      if (!skipped.isEmpty()) {
        sb.append("; skipped ").append(String.join("; ", skipped));
      }
      return sb.toString();
    }
  }

  /**
   * The request replaying {@code f} sends: its method, URL, headers and body as recorded (what went
   * upstream, when a rule or breakpoint changed it).
   *
   * @throws IllegalArgumentException when {@code f} cannot be replayed (a tunnel, no request, a body
   *     that was not captured whole)
   */
  public static RequestDraft draftOf(Flow f) {
    if (f.isTunnel()) {
      throw new IllegalArgumentException("#" + f.id() + ": tunnels cannot be replayed");
    }
    if (f.request() == null) {
      throw new IllegalArgumentException("#" + f.id() + ": no request recorded");
    }
    if (f.requestBody().truncated()) {
      throw new IllegalArgumentException("#" + f.id() + ": the request body was not captured whole ("
          + f.requestBody().capturedSize() + " of " + f.requestBody().size() + " bytes)");
    }
    return RequestDraft.of(f.request(), f.requestBody().bytes());
  }

  /** The protocol the original's server leg spoke ({@link Replayer.Protocol#AUTO} when unknown). */
  public static Replayer.Protocol protocolOf(Flow f) {
    return switch (Protocols.shortName(f.serverProtocol())) {
      case "h1" -> Replayer.Protocol.H1;
      case "h2" -> Replayer.Protocol.H2;
      case "h3" -> Replayer.Protocol.H3;
      default -> Replayer.Protocol.AUTO;
    };
  }

  /**
   * Replays {@code flows} in order, each after the previous one has completed; a flow that cannot be
   * replayed (or whose send fails) is skipped and reported, the others still go.
   *
   * @param protocol  the protocol for all of them, or null for each original's own ({@link #protocolOf})
   * @param progress  told {@code Replaying 2 of 5: GET https://...} before each send (on a pool thread)
   */
  public static CompletionStage<Outcome> inOrder(Replayer replayer, List<Flow> flows, Replayer.Protocol protocol,
      Consumer<String> progress) {
    return inOrder(replayer, flows, protocol, progress, ForkJoinPool.commonPool());
  }

  /**
   * As {@link #inOrder(Replayer, List, Replayer.Protocol, Consumer)}, reading each flow's body and
   * sending it on {@code executor}: never on the thread that completed the previous replay (an
   * engine event loop, which must not read spilled bodies from disk).
   */
  public static CompletionStage<Outcome> inOrder(Replayer replayer, List<Flow> flows, Replayer.Protocol protocol,
      Consumer<String> progress, Executor executor) {
    List<Flow> done = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    CompletionStage<Void> chain = CompletableFuture.completedFuture(null);
    for (int i = 0; i < flows.size(); i++) {
      Flow f = flows.get(i);
      int n = i + 1;
      chain = chain.thenComposeAsync(ignored -> {
        RequestDraft d;
        CompletionStage<Flow> sent;
        try {
          d = draftOf(f);
          progress.accept("Replaying " + n + " of " + flows.size() + ": " + d.method() + " " + d.url());
          sent = replayer.send(d, protocol == null ? protocolOf(f) : protocol, f.id());
        } catch (RuntimeException e) {
          synchronized (skipped) {
            skipped.add(e.getMessage() != null && e.getMessage().startsWith("#") ? e.getMessage()
                : "#" + f.id() + ": " + e.getMessage());
          }
          return CompletableFuture.completedFuture(null);
        }
        return sent.handle((flow, failure) -> {
          synchronized (skipped) {
            if (failure != null || flow == null) {
              skipped.add("#" + f.id() + ": " + (failure == null ? "no flow" : rootMessage(failure)));
            } else {
              done.add(flow);
            }
          }
          return null;
        });
      }, executor);
    }
    return chain.thenApply(ignored -> {
      synchronized (skipped) {
        return new Outcome(done, skipped);
      }
    });
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c != c.getCause()) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
  }
}
