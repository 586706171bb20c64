package dev.loupe.ui.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.ui.diff.LineDiff.Kind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The comparison model without a display: flows built through the engine's setters. */
@Timeout(30)
class DiffViewModelTest {
  static RecordedFlow flow(long id, String target, Headers reqHeaders, int status, Headers resHeaders, String body) {
    RecordedFlow f = new RecordedFlow(id, Instant.parse("2026-12-01T10:00:00Z"), new CapturePolicy(1 << 20, false, Path.of(".")));
    f.request(new RequestHead("GET", "https", "api.test", 443, target, "HTTP/2", reqHeaders));
    f.response(new ResponseHead(status, "", "HTTP/2", resHeaders));
    f.responseBody().append(ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)));
    f.complete();
    return f;
  }

  @Test
  void twoFlowsAreComparedRequestWithRequestAndResponseWithResponse() {
    RecordedFlow a = flow(1, "/items?page=1", Headers.of("Accept", "application/json", "X-Trace", "1"), 200,
        Headers.of("Content-Type", "text/plain"), "one\ntwo\nthree\n");
    RecordedFlow b = flow(2, "/items?page=2", Headers.of("Accept", "text/html", "Cookie", "s=1"), 404,
        Headers.of("Content-Type", "text/plain"), "one\n2\nthree\n");
    DiffViewModel vm = new DiffViewModel(Runnable::run, Runnable::run);
    vm.compare(a, b);
    assertThat(vm.loadingProperty().get()).isFalse();
    assertThat(vm.leftTitleProperty().get()).isEqualTo("#1 GET https://api.test/items?page=1");
    assertThat(vm.rightTitleProperty().get()).isEqualTo("#2 GET https://api.test/items?page=2");

    MessageDiff req = vm.requestProperty().get();
    assertThat(req.headChanged()).isTrue();
    assertThat(req.headers()).extracting(HeaderDiff.Row::name, HeaderDiff.Row::kind).containsExactly(
        org.assertj.core.groups.Tuple.tuple("Accept", Kind.CHANGED),
        org.assertj.core.groups.Tuple.tuple("X-Trace", Kind.REMOVED),
        org.assertj.core.groups.Tuple.tuple("Cookie", Kind.ADDED));
    assertThat(req.body().same()).isTrue();

    MessageDiff res = vm.responseProperty().get();
    assertThat(res.left().head()).isEqualTo("200 HTTP/2");
    assertThat(res.right().head()).isEqualTo("404 HTTP/2");
    assertThat(res.changedHeaders()).isZero();
    assertThat(res.body().text()).isTrue();
    assertThat(res.body().lines().rows()).extracting(LineDiff.Row::kind)
        .containsExactly(Kind.SAME, Kind.CHANGED, Kind.SAME);
    assertThat(res.summary()).isEqualTo("Head line differs · body: 1 line differs — 14 vs 12 bytes");
  }

  @Test
  void originalVsModifiedShowsWhatARuleChanged() {
    RecordedFlow f = flow(5, "/a", Headers.of("Accept", "*/*"), 200, Headers.of("Server", "origin"), "{\"ok\":false}");
    f.requestModified(new RequestHead("GET", "https", "api.test", 443, "/a", "HTTP/2",
        Headers.of("Accept", "*/*", "X-Debug", "1")), RecordedBody.of(new byte[0]));
    f.responseModified(new ResponseHead(200, "", "HTTP/2", Headers.of("Server", "origin")),
        RecordedBody.of("{\"ok\":true}".getBytes(StandardCharsets.UTF_8)));
    f.modifiedBy("rule \"debug header\"");

    DiffViewModel vm = new DiffViewModel(Runnable::run, Runnable::run);
    vm.originalVsModified(f);
    assertThat(vm.leftTitleProperty().get()).isEqualTo("Original (#5)");
    assertThat(vm.requestProperty().get().headers()).filteredOn(r -> r.kind() != Kind.SAME).singleElement()
        .isEqualTo(new HeaderDiff.Row("X-Debug", null, "1", Kind.ADDED));
    BodyComparison body = vm.responseProperty().get().body();
    assertThat(body.same()).isFalse();
    assertThat(body.lines().rows()).filteredOn(r -> r.kind() == Kind.CHANGED).singleElement()
        .satisfies(r -> {
          assertThat(r.left()).contains("false");
          assertThat(r.right()).contains("true");
        });
  }

  @Test
  void anOlderResultArrivingLateIsDropped() {
    java.util.ArrayDeque<Runnable> background = new java.util.ArrayDeque<>();
    DiffViewModel vm = new DiffViewModel(Runnable::run, background::add);
    RecordedFlow a = flow(1, "/a", Headers.EMPTY, 200, Headers.EMPTY, "a");
    RecordedFlow b = flow(2, "/b", Headers.EMPTY, 200, Headers.EMPTY, "b");
    vm.compare(a, b);
    vm.compare(b, b);
    assertThat(vm.loadingProperty().get()).isTrue();
    background.poll().run(); // the first comparison finishes late
    assertThat(vm.requestProperty().get()).isNull();
    background.poll().run();
    assertThat(vm.requestProperty().get().identical()).isTrue();
    assertThat(vm.loadingProperty().get()).isFalse();
  }
}
