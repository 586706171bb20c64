package dev.loupe.ui.compose;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A replayer that records each send and completes it only when the test says so. */
final class RecordingReplayer implements Replayer {
  record Call(RequestDraft request, Protocol protocol, long replayOf, CompletableFuture<Flow> result) {}

  final List<Call> calls = new ArrayList<>();

  @Override
  public synchronized CompletionStage<Flow> send(RequestDraft request, Protocol protocol, long replayOf) {
    request.toHead(); // as the engine does: invalid requests throw synchronously
    Call c = new Call(request, protocol, replayOf, new CompletableFuture<>());
    calls.add(c);
    return c.result();
  }

  synchronized Call call(int i) {
    return calls.get(i);
  }

  synchronized int count() {
    return calls.size();
  }
}
