package dev.loupe.engine.api.session;

import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordingStore;
import static dev.loupe.engine.api.session.DiffFlows.get;
import static dev.loupe.engine.api.session.DiffFlows.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowDigest;
import dev.loupe.engine.api.session.model.WebSocketDigest;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session diff compares WebSocket messages per direction: how many each side sent, and message by
 * message its opcode and payload hash (its length when one was cut); in memory, through session
 * files (where the store streams the messages), in both reports, and a session against its own HAR
 * export does not differ.
 */
@Timeout(120)
class WebSocketDiffTest {
  @TempDir Path dir;

  private static DiffFlows.Spec socket() {
    return get("https://ws.test/feed");
  }

  private static SessionDiff.Collector diff(DiffFlows.Spec a, DiffFlows.Spec b) throws Exception {
    SessionDiff.Collector c = new SessionDiff.Collector();
    DiffOptions o = DiffOptions.DEFAULT;
    SessionDiff.run(SessionDiff.sorted(List.of(a.digest()), o), SessionDiff.sorted(List.of(b.digest()), o), o, c,
        () -> false);
    return c;
  }

  private static List<FlowDiff.Change> changes(DiffFlows.Spec a, DiffFlows.Spec b) throws Exception {
    SessionDiff.Collector c = diff(a, b);
    return c.entries().isEmpty() ? List.of() : c.entries().get(0).changes();
  }

  @Test
  void theSameMessagesInAnotherInterleavingDoNotDiffer() throws Exception {
    DiffFlows.Spec a = socket().text(true, "sub").text(false, "ack").text(false, "tick 1").text(true, "ping");
    DiffFlows.Spec b = socket().text(true, "sub").text(true, "ping").text(false, "ack").text(false, "tick 1");
    assertThat(diff(a, b).entries()).isEmpty();
    assertThat(diff(a, b).summary().unchanged()).isEqualTo(1);
  }

  @Test
  void anExtraMessageIsACountAndAMessage() throws Exception {
    List<FlowDiff.Change> c = changes(socket().text(true, "sub").text(false, "ack"),
        socket().text(true, "sub").text(false, "ack").text(false, "tick"));
    assertThat(c).extracting(FlowDiff.Change::aspect, FlowDiff.Change::name, FlowDiff.Change::before,
        FlowDiff.Change::after).containsExactly(
        tuple(FlowDiff.Aspect.WEBSOCKET_COUNT, "server→client", "1", "2"),
        tuple(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "server→client #2", null,
            "text, 4 bytes, sha256 " + sha("tick").substring(0, 12)));
  }

  @Test
  void aChangedPayloadOrOpcodeIsAChangedMessage() throws Exception {
    byte[] bin = {1, 2, 3};
    List<FlowDiff.Change> c = changes(
        socket().text(true, "a").text(true, "b").message(false, 2, bin, 3),
        socket().text(true, "a").text(true, "B").message(false, 1, bin, 3));
    assertThat(c).extracting(FlowDiff.Change::aspect, FlowDiff.Change::name).containsExactly(
        tuple(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "client→server #2"),
        tuple(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "server→client #1"));
    assertThat(c.get(0).before()).isEqualTo("text, 1 bytes, sha256 " + sha("b").substring(0, 12));
    assertThat(c.get(0).after()).isEqualTo("text, 1 bytes, sha256 " + sha("B").substring(0, 12));
    assertThat(c.get(1).before()).startsWith("binary, 3 bytes, sha256 ");
    assertThat(c.get(1).after()).startsWith("text, 3 bytes, sha256 ");
  }

  @Test
  void aMessageThatChangedDirectionIsOneFewerAndOneMore() throws Exception {
    List<FlowDiff.Change> c = changes(socket().text(true, "x"), socket().text(false, "x"));
    assertThat(c).extracting(FlowDiff.Change::aspect, FlowDiff.Change::name, FlowDiff.Change::before,
        FlowDiff.Change::after).containsExactly(
        tuple(FlowDiff.Aspect.WEBSOCKET_COUNT, "client→server", "1", "0"),
        tuple(FlowDiff.Aspect.WEBSOCKET_COUNT, "server→client", "0", "1"),
        tuple(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "client→server #1", "text, 1 bytes, sha256 " + sha("x").substring(0, 12),
            null),
        tuple(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "server→client #1", null,
            "text, 1 bytes, sha256 " + sha("x").substring(0, 12)));
  }

  @Test
  void messagesCutAtTheCaptureCapCompareByLength() throws Exception {
    assertThat(changes(socket().message(false, 2, utf8("abc"), 100_000), socket().message(false, 2, utf8("xyz"), 100_000)))
        .as("same length, payloads not kept whole").isEmpty();
    List<FlowDiff.Change> c = changes(socket().message(false, 2, utf8("abc"), 100_000),
        socket().message(false, 2, utf8("abc"), 100_001));
    assertThat(c).extracting(FlowDiff.Change::before, FlowDiff.Change::after)
        .containsExactly(tuple("binary, 100000 bytes, not kept whole", "binary, 100001 bytes, not kept whole"));
  }

  @Test
  void manyChangedMessagesAreListedUpToALimitAndCounted() throws Exception {
    DiffFlows.Spec a = socket();
    DiffFlows.Spec b = socket();
    for (int i = 0; i < SessionDiff.LISTED_MESSAGES + 5; i++) {
      a.text(false, "tick " + i + " at 10:00");
      b.text(false, "tick " + i + " at 11:00");
    }
    List<FlowDiff.Change> c = changes(a, b);
    assertThat(c).hasSize(SessionDiff.LISTED_MESSAGES + 1);
    assertThat(c.get(c.size() - 1)).isEqualTo(new FlowDiff.Change(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "server→client …",
        "5 more changed messages", "5 more changed messages"));
  }

  @Test
  void aDifferencePastTheKeptMessagesIsStillSeen() throws Exception {
    DiffFlows.Spec a = socket();
    DiffFlows.Spec b = socket();
    for (int i = 0; i < WebSocketDigest.KEPT; i++) {
      a.text(true, "m" + i);
      b.text(true, "m" + i);
    }
    a.text(true, "last");
    b.text(true, "LAST");
    FlowDigest d = a.digest();
    assertThat(d.webSocket().sent().count()).isEqualTo(WebSocketDigest.KEPT + 1);
    assertThat(d.webSocket().sent().first()).hasSize(WebSocketDigest.KEPT);
    List<FlowDiff.Change> c = changes(a, b);
    assertThat(c).extracting(FlowDiff.Change::aspect, FlowDiff.Change::name)
        .containsExactly(tuple(FlowDiff.Aspect.WEBSOCKET_MESSAGE, "client→server #10001…"));
    assertThat(c.get(0).before()).startsWith("sha256 of all ");
  }

  @Test
  void bothReportsNameTheDirectionAndPlace() throws Exception {
    DiffOptions o = DiffOptions.DEFAULT;
    List<FlowDigest> a = List.of(socket().text(true, "sub").text(false, "v1").digest());
    List<FlowDigest> b = List.of(socket().text(true, "sub").text(false, "v2").text(false, "v3").digest());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DiffJson json = new DiffJson(out, "a.loupe", "b.loupe", o, false)) {
      SessionDiff.run(SessionDiff.sorted(a, o), SessionDiff.sorted(b, o), o, json, () -> false);
    }
    JsonNode changes = new ObjectMapper().readTree(out.toByteArray()).path("entries").get(0).path("changes");
    assertThat(changes).hasSize(3);
    assertThat(changes.get(0).toString()).isEqualTo(
        "{\"aspect\":\"webSocketCount\",\"name\":\"server→client\",\"before\":\"1\",\"after\":\"2\"}");
    assertThat(changes.get(1).path("aspect").asText()).isEqualTo("webSocketMessage");
    assertThat(changes.get(1).path("name").asText()).isEqualTo("server→client #1");
    assertThat(changes.get(2).path("before").isNull()).isTrue();
    StringWriter md = new StringWriter();
    try (DiffMarkdown m = new DiffMarkdown(md, "a.loupe", "b.loupe", o, Files.createDirectories(dir.resolve("spool")))) {
      SessionDiff.run(SessionDiff.sorted(a, o), SessionDiff.sorted(b, o), o, m, () -> false);
    }
    assertThat(md.toString()).contains("- WebSocket messages server→client: `1` → `2`\n",
        "- WebSocket message server→client #1: `text, 2 bytes, sha256 " + sha("v1").substring(0, 12) + "` → `text, 2 bytes,"
            + " sha256 " + sha("v2").substring(0, 12) + "`\n",
        "- WebSocket message server→client #2: (none) → `text, 2 bytes, sha256 " + sha("v3").substring(0, 12) + "`\n");
  }

  @Test
  void sessionFilesStreamTheSameDigestsAndTheirDiffFindsTheChangedSocket() throws Exception {
    byte[] bin = new byte[70_000];
    new java.util.Random(3).nextBytes(bin);
    List<DiffFlows.Spec> left = List.of(get("https://h.test/page"),
        socket().text(true, "sub").message(false, 2, bin, bin.length).text(false, "tick 1"),
        get("https://ws.test/other").text(true, "hello").message(true, 9, new byte[0], 0));
    List<DiffFlows.Spec> right = List.of(get("https://h.test/page"),
        socket().text(true, "sub").message(false, 2, bin, bin.length).text(false, "tick 2"),
        get("https://ws.test/other").text(true, "hello").message(true, 9, new byte[0], 0));
    Path a = record("a.loupe", left);
    Path b = record("b.loupe", right);
    try (Session s = Session.openReadOnly(a, dir); DigestSource stored = s.digests(DiffOptions.DEFAULT)) {
      List<FlowDigest> fromFile = new ArrayList<>();
      for (FlowDigest d; (d = stored.next()) != null; ) {
        fromFile.add(d);
      }
      List<FlowDigest> fromFlows = new ArrayList<>();
      long id = 1;
      for (DiffFlows.Spec spec : left) {
        fromFlows.add(FlowDigest.of(spec.id(id++).flow(dir)));
      }
      assertThat(fromFile).containsExactlyInAnyOrderElementsOf(fromFlows);
    }
    try (Session sa = Session.openReadOnly(a, dir); Session sb = Session.openReadOnly(b, dir)) {
      SessionDiff.Collector c = new SessionDiff.Collector();
      DiffSummary sum = SessionDiff.run(sa, sb, DiffOptions.DEFAULT, c, () -> false);
      assertThat(sum).isEqualTo(new DiffSummary(3, 3, 0, 0, 1, 2));
      assertThat(c.entries().get(0).key()).isEqualTo("GET https://ws.test/feed");
      assertThat(c.entries().get(0).changes()).extracting(FlowDiff.Change::name).containsExactly("server→client #2");
    }
  }

  @Test
  void aSessionWithSocketsAndItsOwnHarExportDoNotDiffer() throws Exception {
    byte[] bin = {0, 1, 2, (byte) 0xff};
    Path file = record("s.loupe", List.of(get("https://h.test/page"),
        socket().text(true, "sub \u00e9").message(false, 2, bin, bin.length).text(false, "tick").message(true, 9,
            new byte[0], 0)));
    Path har = dir.resolve("s.har");
    try (Session s = Session.openReadOnly(file, dir)) {
      assertThat(s.exportHar(har, Filter.ALL)).isEqualTo(2);
    }
    try (DiffInput a = DiffInput.open(file, dir); DiffInput b = DiffInput.open(har, dir)) {
      SessionDiff.Collector c = new SessionDiff.Collector();
      DiffSummary sum = SessionDiff.run(a.session(), b.session(), DiffOptions.DEFAULT, c, () -> false);
      assertThat(c.entries()).isEmpty();
      assertThat(sum).isEqualTo(new DiffSummary(2, 2, 0, 0, 0, 2));
    }
  }

  private Path record(String name, List<DiffFlows.Spec> specs) throws Exception {
    Path file = dir.resolve(name);
    try (Session s = Session.open(file, dir)) {
      RecordingStore store = new RecordingStore();
      s.record(store, p -> { });
      long id = 1;
      for (DiffFlows.Spec spec : specs) {
        Flow f = spec.id(id++).flow(dir);
        store.add(f);
        store.completed(f);
      }
      s.flush();
    }
    return file;
  }

  private static String sha(String s) throws Exception {
    return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(utf8(s)));
  }
}
