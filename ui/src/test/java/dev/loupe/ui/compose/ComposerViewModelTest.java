package dev.loupe.ui.compose;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The composer's model without a display: a recording replayer, UI and background work run inline. */
@Timeout(30)
class ComposerViewModelTest {
  @TempDir
  Path confdir;
  final RecordingReplayer replayer = new RecordingReplayer();
  final Clock clock = Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC);

  ComposerViewModel vm() {
    return new ComposerViewModel(replayer, ComposerHistory.in(confdir), Runnable::run, Runnable::run, clock);
  }

  @Test
  void sendsTheEditedRequestAndShowsTheAnswerAndTheNewFlowsId() {
    ComposerViewModel vm = vm();
    vm.methodProperty().set("post");
    vm.methodProperty().set("POST");
    vm.urlProperty().set("  http://origin.test:8080/api?q=1 ");
    vm.addHeader("Content-Type", "application/json");
    vm.addHeader("", ""); // an empty row is skipped
    vm.bodyProperty().set("{\"a\": [1, 2]}");
    vm.protocolProperty().set(Replayer.Protocol.H2);

    assertThat(vm.send()).isTrue();
    assertThat(vm.sendingProperty().get()).isTrue();
    assertThat(vm.responseStatusProperty().get()).isEqualTo("Sending…");
    RecordingReplayer.Call c = replayer.call(0);
    assertThat(c.request().method()).isEqualTo("POST");
    assertThat(c.request().url()).isEqualTo("http://origin.test:8080/api?q=1");
    assertThat(c.request().headers().fields()).containsExactly(new Headers.Field("Content-Type", "application/json"),
        new Headers.Field("Content-Length", "13"));
    assertThat(c.request().body()).asString(StandardCharsets.UTF_8).isEqualTo("{\"a\": [1, 2]}");
    assertThat(c.protocol()).isEqualTo(Replayer.Protocol.H2);
    assertThat(c.replayOf()).isEqualTo(-1);

    Flow answer = Flows.answered(Flows.get(42, "http://origin.test:8080/api?q=1", "HTTP/2"), 200,
        Headers.of("Content-Type", "text/plain", "X-Seen", "yes"), "created");
    c.result().complete(answer);
    assertThat(vm.sendingProperty().get()).isFalse();
    assertThat(vm.flowIdProperty().get()).isEqualTo(42);
    assertThat(vm.lastFlowProperty().get()).isSameAs(answer);
    assertThat(vm.responseStatusProperty().get()).isEqualTo("200 OK · HTTP/2 · 7 B");
    assertThat(vm.responseHeaders()).extracting(r -> r.name() + ": " + r.value())
        .containsExactly("Content-Type: text/plain", "X-Seen: yes");
    assertThat(vm.responseBody().textProperty().get()).isEqualTo("created");
    assertThat(vm.errorProperty().get()).isEmpty();
  }

  @Test
  void anInvalidUrlMethodOrHeaderIsAnInlineErrorAndNothingIsSent() {
    ComposerViewModel vm = vm();
    vm.urlProperty().set("example.com/x");
    assertThat(vm.send()).isFalse();
    assertThat(vm.errorProperty().get()).contains("http://");

    vm.urlProperty().set("http://example.com/x");
    vm.methodProperty().set("GE T");
    assertThat(vm.send()).isFalse();
    assertThat(vm.errorProperty().get()).contains("invalid method");

    vm.methodProperty().set("GET");
    vm.addHeader("Bad Name", "x");
    assertThat(vm.send()).isFalse();
    assertThat(vm.errorProperty().get()).isEqualTo("Header 1: invalid name \"Bad Name\"");
    assertThat(replayer.count()).isZero();
    assertThat(vm.history()).isEmpty();

    vm.removeHeader(vm.headers().get(0));
    assertThat(vm.send()).isTrue();
    assertThat(vm.errorProperty().get()).isEmpty();
    assertThat(replayer.call(0).request().headers().isEmpty()).as("no body, no Content-Length").isTrue();
  }

  @Test
  void aFlowLoadsForEditAndReplayAndABinaryBodyGoesUnchanged() {
    ComposerViewModel vm = vm();
    byte[] bin = {1, 2, 0, (byte) 0xff};
    vm.load(new RequestDraft("PUT", "https://x.test/blob", "HTTP/2",
        Headers.of("Content-Type", "application/octet-stream", "Content-Length", "4"), bin), Replayer.Protocol.H3, 9);
    assertThat(vm.binaryBodyProperty().get()).isEqualTo(bin);
    assertThat(vm.bodyProperty().get()).isEmpty();
    assertThat(vm.hexDump()).startsWith("00000000  01 02 00 ff");
    assertThat(vm.prettyPrintJson()).isFalse();
    assertThat(vm.errorProperty().get()).contains("binary");
    assertThat(vm.replayOfProperty().get()).isEqualTo(9);

    assertThat(vm.send()).isTrue();
    RecordingReplayer.Call c = replayer.call(0);
    assertThat(c.request().body()).isEqualTo(bin);
    assertThat(c.replayOf()).isEqualTo(9);
    assertThat(c.protocol()).isEqualTo(Replayer.Protocol.H3);

    vm.clearBody();
    vm.bodyProperty().set("[1,2]");
    assertThat(vm.prettyPrintJson()).isTrue();
    String pretty = "[\n  1,\n  2\n]";
    assertThat(vm.bodyProperty().get()).isEqualTo(pretty);
    assertThat(vm.send()).isTrue();
    assertThat(replayer.call(1).request().headers().get("content-length")).as("fixed to the new body")
        .isEqualTo(Integer.toString(pretty.length()));
    vm.bodyProperty().set("{nope");
    assertThat(vm.prettyPrintJson()).isFalse();
    assertThat(vm.errorProperty().get()).startsWith("The body is not JSON");
  }

  @Test
  void aFailedExchangeShowsTheFlowsError() {
    ComposerViewModel vm = vm();
    vm.urlProperty().set("http://127.0.0.1:1/");
    vm.send();
    RecordedFlow failed = Flows.get(3, "http://127.0.0.1:1/", null);
    failed.fail(new dev.loupe.engine.flow.FlowError(dev.loupe.engine.flow.FlowError.Kind.CONNECT_REFUSED, "refused"));
    replayer.call(0).result().complete(failed);
    assertThat(vm.responseStatusProperty().get()).isEqualTo("No response — CONNECT_REFUSED: refused");
    assertThat(vm.flowIdProperty().get()).isEqualTo(3);
  }

  @Test
  void theHistoryIsPersistedOwnerOnlyBoundedAndLoadsBack() throws Exception {
    ComposerViewModel vm = vm();
    for (int i = 0; i < ComposerHistory.MAX_ENTRIES + 5; i++) {
      vm.urlProperty().set("http://h.test/" + i);
      assertThat(vm.send()).isTrue();
    }
    vm.urlProperty().set("http://h.test/3"); // sent again: moves to the top, no duplicate
    vm.send();
    Path file = confdir.resolve("composer-history.json");
    assertThat(file).exists();
    if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
      assertThat(Files.getPosixFilePermissions(file))
          .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }
    ComposerViewModel again = vm();
    assertThat(again.history()).hasSize(ComposerHistory.MAX_ENTRIES);
    assertThat(again.history().get(0).request().url()).isEqualTo("http://h.test/3");
    assertThat(again.history().get(1).request().url()).isEqualTo("http://h.test/104");
    assertThat(again.history()).extracting(e -> e.request().url()).doesNotHaveDuplicates();

    again.load(again.history().get(0));
    assertThat(again.urlProperty().get()).isEqualTo("http://h.test/3");
    assertThat(again.replayOfProperty().get()).isEqualTo(-1);
  }

  @Test
  void historyEntriesKeepHeadersBodyAndProtocolAndDropHugeBodies() throws Exception {
    ComposerHistory h = ComposerHistory.in(confdir);
    RequestDraft small = new RequestDraft("POST", "http://a.test/", "HTTP/1.1", Headers.of("A", "1", "A", "2"),
        new byte[] {0, 1, 2});
    RequestDraft huge = small.withUrl("http://b.test/").withBody(new byte[ComposerHistory.MAX_BODY + 1]);
    List<ComposerHistory.Entry> list = new ArrayList<>();
    list = ComposerHistory.add(list, new ComposerHistory.Entry(clock.instant(), small, Replayer.Protocol.H2, false));
    list = ComposerHistory.add(list, new ComposerHistory.Entry(clock.instant(), huge, Replayer.Protocol.AUTO, false));
    h.save(list);
    List<ComposerHistory.Entry> back = h.load();
    assertThat(back).hasSize(2);
    assertThat(back.get(0).bodyOmitted()).isTrue();
    assertThat(back.get(0).request().body()).isEmpty();
    assertThat(back.get(1).request().sameAs(small)).isTrue();
    assertThat(back.get(1).protocol()).isEqualTo(Replayer.Protocol.H2);
    assertThat(back.get(1).sentAt()).isEqualTo(clock.instant());

    Files.writeString(h.file(), "{ not json");
    assertThat(h.load()).isEmpty();
  }

  @Test
  void secretsStayOutOfTheHistoryFileUnlessTheUserOptsIn() throws Exception {
    ComposerViewModel vm = vm();
    assertThat(vm.keepSecretsInHistoryProperty().get()).as("off by default").isFalse();
    vm.urlProperty().set("https://me:hunter2@api.test/v1?x=1");
    vm.addHeader("Authorization", "Bearer s3cr3t-token");
    vm.addHeader("Cookie", "session=abc123");
    vm.addHeader("X-Api-Key", "k-999");
    vm.addHeader("Accept", "application/json");
    assertThat(vm.send()).isTrue();
    assertThat(replayer.call(0).request().headers().get("Authorization")).as("sent as typed")
        .isEqualTo("Bearer s3cr3t-token");

    Path file = confdir.resolve(ComposerHistory.FILE_NAME);
    String saved = Files.readString(file);
    assertThat(saved).doesNotContain("s3cr3t-token", "abc123", "k-999", "hunter2").contains("application/json");
    ComposerViewModel again = vm();
    ComposerHistory.Entry e = again.history().get(0);
    assertThat(e.redacted()).containsExactly("Authorization", "Cookie", "X-Api-Key", "URL password");
    assertThat(e.request().headers().get("Authorization")).isEmpty();
    assertThat(e.request().url()).isEqualTo("https://me@api.test/v1?x=1");
    again.load(e);
    assertThat(again.errorProperty().get()).contains("Authorization, Cookie, X-Api-Key, URL password");

    // Opting in keeps them (and is remembered with the history) ...
    vm.keepSecretsInHistoryProperty().set(true);
    vm.send();
    assertThat(Files.readString(file)).contains("s3cr3t-token", "abc123", "k-999", "hunter2");
    assertThat(vm().keepSecretsInHistoryProperty().get()).isTrue();
    // ... and opting out again scrubs the file at once.
    vm.keepSecretsInHistoryProperty().set(false);
    assertThat(Files.readString(file)).doesNotContain("s3cr3t-token", "abc123", "k-999", "hunter2");
    if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
      assertThat(Files.getPosixFilePermissions(file))
          .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    }
  }

  @Test
  void credentialHeaderNamesAndUrlPasswords() {
    assertThat(HistorySecrets.isSecret("authorization")).isTrue();
    assertThat(HistorySecrets.isSecret("Proxy-Authorization")).isTrue();
    assertThat(HistorySecrets.isSecret("X-CSRF-Token")).isTrue();
    assertThat(HistorySecrets.isSecret("X-Amz-Security-Token")).isTrue();
    assertThat(HistorySecrets.isSecret("Accept")).isFalse();
    assertThat(HistorySecrets.isSecret("Content-Type")).isFalse();
    assertThat(HistorySecrets.withoutPassword("http://u:p@h.test:81/a@b")).isEqualTo("http://u@h.test:81/a@b");
    assertThat(HistorySecrets.withoutPassword("http://u@h.test/")).isEqualTo("http://u@h.test/");
    assertThat(HistorySecrets.withoutPassword("http://h.test/?a=b:c@d")).isEqualTo("http://h.test/?a=b:c@d");
    assertThat(HistorySecrets.withoutPassword("http://u:p w@h.test/")).isEqualTo("http://h.test/");
  }
}
