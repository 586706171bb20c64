package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.ui.diff.HeaderDiff;
import dev.loupe.ui.diff.LineDiff;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The detail model's "modified by", replay link and original-vs-modified comparison (headless). */
class DetailModifiedTest {
  static RecordedFlow flow(long id) {
    RecordedFlow f = new RecordedFlow(id, Instant.parse("2026-12-01T10:00:00Z"), new CapturePolicy(1 << 20, false, Path.of(".")));
    f.request(new RequestHead("POST", "http", "api.test", 80, "/x", "HTTP/1.1", Headers.of("Accept", "*/*")));
    f.requestBody().append(java.nio.ByteBuffer.wrap("a=1".getBytes(StandardCharsets.UTF_8)));
    return f;
  }

  @Test
  void aModifiedFlowShowsWhoChangedItAndTheOriginalBesideTheModified() {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    RecordedFlow f = flow(3);
    f.tier(FlowTier.FULL);
    vm.show(f);
    assertThat(vm.modifiedByProperty().get()).isEmpty();
    assertThat(vm.originalVsModified().requestProperty().get()).isNull();

    f.requestModified(new RequestHead("POST", "http", "api.test", 80, "/x", "HTTP/1.1",
        Headers.of("Accept", "application/json")), RecordedBody.of("a=2".getBytes(StandardCharsets.UTF_8)));
    f.modifiedBy("rule \"X\"");
    f.modifiedBy("breakpoint: request edited");
    f.modifiedBy("rule \"X\""); // the same rule on the response side: named once
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.EMPTY));
    f.complete();
    vm.refresh();
    assertThat(vm.modifiedByProperty().get()).isEqualTo("Modified by: rule \"X\", breakpoint: request edited");
    assertThat(vm.connectionRows()).contains(
        InfoRow.of("Tier", "full (a rule or breakpoint saw and could edit it)"),
        InfoRow.of("Modified by", "rule \"X\", breakpoint: request edited"));
    var req = vm.originalVsModified().requestProperty().get();
    assertThat(req.headers()).singleElement()
        .isEqualTo(new HeaderDiff.Row("Accept", "*/*", "application/json", LineDiff.Kind.CHANGED));
    assertThat(req.body().lines().rows()).singleElement()
        .isEqualTo(new LineDiff.Row(LineDiff.Kind.CHANGED, 1, "a=1", 1, "a=2"));
    assertThat(vm.originalVsModified().responseProperty().get().identical()).as("response untouched").isTrue();
    assertThat(FlowMarks.marks(f)).isEqualTo("✎");

    RecordedFlow replay = flow(4);
    replay.replayOf(3);
    vm.show(replay);
    assertThat(vm.modifiedByProperty().get()).isEmpty();
    assertThat(vm.replayOfProperty().get()).isEqualTo("Replay of #3");
    assertThat(vm.originalVsModified().requestProperty().get()).isNull();
    assertThat(FlowMarks.marks(replay)).isEqualTo("↻3");
    assertThat(FlowMarks.explain(replay)).isEqualTo("Replay of #3");
  }
}
