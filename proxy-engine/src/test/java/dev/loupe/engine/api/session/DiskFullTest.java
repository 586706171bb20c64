package dev.loupe.engine.api.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.testing.SmallDisk;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session recorded on a real full disk (a 2 MiB tmpfs): writing fails, capture pauses with a
 * sentence saying why, nothing written before is lost (every flow in the file reads back with its
 * body byte for byte), flows arriving meanwhile are not recorded; once space is freed, resume
 * writes the waiting flows and capture is on again.
 */
@Timeout(120)
class DiskFullTest {
  @TempDir Path tmp;

  private static String sha256(byte[] b) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static RecordedFlow flow(RecordingStore store, Random r, Map<Long, String> bodies) throws Exception {
    RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
    f.timings().requestStart(System.nanoTime());
    f.request(new RequestHead("GET", "http", "h.test", 80, "/blob/" + f.id(), "HTTP/1.1", Headers.of("Accept", "*/*")));
    store.add(f);
    byte[] body = new byte[16 * 1024];
    r.nextBytes(body); // incompressible: fills the disk as it says
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "application/octet-stream")));
    f.responseBody().append(ByteBuffer.wrap(body));
    f.timings().responseEnd(System.nanoTime());
    f.complete();
    store.completed(f);
    bodies.put(f.id(), sha256(body));
    return f;
  }

  @Test
  void aFullDiskPausesCaptureKeepsWhatWasSavedAndResumesOnceThereIsRoom() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(tmp.resolve("small"), 2048)) {
      Path ballast = Files.write(disk.dir().resolve("ballast"), new byte[512 * 1024]);
      Path file = disk.dir().resolve("s.loupe");
      LinkedBlockingQueue<Optional<String>> problems = new LinkedBlockingQueue<>();
      RecordingStore store = new RecordingStore();
      Map<Long, String> bodies = new HashMap<>();
      Random r = new Random(1);
      try (Session s = Session.open(file, tmp)) {
        s.record(store, p -> problems.add(Optional.ofNullable(p)));
        Optional<String> problem = null;
        for (int i = 0; i < 400 && problem == null; i++) {
          flow(store, r, bodies);
          problem = problems.poll(i % 10 == 9 ? 400 : 0, TimeUnit.MILLISECONDS);
        }
        if (problem == null) {
          problem = problems.poll(10, TimeUnit.SECONDS);
        }
        assertThat(problem).as("writing failed within 400 flows of 16 KiB on a 2 MiB disk").isNotNull();
        assertThat(problem.orElseThrow()).contains("The disk holding " + file + " is full", "capture is paused",
            "traffic is still relayed", "the flows saved so far are safe");
        assertThat(s.problem()).isEqualTo(problem.get());
        assertThat(store.capturing()).isFalse();

        // while paused: new flows are not recorded (the proxy relays them; the store does not keep them)
        RecordedFlow unrecorded = flow(store, r, new HashMap<>());
        assertThat(store.get(unrecorded.id())).isNull();

        // what the file holds is intact: every flow reads back with its body byte for byte
        long saved = s.count();
        assertThat(saved).isPositive();
        Map<Long, String> stored = new HashMap<>();
        s.flows(Filter.ALL, f -> stored.put(f.id(), sha256(f.responseBody().bytes())), () -> false);
        assertThat(stored).hasSize((int) saved);
        stored.forEach((id, sha) -> assertThat(sha).as("#" + id).isEqualTo(bodies.get(id)));

        // room again: resume writes what waited, capture is on
        Files.delete(ballast);
        assertThat(s.resume()).isTrue();
        assertThat(problems.poll(10, TimeUnit.SECONDS)).isEqualTo(Optional.empty());
        assertThat(s.problem()).isNull();
        assertThat(store.capturing()).isTrue();
        RecordedFlow after = flow(store, r, bodies);
        s.flush();
        assertThat(s.load(after.id())).isNotNull();
        assertThat(s.count()).isGreaterThan(saved);
      }
      try (Session again = Session.openReadOnly(file, tmp)) {
        Map<Long, String> stored = new HashMap<>();
        again.flows(Filter.ALL, f -> stored.put(f.id(), sha256(f.responseBody().bytes())), () -> false);
        stored.forEach((id, sha) -> assertThat(sha).as("#" + id).isEqualTo(bodies.get(id)));
        assertThat(stored).hasSizeGreaterThan(1);
      }
    }
  }
}
