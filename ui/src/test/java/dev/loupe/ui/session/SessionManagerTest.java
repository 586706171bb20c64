package dev.loupe.ui.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.ImportReport;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The window's sessions without a window: untitled sessions autosaved in the configuration
 * directory, Save As, Open, HAR import and export, Open Recent, and the offer to restore a session
 * that was not closed cleanly (a crash).
 */
@Timeout(120)
class SessionManagerTest {
  @TempDir Path dir;

  private static void flow(RecordingStore store, String path) {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
    f.timings().requestStart(1);
    f.request(new RequestHead("GET", "http", "example.com", 80, path, "HTTP/1.1", Headers.EMPTY));
    store.add(f);
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("content-type", "text/plain")));
    f.responseBody().append(ByteBuffer.wrap(("body of " + path).getBytes()));
    f.timings().responseEnd(2);
    f.complete();
    store.completed(f);
  }

  @Test
  void untitledSessionsSaveAsOpenImportExportAndRecent() throws Exception {
    Path conf = dir.resolve("conf");
    RecordingStore store = new RecordingStore();
    List<Session> switched = new ArrayList<>();
    try (SessionManager m = new SessionManager(conf, store, dir)) {
      m.addListener(switched::add);
      Session first = m.start(null);
      assertThat(m.untitled(first)).isTrue();
      assertThat(first.file().getParent()).isEqualTo(conf.resolve("sessions").toAbsolutePath());
      flow(store, "/a");
      flow(store, "/b");
      first.flush();
      assertThat(first.count()).as("autosaved as it goes").isEqualTo(2);

      Path saved = dir.resolve("work.loupe");
      Session named = m.saveAs(saved);
      assertThat(named.file()).isEqualTo(saved.toAbsolutePath());
      assertThat(named.count()).isEqualTo(2);
      assertThat(m.untitled(named)).isFalse();
      flow(store, "/c");
      named.flush();
      assertThat(named.count()).as("recording goes on into the saved file").isEqualTo(3);

      Path har = dir.resolve("work.har");
      assertThat(m.exportHar(har, Filter.ALL)).isEqualTo(3);

      Session fresh = m.newSession();
      assertThat(fresh.count()).isZero();
      assertThat(store.size()).as("the table starts empty").isZero();
      ImportReport r = m.importHar(har);
      assertThat(r.imported()).isEqualTo(3);
      assertThat(fresh.count()).isEqualTo(3);

      ImportReport opened = m.open(har); // a HAR opens as a new session
      assertThat(opened.imported()).isEqualTo(3);
      assertThat(m.untitled(m.current())).isTrue();

      m.open(saved);
      assertThat(m.current().file()).isEqualTo(saved.toAbsolutePath());
      assertThat(m.current().count()).isEqualTo(3);
      assertThat(m.recent()).first().isEqualTo(saved.toAbsolutePath());
      assertThat(m.recent()).as("untitled sessions with flows are kept and listed").hasSizeGreaterThanOrEqualTo(2);
      assertThat(switched).hasSize(5);
    }
    try (SessionManager again = new SessionManager(conf, new RecordingStore(), dir)) {
      again.start(null);
      assertThat(again.restorable()).as("closed cleanly: nothing to restore").isNull();
    }
  }

  @Test
  void aSessionNotClosedCleanlyIsOfferedBackWithItsFlows() throws Exception {
    Path conf = dir.resolve("conf");
    RecordingStore store = new RecordingStore();
    SessionManager crashed = new SessionManager(conf, store, dir);
    Session s = crashed.start(null);
    for (int i = 0; i < 10; i++) {
      flow(store, "/" + i);
    }
    s.flush();
    Path file = s.file();
    // no close: the process "dies" here; a copy of the files stands for what the disk holds
    Path copyDir = dir.resolve("after-crash");
    Files.createDirectories(copyDir.resolve("sessions"));
    for (Path p : Files.list(conf.resolve("sessions")).toList()) {
      Files.copy(p, copyDir.resolve("sessions").resolve(p.getFileName()));
    }
    crashed.close();
    // the state names the crashed session by its path: point it at the copy
    Path copied = copyDir.resolve("sessions").resolve(file.getFileName());
    Files.write(copyDir.resolve("sessions").resolve("state"), List.of(copied.toString(), "open"));

    RecordingStore next = new RecordingStore();
    try (SessionManager m = new SessionManager(copyDir, next, dir)) {
      m.start(null);
      assertThat(m.restorable()).isEqualTo(copied);
      m.open(m.restorable());
      m.declineRestore();
      assertThat(m.current().count()).isEqualTo(10);
      assertThat(next.nextId()).as("new flows continue after the restored ones").isEqualTo(11);
    }
  }

  @Test
  void aFileThatIsNotASessionIsRefusedAndTheCurrentOneStays() throws Exception {
    RecordingStore store = new RecordingStore();
    try (SessionManager m = new SessionManager(dir.resolve("conf"), store, dir)) {
      Session current = m.start(null);
      Path bad = Files.writeString(dir.resolve("bad.loupe"), "not a database at all, just some text of ".repeat(4));
      assertThatThrownBy(() -> m.open(bad)).isInstanceOf(SessionException.class).hasMessageContaining("not a Loupe session");
      assertThat(m.current()).isSameAs(current);
      flow(store, "/still-recorded");
      current.flush();
      assertThat(current.count()).isEqualTo(1);
    }
  }
}
