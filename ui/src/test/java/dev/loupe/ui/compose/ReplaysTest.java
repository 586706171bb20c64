package dev.loupe.ui.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReplaysTest {
  @Test
  void aSelectionIsReplayedInOrderEachAfterThePreviousCompleted() throws Exception {
    RecordedFlow a = Flows.get(1, "http://a.test/one", "HTTP/2");
    RecordedFlow tunnel = Flows.get(2, "http://b.test/", "HTTP/1.1");
    tunnel.tier(FlowTier.TUNNEL);
    RecordedFlow c = Flows.flow(3, "POST", "https://c.test/api?x=1", Headers.of("Content-Type", "text/plain"),
        "hello".getBytes(StandardCharsets.UTF_8), "HTTP/1.1");
    RecordingReplayer r = new RecordingReplayer();
    List<String> progress = new ArrayList<>();
    CompletionStage<Replays.Outcome> done = Replays.inOrder(r, List.of(a, tunnel, c), null, progress::add, Runnable::run);

    assertThat(r.count()).as("only the first goes before it completes").isEqualTo(1);
    assertThat(r.call(0).request().url()).isEqualTo("http://a.test/one");
    assertThat(r.call(0).protocol()).isEqualTo(Replayer.Protocol.H2);
    assertThat(r.call(0).replayOf()).isEqualTo(1);
    RecordedFlow a2 = Flows.get(10, "http://a.test/one", "HTTP/2");
    r.call(0).result().complete(a2);

    assertThat(r.count()).as("the tunnel is skipped, the third goes").isEqualTo(2);
    RecordingReplayer.Call third = r.call(1);
    assertThat(third.request().method()).isEqualTo("POST");
    assertThat(third.request().body()).asString(StandardCharsets.UTF_8).isEqualTo("hello");
    assertThat(third.protocol()).isEqualTo(Replayer.Protocol.H1);
    assertThat(third.replayOf()).isEqualTo(3);
    assertThat(done.toCompletableFuture().isDone()).isFalse();
    RecordedFlow c2 = Flows.get(11, "https://c.test/api?x=1", "HTTP/1.1");
    third.result().complete(c2);

    Replays.Outcome o = done.toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(o.replayed()).containsExactly(a2, c2);
    assertThat(o.skipped()).containsExactly("#2: tunnels cannot be replayed");
    assertThat(o.message()).isEqualTo("Replayed 2 flows (#10, #11); skipped #2: tunnels cannot be replayed");
    assertThat(progress).containsExactly("Replaying 1 of 3: GET http://a.test/one",
        "Replaying 3 of 3: POST https://c.test/api?x=1");
  }

  @Test
  void aChosenProtocolAppliesToAllAndAFailedSendDoesNotStopTheRest() throws Exception {
    RecordingReplayer r = new RecordingReplayer();
    CompletionStage<Replays.Outcome> done = Replays.inOrder(r,
        List.of(Flows.get(1, "http://a.test/", "HTTP/1.1"), Flows.get(2, "http://b.test/", "HTTP/2")),
        Replayer.Protocol.H3, s -> { }, Runnable::run);
    r.call(0).result().completeExceptionally(new IllegalStateException("no QUIC"));
    assertThat(r.count()).isEqualTo(2);
    assertThat(r.call(1).protocol()).isEqualTo(Replayer.Protocol.H3);
    r.call(1).result().complete(Flows.get(5, "http://b.test/", "HTTP/3"));
    Replays.Outcome o = done.toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(o.replayed()).extracting(Flow::id).containsExactly(5L);
    assertThat(o.skipped()).containsExactly("#1: no QUIC");
  }

  @Test
  void theDraftIsTheRecordedRequestWithItsBodyDecodedAndUncapturedBodiesAreRefused() throws Exception {
    java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write("{\"a\":1}".getBytes(StandardCharsets.UTF_8));
    }
    RecordedFlow f = Flows.flow(7, "PUT", "https://x.test/p", Headers.of("Content-Encoding", "gzip"), gz.toByteArray(), null);
    var d = Replays.draftOf(f);
    assertThat(d.bodyText()).isEqualTo("{\"a\":1}");
    assertThat(d.method()).isEqualTo("PUT");
    assertThat(Replays.protocolOf(f)).isEqualTo(Replayer.Protocol.AUTO);

    RecordedFlow cut = new RecordedFlow(8, java.time.Instant.now(), new dev.loupe.engine.flow.CapturePolicy(4, false, java.nio.file.Path.of(".")));
    cut.request(f.request());
    cut.requestBody().append(java.nio.ByteBuffer.wrap(new byte[10]));
    assertThatThrownBy(() -> Replays.draftOf(cut)).hasMessageContaining("not captured whole (4 of 10 bytes)");
  }
}
