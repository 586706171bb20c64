package dev.loupe.engine.internal.store;

import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordingStore;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.filter.BodyScan;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SortKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The body search answers exactly as {@link Filter#test} does on the flows rebuilt from the same
 * file, whatever the chunking (one id per chunk, a few, one chunk for all), in both id orders and
 * sorted by a column, when the sink stops early, and wherever the bytes are: inline, in side files
 * while recording, in chunk rows after the file is saved; for bodies plain, gzip, zlib and raw
 * deflate, mislabelled, in a coding the filter does not undo, cut short by the capture cap, bigger
 * than the 1 MiB the filter reads, changed by a rule (the sent body counts), and WebSocket messages.
 */
@Timeout(120)
class BodySearchTest {
  private static final String[] FILTERS = {
      "~b needle", "~bq needle", "~bs needle", "~b NEEDLE", "~b ne+dle", "~b needle & ~m POST", "!~b needle",
      "~b needle | ~bs other", "~bs needle & !~bq needle & status=200", "~b caf\u00e9", "~b \"id\":1\\d,",
      "~b needle & (~bs other | !~bq x)", "~bq token & ~d example", "~b needle & ~h x-mark", "~b tail-needle",
      "~b ping-needle", "~bq ping-needle", "~b .", "!~b .", "~b needle & status>=400",
  };

  @TempDir Path dir;

  @Test
  void whileRecordingBigBodiesAreSideFiles() throws Exception {
    Path file = dir.resolve("live.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir)) {
      s.record(store, p -> { });
      record(store);
      s.flush();
      try (Stream<Path> side = Files.list(dir.resolve("live.loupe-bodies"))) {
        assertThat(side.count()).as("side files").isGreaterThan(0);
      }
      try (SessionDb db = SessionDb.open(file, true)) {
        checkEveryFilter(db);
      }
    }
  }

  @Test
  void afterSavingBigBodiesAreChunkRows() throws Exception {
    Path file = dir.resolve("saved.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir)) {
      s.record(store, p -> { });
      record(store);
    }
    assertThat(dir.resolve("saved.loupe-bodies")).doesNotExist();
    try (SessionDb db = SessionDb.open(file, true)) {
      checkEveryFilter(db);
    }
  }

  @Test
  void onlyBodyAtomsAndColumnsMakeAScan() {
    assertThat(BodyScan.of(Filter.parse("~b x"))).isNotNull();
    assertThat(BodyScan.of(Filter.parse("~b x & ~d api & status>=400"))).isNotNull();
    assertThat(BodyScan.of(Filter.parse("!(~bq x | ~bs y) & ~m POST"))).isNotNull();
    assertThat(BodyScan.of(Filter.parse("~b x & ~h y"))).as("a header atom").isNull();
    assertThat(BodyScan.of(Filter.parse("~b x | status=200"))).as("or with a column").isNull();
    assertThat(BodyScan.of(Filter.parse("~m POST"))).as("SQL alone").isNull();
    BodyScan request = BodyScan.of(Filter.parse("~bq x & ~d y"));
    assertThat(request.readsRequest()).isTrue();
    assertThat(request.readsResponse()).isFalse();
  }

  private void checkEveryFilter(SessionDb db) throws Exception {
    FlowReader truth = new FlowReader(db, dir);
    List<Flow> flows = new ArrayList<>();
    truth.flows(Filter.ALL, flows::add, () -> false);
    assertThat(flows).hasSizeGreaterThan(100);
    for (String expression : FILTERS) {
      Filter filter = Filter.parse(expression);
      List<Long> expected = flows.stream().filter(filter).map(Flow::id).toList();
      List<Long> reversed = new ArrayList<>(expected);
      Collections.reverse(reversed);
      for (int chunk : new int[] {1, 7, 1 << 20}) {
        FlowReader reader = new FlowReader(db, dir, chunk);
        String what = expression + " in chunks of " + chunk;
        assertThat(ids(reader, filter, SortKey.ID, false, Integer.MAX_VALUE)).as(what).isEqualTo(expected);
        assertThat(ids(reader, filter, SortKey.ID, true, Integer.MAX_VALUE)).as(what + ", descending")
            .isEqualTo(reversed);
        assertThat(ids(reader, filter, SortKey.ID, false, 3)).as(what + ", the first 3")
            .isEqualTo(expected.subList(0, Math.min(3, expected.size())));
      }
      // sorted by a column (status descending, a flow without a response last, ties by id descending)
      List<Long> byStatus = flows.stream().filter(filter)
          .sorted(java.util.Comparator.comparingInt((Flow f) -> f.response() == null ? -1 : f.response().status())
              .thenComparingLong(Flow::id).reversed())
          .map(Flow::id).toList();
      assertThat(ids(new FlowReader(db, dir, 5), filter, SortKey.STATUS, true, Integer.MAX_VALUE))
          .as(expression + " by status").isEqualTo(byStatus);
    }
  }

  private static List<Long> ids(FlowReader reader, Filter filter, SortKey key, boolean descending, int limit)
      throws Exception {
    List<Long> out = new ArrayList<>();
    reader.ids(filter, key, descending, id -> {
      out.add(id);
      return out.size() < limit;
    }, () -> false);
    return out;
  }

  // ---- the flows -------------------------------------------------------------------------------

  private void record(RecordingStore store) throws IOException {
    CapturePolicy big = new CapturePolicy(4 << 20, true, dir);
    CapturePolicy cut = new CapturePolicy(64, false, dir);
    for (int i = 0; i < 160; i++) {
      RecordedFlow f = new RecordedFlow(store.nextId(), Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i), i % 10 == 9 ? cut : big);
      if (i % 37 == 36) { // no request at all
        store.add(f);
        f.fail(new FlowError(FlowError.Kind.CLIENT_TLS, "handshake"));
        store.completed(f);
        continue;
      }
      f.timings().requestStart(1_000);
      String method = i % 3 == 0 ? "POST" : "GET";
      Headers reqHeaders = Headers.of("Host", "example.com", "X-Mark", i % 2 == 0 ? "even" : "odd");
      byte[] reqBody = null;
      if (i % 3 == 0) {
        String text = "token=" + i + (i % 4 == 0 ? "&q=needle" : "") + "&pad=" + "p".repeat(i % 5 * 30);
        reqBody = utf8(text);
        if (i % 6 == 0) {
          reqHeaders = reqHeaders.plus("Content-Encoding", "gzip");
          reqBody = gzip(reqBody);
        }
      }
      f.request(new RequestHead(method, "https", i % 5 == 0 ? "api.example.com" : "other.test", 443, "/r/" + i,
          "HTTP/1.1", reqHeaders));
      if (reqBody != null) {
        f.requestBody().append(ByteBuffer.wrap(reqBody));
      }
      store.add(f);
      if (i % 29 == 28) {
        continue; // never answered: in flight when written
      }
      int status = i % 11 == 0 ? 500 : i % 23 == 0 ? 101 : 200;
      String json = "{\"id\":" + i + ",\"text\":\"" + (i % 7 == 0 ? "Caf\u00e9 " : "plain ") + (i % 4 == 1 ? "NeEdLe" : "")
          + (i % 13 == 0 ? " other" : "") + "\",\"pad\":\"" + "x".repeat(i % 9 * 20) + "\"}";
      byte[] resBody = utf8(json);
      Headers resHeaders = Headers.of("Content-Type", "application/json");
      switch (i % 8) {
        case 1 -> {
          resHeaders = resHeaders.plus("content-encoding", "gzip");
          resBody = gzip(resBody);
        }
        case 2 -> {
          resHeaders = resHeaders.plus("CONTENT-ENCODING", "deflate");
          resBody = deflate(resBody, false);
        }
        case 3 -> {
          resHeaders = resHeaders.plus("Content-Encoding", "deflate");
          resBody = deflate(resBody, true);
        }
        case 4 -> resHeaders = resHeaders.plus("Content-Encoding", "gzip"); // says gzip, is not: read as is
        case 5 -> resHeaders = resHeaders.plus("Content-Encoding", "br"); // not undone: read as is
        case 6 -> resHeaders = resHeaders.plus("X-Content-Encoding-Note", "gzip"); // not the header
        default -> { }
      }
      f.response(new ResponseHead(status, "", "HTTP/1.1", resHeaders));
      if (i % 41 == 40) { // 1.5 MiB: one needle inside the first MiB, one past it
        byte[] huge = new byte[3 << 19];
        Arrays.fill(huge, (byte) 'z');
        System.arraycopy(utf8("tail-needle"), 0, huge, huge.length - 100, 11);
        if (i == 40) {
          System.arraycopy(utf8("needle"), 0, huge, 1000, 6);
        }
        resBody = huge;
      }
      f.responseBody().append(ByteBuffer.wrap(resBody));
      if (i % 17 == 5) { // a rule changed both messages: what was sent is searched, the original is not
        RecordedBody sent = new RecordedBody(big);
        sent.append(ByteBuffer.wrap(utf8("changed " + (i % 2 == 0 ? "needle" : "nothing"))));
        sent.complete();
        f.requestModified(new RequestHead(method, "https", "example.com", 443, "/changed", "HTTP/1.1",
            Headers.of("Content-Encoding", "identity")), sent);
        RecordedBody delivered = new RecordedBody(big);
        delivered.append(ByteBuffer.wrap(gzip(utf8("delivered needle " + i))));
        delivered.complete();
        f.responseModified(new ResponseHead(200, "", "HTTP/1.1", Headers.of("Content-Encoding", "gzip")), delivered);
      }
      if (status == 101) {
        f.webSocket(true);
        f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, 1,
            utf8("hello ping-needle"), 17, Instant.now()));
        f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, 2,
            new byte[] {1, 2, 3}, 3, Instant.now()));
      }
      f.timings().responseEnd(2_000 + i);
      f.complete();
      store.completed(f);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(b);
    }
    return out.toByteArray();
  }

  private static byte[] deflate(byte[] b, boolean zlib) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DeflaterOutputStream z = new DeflaterOutputStream(out, new Deflater(Deflater.DEFAULT_COMPRESSION, !zlib))) {
      z.write(b);
    }
    return out.toByteArray();
  }
}
