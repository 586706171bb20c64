package dev.loupe.ui.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.DiffInput;
import dev.loupe.engine.api.session.FlowDiff;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session diff window's model without a display (the UI queue run by hand): lines arrive from
 * the background diff, the kind, change and text filters narrow them, a changed pair loads both
 * flows, and the export writes the whole diff.
 */
@Timeout(60)
class SessionDiffViewModelTest {
  @TempDir Path dir;
  private final LinkedBlockingQueue<Runnable> ui = new LinkedBlockingQueue<>();

  private void runUiUntil(BooleanSupplier done) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      Runnable r = ui.poll(50, TimeUnit.MILLISECONDS); // wakes as soon as the model posts a task
      if (r != null) {
        r.run();
      } else if (System.nanoTime() > end) {
        throw new AssertionError("timed out");
      }
    }
  }

  private Path session(String name, String... pathStatusBody) throws Exception {
    Path file = dir.resolve(name);
    try (Session s = Session.open(file, dir)) {
      RecordingStore store = new RecordingStore();
      s.record(store, p -> { });
      for (int i = 0; i < pathStatusBody.length; i += 3) {
        RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
        f.timings().requestStart(System.nanoTime());
        f.request(new RequestHead("GET", "http", "h.test", 80, pathStatusBody[i], "HTTP/1.1", Headers.EMPTY));
        store.add(f);
        f.response(new ResponseHead(Integer.parseInt(pathStatusBody[i + 1]), "", "HTTP/1.1", Headers.EMPTY));
        f.responseBody().append(ByteBuffer.wrap(pathStatusBody[i + 2].getBytes(StandardCharsets.UTF_8)));
        f.timings().responseEnd(System.nanoTime());
        f.complete();
        store.completed(f);
      }
    }
    return file;
  }

  @Test
  void linesArriveFilterLoadAPairAndExport() throws Exception {
    Path a = session("a.loupe", "/s", "200", "x", "/b", "200", "one", "/gone", "200", "", "/same", "200", "=");
    Path b = session("b.loupe", "/s", "500", "x", "/b", "200", "two", "/new", "200", "", "/same", "200", "=");
    SessionDiffViewModel vm = new SessionDiffViewModel(DiffInput.open(a, dir), "a.loupe", DiffInput.open(b, dir),
        "b.loupe", DiffOptions.DEFAULT, ui::add, Executors.newSingleThreadExecutor(), dir);
    vm.start();
    assertThat(vm.runningProperty().get()).isTrue();
    runUiUntil(() -> vm.summaryProperty().get() != null);
    assertThat(vm.runningProperty().get()).isFalse();
    assertThat(vm.statusProperty().get()).isEqualTo("2 changed, 1 removed, 1 added, 1 unchanged (A: 4 flows, B: 4 flows)");
    assertThat(vm.shown()).extracting(d -> d.either().url()).containsExactly("http://h.test/b", "http://h.test/gone",
        "http://h.test/new", "http://h.test/s");

    vm.aspectProperty().set(SessionDiffViewModel.AspectFilter.STATUS);
    assertThat(vm.shown()).extracting(d -> d.either().url()).containsExactly("http://h.test/s");
    vm.aspectProperty().set(SessionDiffViewModel.AspectFilter.BODY);
    assertThat(vm.shown()).extracting(d -> d.either().url()).containsExactly("http://h.test/b");
    vm.aspectProperty().set(SessionDiffViewModel.AspectFilter.ANY);
    vm.showChangedProperty().set(false);
    assertThat(vm.shown()).extracting(FlowDiff::kind).containsExactly(FlowDiff.Kind.REMOVED, FlowDiff.Kind.ADDED);
    vm.showChangedProperty().set(true);
    vm.textProperty().set("GONE");
    assertThat(vm.shown()).extracting(FlowDiff::kind).containsExactly(FlowDiff.Kind.REMOVED);
    vm.textProperty().set("");

    FlowDiff s = vm.rows().stream().filter(d -> d.either().url().endsWith("/s")).findFirst().orElseThrow();
    Flow[] pair = vm.pair(s).get(10, TimeUnit.SECONDS);
    assertThat(pair[0].response().status()).isEqualTo(200);
    assertThat(pair[1].response().status()).isEqualTo(500);
    FlowDiff removed = vm.rows().stream().filter(d -> d.kind() == FlowDiff.Kind.REMOVED).findFirst().orElseThrow();
    assertThat(vm.pair(removed)).isCompletedExceptionally();

    Path md = dir.resolve("diff.md");
    String[] told = {null};
    vm.export(md, false, t -> told[0] = t);
    runUiUntil(() -> told[0] != null);
    assertThat(told[0]).isEqualTo("Exported the diff (4 lines) to " + md);
    assertThat(Files.readString(md)).startsWith("# Session diff").contains("| Changed | 2 |");
    vm.close();
  }
}
