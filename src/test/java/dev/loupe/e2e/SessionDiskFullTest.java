package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.FlowsAssert;
import dev.loupe.testing.SmallDisk;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real headless Loupe recording its session onto a disk that fills up (a 3 MiB tmpfs): it says
 * why capture paused, keeps relaying (every later request is answered in full), and the file it
 * leaves opens with every flow it holds intact.
 */
@Timeout(300)
class SessionDiskFullTest {
  private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)\\b");

  @TempDir Path tmp;

  @Test
  void aFullDiskPausesCaptureWithANoticeAndTheProxyKeepsRelaying() throws Exception {
    try (SmallDisk disk = SmallDisk.mount(tmp.resolve("small"), 3 * 1024)) {
      Path file = disk.dir().resolve("full.loupe");
      int answered = 0;
      try (TestOrigin origin = TestOrigin.http();
          LoupeProcess loupe = LoupeProcess.start(List.of("-Xmx256m"), List.of("--headless", "--quiet", "--listen",
              "127.0.0.1:0", "--confdir", tmp.resolve("conf").toString(), "--session", file.toString()))) {
        int port = Integer.parseInt(loupe.awaitLine(LISTENING, Duration.ofSeconds(60)).group(1));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .proxy(ProxySelector.of(new InetSocketAddress("127.0.0.1", port))).build();
        boolean full = false;
        for (int i = 0; i < 3000 && !full; i++) {
          int size = 20_000 + i;
          HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/" + size + "?i=" + i))
              .build(), HttpResponse.BodyHandlers.ofByteArray());
          assertThat(r.body()).isEqualTo(TestData.bytes(size));
          answered++;
          // Loupe's own notice, printed just after the engine's log line that also says "is full"
          full = loupe.stderr().stream().anyMatch(l -> l.startsWith("Loupe: The disk holding"));
          if (i % 50 == 49) {
            Thread.sleep(300); // let the writer catch up, so the disk fills while we watch
          }
        }
        assertThat(full).as("the disk filled within 3000 requests of 20 KB").isTrue();
        assertThat(loupe.stderr()).anyMatch(l -> l.startsWith("Loupe: The disk holding " + file + " is full: capture is"
            + " paused (traffic is still relayed; the flows saved so far are safe)"));
        // the proxy keeps relaying
        for (int i = 0; i < 25; i++) {
          HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(origin.url() + "/bytes/4096?after=" + i))
              .build(), HttpResponse.BodyHandlers.ofByteArray());
          assertThat(r.statusCode()).isEqualTo(200);
          assertThat(r.body()).isEqualTo(TestData.bytes(4096));
        }
        loupe.terminate();
        loupe.awaitExit(Duration.ofSeconds(60));
      }
      // what was saved opens and is intact (read from a copy: the full disk has no room for SQLite's shared memory)
      Path copy = Files.createDirectories(tmp.resolve("copy"));
      for (String suffix : new String[] {"", "-wal", "-shm"}) {
        Path f = disk.dir().resolve("full.loupe" + suffix);
        if (Files.exists(f)) {
          Files.copy(f, copy.resolve("full.loupe" + suffix), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Map<String, Long> stored = new HashMap<>();
      List<String> incomplete = new ArrayList<>();
      try (Session s = Session.openReadOnly(copy.resolve("full.loupe"), tmp)) {
        s.flows(Filter.ALL, f -> {
          String url = f.request().url();
          assertThat(url).contains("/bytes/").doesNotContain("after=");
          if (f.state() != FlowState.COMPLETE) {
            // written while in flight, its ending was in the batch the full disk refused: it must
            // say so, not pass for a complete flow with an empty body
            assertThat(f.state()).as(url).isEqualTo(FlowState.FAILED);
            assertThat(f.error().message()).as(url).contains("still in flight when the session was last saved");
            incomplete.add(url);
            return;
          }
          int size = Integer.parseInt(url.replaceAll(".*/bytes/(\\d+).*", "$1"));
          assertThat(FlowsAssert.sha256(f.responseBody())).as(url).isEqualTo(TestData.sha256(size));
          stored.put(url, f.id());
        }, () -> false);
      }
      System.out.printf("disk full: %d requests answered before the notice, %d flows saved, %d saved in flight%n", answered,
          stored.size(), incomplete.size());
      assertThat(stored.size()).as("flows saved before the disk filled").isGreaterThan(20);
      // one request at a time: at most the one in flight at the last good batch was cut short
      assertThat(incomplete).as("flows saved while in flight and never ended").hasSizeLessThanOrEqualTo(1);
    }
  }
}
