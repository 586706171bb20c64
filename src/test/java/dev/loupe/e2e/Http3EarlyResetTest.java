package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import dev.loupe.testing.TestPki;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/3 client streams reset before Loupe has set them up: the client sends its request HEADERS
 * and cancels the stream at once (RESET_STREAM + STOP_SENDING, H3_REQUEST_CANCELLED), so both
 * often arrive in the packet that opens the stream. Loupe's first read of the stream happens while
 * Netty's {@code ChannelInitializer} is still installing the stream's handlers, and the reset it
 * reports used to land in that initializer, which logged it as "Failed to initialize a channel.
 * Closing" (5,477 times in the 2,000-repeat fault run). A cancelled request is ordinary client
 * behaviour: the stream must end without a warning, nothing may reach a pipeline's tail, a flow
 * that was begun ends as a client abort, and the connection goes on serving.
 */
@Timeout(180)
class Http3EarlyResetTest {
  private static final int STREAMS = 300;
  private static final int PER_CONNECTION = 100;

  @Test
  void aStreamResetBeforeItIsSetUpEndsQuietly() throws Exception {
    try (CapturedLogs netty = CapturedLogs.of("io.netty", Level.WARNING);
        CapturedLogs loupe = CapturedLogs.of("dev.loupe", Level.WARNING);
        TestOrigin origin = TestOrigin.https();
        ProxyFixture proxy = ProxyFixture.start(b -> b.ioThreads(1)
            .reverse(EngineConfig.Reverse.parse(origin.url()))
            .upstreamProtocol(EngineConfig.UpstreamProtocol.H1));
        Http3TestClient h3 = new Http3TestClient(proxy.engine().http3Address(), "127.0.0.1",
            TestPki.shared().loupeCa().certificate())) {
      String authority = "127.0.0.1:" + proxy.port();
      for (int batch = 0; batch < STREAMS / PER_CONNECTION; batch++) {
        // A connection per batch: each stays under Loupe's 256 concurrent streams whenever the
        // client learns that the cancelled ones are gone.
        try (Http3TestClient c = new Http3TestClient(proxy.engine().http3Address(), "127.0.0.1",
            TestPki.shared().loupeCa().certificate())) {
          List<CompletableFuture<Void>> gone = new ArrayList<>();
          for (int i = batch * PER_CONNECTION; i < (batch + 1) * PER_CONNECTION; i++) {
            // HEADERS, then the cancel at once (no body byte sent); every fourth after 1 KiB of body.
            gone.add(c.sendAndVanish("/sha256?t=early-" + i, authority, 1 << 20, i % 4 == 0 ? 1024 : 0));
          }
          CompletableFuture.allOf(gone.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        }
      }

      Http3TestClient.Response after = h3.send("GET", "/bytes/100?t=after", authority, 0).get(30, TimeUnit.SECONDS);
      assertThat(after.status()).isEqualTo(200);
      assertThat(after.length()).isEqualTo(100);
      await().atMost(Duration.ofSeconds(60)).until(() -> proxy.store().snapshot().stream()
          .noneMatch(f -> f.state() == FlowState.IN_FLIGHT));
      List<String> notAborted = new ArrayList<>();
      int flows = 0;
      for (Flow f : proxy.store().snapshot()) {
        if (f.request() != null && f.request().url().contains("t=early-")) {
          flows++;
          if (f.error() == null || f.error().kind() != FlowError.Kind.CLIENT_ABORT) {
            notAborted.add(f.request().url() + " ended " + f.state() + " " + f.error());
          }
        }
      }
      System.out.println("[h3-early-reset] " + STREAMS + " streams cancelled, " + flows
          + " became flows; Netty warnings " + netty.records().size());
      assertThat(netty.records()).as("Netty warnings (\"Failed to initialize a channel\", a pipeline's tail)")
          .isEmpty();
      assertThat(loupe.records()).as("Loupe warnings").isEmpty();
      assertThat(notAborted).as("flows of cancelled streams").isEmpty();
    }
  }
}
