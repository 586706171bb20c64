package dev.loupe.ui.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.ui.common.FxThread;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HarExportViewModelTest {
  @TempDir Path dir;

  /** The UI thread, run by hand: the test drains what the export posts. */
  private final LinkedBlockingQueue<Runnable> ui = new LinkedBlockingQueue<>();
  private final FxThread fx = ui::add;

  @Test
  void writesAValidHarWithProgressThenDone() throws Exception {
    List<Flow> flows = flows(3000, 2048);
    Path file = dir.resolve("out.har");
    try (HarExportViewModel vm = new HarExportViewModel(fx)) {
      List<Double> progress = new ArrayList<>();
      vm.progressProperty().addListener((o, a, b) -> progress.add(b.doubleValue()));
      assertThat(vm.export(flows, file)).isTrue();
      assertThat(vm.export(flows, file)).as("one export at a time").isFalse();
      drainUntil(vm, HarExportViewModel.Outcome.DONE);
      assertThat(vm.runningProperty().get()).isFalse();
      assertThat(vm.messageProperty().get()).startsWith("Exported 3,000 flows");
      assertThat(progress).isSorted().last().isEqualTo(1.0);
    }
    JsonNode har = new ObjectMapper().readTree(file.toFile());
    assertThat(har.path("log").path("version").asText()).isEqualTo("1.2");
    JsonNode entries = har.path("log").path("entries");
    assertThat(entries.size()).isEqualTo(3000);
    assertThat(entries.get(2999).path("request").path("url").asText()).isEqualTo("https://example.test/item/2999");
    assertThat(entries.get(0).path("response").path("content").path("size").asLong()).isEqualTo(2048);
  }

  @Test
  void cancelLeavesTheOldFileUntouchedAndNoTemporaryFile() throws Exception {
    Path file = dir.resolve("keep.har");
    Files.writeString(file, "old content");
    List<Flow> flows = flows(20_000, 4096); // cancel lands long before 80 MB are written
    try (HarExportViewModel vm = new HarExportViewModel(fx)) {
      vm.export(flows, file);
      // wait for the first progress report, then cancel
      Runnable first = ui.poll(30, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      first.run();
      vm.cancel();
      drainUntil(vm, HarExportViewModel.Outcome.CANCELLED);
      assertThat(vm.messageProperty().get()).contains("cancelled");
    }
    assertThat(Files.readString(file)).isEqualTo("old content");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("keep.har");
    }
  }

  @Test
  void aFailureIsReportedVerbatim() throws Exception {
    try (HarExportViewModel vm = new HarExportViewModel(fx)) {
      vm.export(flows(1, 10), dir.resolve("no-such-dir").resolve("x.har"));
      drainUntil(vm, HarExportViewModel.Outcome.FAILED);
      assertThat(vm.messageProperty().get()).startsWith("Export failed: ").contains("no-such-dir");
    }
  }

  private void drainUntil(HarExportViewModel vm, HarExportViewModel.Outcome outcome) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (vm.outcomeProperty().get() != outcome) {
      Runnable r = ui.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertThat(r).as("export did not end with %s (now %s)", outcome, vm.outcomeProperty().get()).isNotNull();
      r.run();
    }
  }

  private List<Flow> flows(int n, int bodyBytes) {
    List<Flow> out = new ArrayList<>(n);
    byte[] body = "x".repeat(bodyBytes).getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < n; i++) {
      RecordedFlow f = new RecordedFlow(i + 1, Instant.now(), new CapturePolicy(1 << 20, false, dir));
      f.clientProtocol("HTTP/1.1");
      f.request(new RequestHead("GET", "https", "example.test", 443, "/item/" + i, "HTTP/1.1", Headers.of("Host", "example.test")));
      f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain")));
      f.responseBody().append(ByteBuffer.wrap(body));
      f.complete();
      out.add(f);
    }
    return out;
  }
}
