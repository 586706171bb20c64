package dev.loupe.ui.detail;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.ui.body.JsonDocument;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The detail view model without a display: flows built through the engine's setters. */
class DetailViewModelTest {
  @TempDir
  Path spill;

  /** Runs posted UI work and background work when told to, so tests see each step. */
  static final class Steps {
    final Queue<Runnable> ui = new ArrayDeque<>();
    final Queue<Runnable> background = new ArrayDeque<>();

    void runAll() {
      while (!ui.isEmpty() || !background.isEmpty()) {
        while (!background.isEmpty()) {
          background.poll().run();
        }
        while (!ui.isEmpty()) {
          ui.poll().run();
        }
      }
    }
  }

  /** Bytes a captured body keeps in memory before spilling to disk. */
  int memoryCap = 64 << 20;

  RecordedFlow flow(long id, String contentType, String encoding, byte[] wire) {
    RecordedFlow f = new RecordedFlow(id, Instant.parse("2026-12-01T10:00:00Z"), new CapturePolicy(memoryCap, true, spill));
    f.clientProtocol("HTTP/1.1");
    f.serverProtocol("HTTP/2");
    f.request(new RequestHead("POST", "https", "api.example.com", 443, "/v1/items?q=caf%C3%A9&n=2", "HTTP/1.1",
        Headers.of("Host", "api.example.com", "Content-Type", "application/x-www-form-urlencoded")));
    f.requestBody().append(ByteBuffer.wrap("name=Ann+Lee&age=42".getBytes(StandardCharsets.US_ASCII)));
    f.response(new ResponseHead(100, "Continue", "HTTP/1.1", Headers.EMPTY));
    Headers.Field[] fields = encoding == null
        ? new Headers.Field[] {new Headers.Field("Content-Type", contentType)}
        : new Headers.Field[] {new Headers.Field("Content-Type", contentType), new Headers.Field("Content-Encoding", encoding)};
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of(List.of(fields))));
    f.responseBody().append(ByteBuffer.wrap(wire));
    f.responseTrailers(Headers.of("grpc-status", "0"));
    return f;
  }

  static byte[] gzip(String s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(s.getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  @Test
  void gzipJsonResponseShowsPrettyJsonTreeAndNote() throws IOException {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    RecordedFlow f = flow(1, "application/json", "gzip", gzip("{\"items\":[{\"id\":1},{\"id\":2}],\"ok\":true}"));
    f.complete();
    vm.show(f);
    BodyViewModel body = vm.response().body();
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.JSON);
    assertThat(body.textProperty().get()).startsWith("{\n  \"items\": [\n    {\n      \"id\": 1");
    assertThat(body.noteProperty().get()).startsWith("decoded from gzip (");
    assertThat(body.treeProperty().get().children()).extracting(JsonDocument.JsonTreeNode::label)
        .containsExactly("items: [2]", "ok: true");
    assertThat(body.spansProperty().get()).isNotEmpty();
    assertThat(vm.titleProperty().get()).isEqualTo("POST https://api.example.com/v1/items?q=caf%C3%A9&n=2  →  200");
    assertThat(vm.response().summaryProperty().get()).startsWith("200 OK · application/json · ");

    // 1xx, final head and trailers in the headers table
    assertThat(vm.response().headers()).extracting(HeaderRow::name, HeaderRow::section).containsExactly(
        org.assertj.core.groups.Tuple.tuple("100 Continue", true), org.assertj.core.groups.Tuple.tuple("200 OK", true),
        org.assertj.core.groups.Tuple.tuple("Content-Type", false),
        org.assertj.core.groups.Tuple.tuple("Content-Encoding", false),
        org.assertj.core.groups.Tuple.tuple("Trailers", true), org.assertj.core.groups.Tuple.tuple("grpc-status", false));
    assertThat(vm.response().rawProperty().get())
        .startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        .contains("[" + f.responseBody().size() + " bytes of binary data")
        .endsWith("grpc-status: 0\r\n");

    // request: form body, query parameters decoded
    assertThat(vm.request().body().shownProperty().get()).isEqualTo(ViewerMode.FORM);
    assertThat(vm.request().body().formRows()).containsExactly(new FormUrlEncoded.Param("name", "Ann Lee"),
        new FormUrlEncoded.Param("age", "42"));
    assertThat(vm.request().headers()).contains(HeaderRow.section("Query"), HeaderRow.field("q", "café"),
        HeaderRow.field("n", "2"));
    assertThat(vm.request().rawProperty().get())
        .isEqualTo("POST /v1/items?q=caf%C3%A9&n=2 HTTP/1.1\r\nHost: api.example.com\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\n\r\nname=Ann+Lee&age=42");
  }

  @Test
  void forcingAViewerRerendersAndSurvivesARefreshButNotAnotherFlow() throws IOException {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    RecordedFlow f = flow(1, "application/json", "gzip", gzip("{\"a\":1}"));
    vm.show(f);
    assertThat(vm.response().body().noteProperty().get()).contains("still receiving");
    BodyViewModel body = vm.response().body();
    body.modeProperty().set(ViewerMode.HEX);
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.HEX);
    assertThat(body.textProperty().get()).startsWith("00000000  7b 22 61 22 3a 31 7d").contains("|{\"a\":1}|");
    assertThat(body.autoModeProperty().get()).isEqualTo(ViewerMode.JSON);

    f.complete();
    vm.show(f); // the same flow, updated
    assertThat(body.modeProperty().get()).isEqualTo(ViewerMode.HEX);
    assertThat(body.noteProperty().get()).doesNotContain("still receiving");

    vm.show(flow(2, "text/plain", null, "plain".getBytes(StandardCharsets.US_ASCII)));
    assertThat(body.modeProperty().get()).isEqualTo(ViewerMode.AUTO);
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.TEXT);
    assertThat(body.textProperty().get()).isEqualTo("plain");
  }

  @Test
  void decodingRunsInTheBackgroundAndStaleResultsAreDropped() throws IOException {
    Steps steps = new Steps();
    DetailViewModel vm = new DetailViewModel(steps.ui::add, steps.background::add);
    RecordedFlow slow = flow(1, "application/json", "gzip", gzip("{\"first\":true}"));
    slow.complete();
    vm.show(slow);
    assertThat(vm.response().body().loadingProperty().get()).isTrue();
    assertThat(vm.response().body().textProperty().get()).as("nothing decoded on the UI thread").isEmpty();
    assertThat(steps.background).isNotEmpty();

    RecordedFlow next = flow(2, "text/plain", null, "second".getBytes(StandardCharsets.US_ASCII));
    next.complete();
    vm.show(next); // selected before the first finished
    steps.runAll();
    assertThat(vm.response().body().textProperty().get()).isEqualTo("second");
    assertThat(vm.response().body().loadingProperty().get()).isFalse();
  }

  @Test
  void aGrowingBodyIsDecodedOncePerFinishedDecodeNotOncePerRefresh() {
    Steps steps = new Steps();
    DetailViewModel vm = new DetailViewModel(steps.ui::add, steps.background::add);
    RecordedFlow f = flow(1, "text/plain", null, "a".getBytes(StandardCharsets.US_ASCII));
    vm.show(f);
    int queued = steps.background.size();
    for (int i = 0; i < 50; i++) { // the table refreshing the pane while the body streams in
      f.responseBody().append(ByteBuffer.wrap("b".getBytes(StandardCharsets.US_ASCII)));
      vm.show(f);
    }
    assertThat(steps.background).as("one pending decode per view, replaced by newer ones").hasSize(queued);
    steps.runAll();
    assertThat(vm.response().body().textProperty().get()).isEqualTo("a" + "b".repeat(50));
    assertThat(vm.response().rawProperty().get()).contains("\r\n\r\na" + "b".repeat(50) + "\r\n");
  }

  @Test
  void latestOnlyRunsTheNewestPendingTask() {
    Queue<Runnable> executor = new ArrayDeque<>();
    LatestOnly latest = new LatestOnly(executor::add);
    List<String> ran = new java.util.ArrayList<>();
    latest.submit(() -> ran.add("a"));
    latest.submit(() -> ran.add("b"));
    latest.submit(() -> {
      ran.add("c");
      latest.submit(() -> ran.add("d")); // submitted while running: runs after
    });
    assertThat(executor).hasSize(1);
    while (!executor.isEmpty()) {
      executor.poll().run();
    }
    assertThat(ran).containsExactly("c", "d");
  }

  @Test
  void aFiftyMebibyteBodyIsPreviewedNotShownWhole() {
    byte[] big = new byte[50 << 20];
    java.util.Arrays.fill(big, (byte) 'x');
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    memoryCap = 1 << 20;
    RecordedFlow f = flow(1, "text/plain", null, big);
    f.complete();
    assertThat(f.responseBody().spilled()).as("most of the body lives on disk").isTrue();
    vm.show(f);
    BodyViewModel body = vm.response().body();
    String shown = body.textProperty().get();
    assertThat(shown.replace("\n", "")).hasSize(BodyRendering.TEXT_LIMIT);
    assertThat(shown.lines()).as("one 50 MiB line, broken for display")
        .hasSize(BodyRendering.TEXT_LIMIT / BodyRendering.MAX_LINE + 1)
        .allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(BodyRendering.MAX_LINE));
    assertThat(body.spansProperty().get()).isEmpty();
    assertThat(body.noteProperty().get()).contains("showing the first 16 MiB of 50 MiB").contains("first 1.0 MiB as text")
        .contains("broken for display");
    assertThat(vm.response().rawProperty().get()).contains("more bytes]");
    body.modeProperty().set(ViewerMode.HEX);
    assertThat(body.textProperty().get().lines().count()).isEqualTo(BodyRendering.HEX_LIMIT / 16);
  }

  @Test
  void multipartAndImageAndInvalidJson() {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    String mp = "--b1\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.json\"\r\nContent-Type: application/json\r\n\r\n"
        + "{\"x\":1}\r\n--b1--\r\n";
    RecordedFlow f = flow(1, "multipart/form-data; boundary=b1", null, mp.getBytes(StandardCharsets.US_ASCII));
    f.complete();
    vm.show(f);
    BodyViewModel body = vm.response().body();
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.MULTIPART);
    assertThat(body.parts()).singleElement().satisfies(p -> assertThat(p.filename()).isEqualTo("a.json"));
    BodyRendering part = BodyViewModel.partPreview(body.parts().get(0));
    assertThat(part.mode()).isEqualTo(ViewerMode.JSON);
    assertThat(part.text()).isEqualTo("{\n  \"x\": 1\n}");

    byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3};
    RecordedFlow img = flow(2, "application/octet-stream", null, png);
    img.complete();
    vm.show(img);
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.IMAGE);
    assertThat(body.imageProperty().get()).isEqualTo(png);

    RecordedFlow bad = flow(3, "application/json", null, "{\"a\": nope}".getBytes(StandardCharsets.US_ASCII));
    bad.complete();
    vm.show(bad);
    assertThat(body.shownProperty().get()).isEqualTo(ViewerMode.TEXT);
    assertThat(body.textProperty().get()).isEqualTo("{\"a\": nope}");
    assertThat(body.noteProperty().get()).startsWith("not valid JSON: ").contains("line 1");
  }

  @Test
  void connectionTlsTimingAndError() throws Exception {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    RecordedFlow f = flow(7, "text/plain", null, new byte[0]);
    f.clientConnection(new ConnectionInfo(3, new InetSocketAddress("127.0.0.1", 50000),
        new InetSocketAddress("127.0.0.1", 8080), new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_128_GCM_SHA256",
            "h2", List.of(), false), false));
    f.serverConnection(new ConnectionInfo(4, new InetSocketAddress("::1", 443), null, null, true));
    long t0 = 1_000_000_000L;
    f.timings().requestStart(t0);
    f.timings().dnsStart(t0 + 1_000_000);
    f.timings().dnsEnd(t0 + 3_000_000);
    f.timings().connectStart(t0 + 3_000_000);
    f.timings().connectEnd(t0 + 8_000_000);
    f.timings().tlsStart(t0 + 8_000_000);
    f.timings().tlsEnd(t0 + 20_000_000);
    f.timings().sendStart(t0 + 20_000_000);
    f.timings().sendEnd(t0 + 21_000_000);
    f.timings().responseStart(t0 + 71_000_000);
    f.timings().responseEnd(t0 + 81_000_000);
    f.clientQuicConnectionId("9f3a5c01e7d2");
    f.http3Status("no Alt-Svc");
    f.fail(new FlowError(FlowError.Kind.SERVER_RESET, "api.example.com closed the connection"));
    vm.show(f);
    assertThat(vm.connectionRows()).contains(InfoRow.of("Tier", "relay"), InfoRow.of("Server protocol", "HTTP/2"),
        InfoRow.of("Error", "SERVER_RESET: api.example.com closed the connection"), InfoRow.of("TLS version", "TLSv1.3"),
        InfoRow.of("ALPN", "h2"), InfoRow.of("SNI", "api.example.com"), InfoRow.of("Server address", "[0:0:0:0:0:0:0:1]:443"),
        InfoRow.of("Connection id", "4 (reused)"), InfoRow.of("TLS", "none (cleartext)"),
        InfoRow.of("QUIC connection (client)", "9f3a5c01e7d2"), InfoRow.of("HTTP/3 to the origin", "no Alt-Svc"));
    assertThat(vm.timingPhases()).extracting(TimingPhase::name, TimingPhase::startMs, TimingPhase::ms).containsExactly(
        org.assertj.core.groups.Tuple.tuple("Blocked", 0.0, 1.0), org.assertj.core.groups.Tuple.tuple("DNS", 1.0, 2.0),
        org.assertj.core.groups.Tuple.tuple("Connect", 3.0, 5.0), org.assertj.core.groups.Tuple.tuple("TLS", 8.0, 12.0),
        org.assertj.core.groups.Tuple.tuple("Send", 20.0, 1.0), org.assertj.core.groups.Tuple.tuple("Wait", 21.0, 50.0),
        org.assertj.core.groups.Tuple.tuple("Receive", 71.0, 10.0));
    assertThat(vm.totalMsProperty().get()).isEqualTo(81.0);
    assertThat(vm.titleProperty().get()).endsWith("→  200");
  }

  @Test
  void webSocketMessagesAppendOnRefreshAndShowTheSelectedOne() {
    DetailViewModel vm = new DetailViewModel(Runnable::run, Runnable::run);
    RecordedFlow f = flow(9, "text/plain", null, new byte[0]);
    f.webSocket(true);
    Instant t = Instant.parse("2026-12-01T10:00:01Z");
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, WebSocketMessage.TEXT,
        "{\"op\":\"hi\"}".getBytes(StandardCharsets.UTF_8), 11, t));
    vm.show(f);
    assertThat(vm.webSocketProperty().get()).isTrue();
    assertThat(vm.webSocketMessages()).extracting(WebSocketRow::arrow, WebSocketRow::opcode, WebSocketRow::preview)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("↑", "text", "{\"op\":\"hi\"}"));
    vm.selectMessage(vm.webSocketMessages().get(0));
    assertThat(vm.messageBody().shownProperty().get()).isEqualTo(ViewerMode.TEXT);
    assertThat(vm.messageBody().textProperty().get()).isEqualTo("{\"op\":\"hi\"}");
    vm.messageBody().modeProperty().set(ViewerMode.JSON);
    assertThat(vm.messageBody().textProperty().get()).isEqualTo("{\n  \"op\": \"hi\"\n}");

    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, WebSocketMessage.BINARY,
        new byte[] {0, 1, 2}, 3, t.plusMillis(5)));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, WebSocketMessage.CLOSE,
        new byte[] {0x03, (byte) 0xE8, 'b', 'y', 'e'}, 5, t.plusMillis(6)));
    WebSocketRow first = vm.webSocketMessages().get(0);
    vm.show(f);
    assertThat(vm.webSocketMessages()).hasSize(3);
    assertThat(vm.webSocketMessages().get(0)).as("rows already shown are kept").isSameAs(first);
    assertThat(vm.selectedMessageProperty().get()).isSameAs(first);
    assertThat(vm.webSocketMessages().get(2).preview()).isEqualTo("1000 bye");
    vm.selectMessage(vm.webSocketMessages().get(1));
    assertThat(vm.messageBody().shownProperty().get()).isEqualTo(ViewerMode.HEX);

    vm.clear();
    assertThat(vm.flowProperty().get()).isNull();
    assertThat(vm.webSocketMessages()).isEmpty();
    assertThat(vm.response().headers()).isEmpty();
  }

}
