package dev.loupe.engine.internal.intercept;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.spi.Plugin;
import dev.loupe.spi.RequestHook;
import dev.loupe.spi.ResponseHook;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Plugins on the real proxy (HTTP/1.1 through the explicit proxy to a real origin): an intercepting
 * plugin edits the request and response of the flows its filter matches (full tier) and nothing
 * else; an observing plugin sees finished flows and leaves them on the relay tier; a throwing and a
 * hanging hook are recorded on the flow, which goes on unchanged.
 */
@Timeout(120)
class PluginHostTest {
  static TestOrigin origin;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
  }

  @AfterAll
  static void stop() {
    origin.close();
  }

  static final class AddHeader implements Plugin {
    @Override public String interceptFilter() { return "~u edit-me"; }

    @Override
    public CompletionStage<?> request(RequestHook hook) {
      hook.setHeader("X-Added-By-Plugin", "yes");
      return null;
    }

    @Override
    public CompletionStage<?> response(ResponseHook hook) {
      hook.setHeader("X-Response-Plugin", "seen").status(299);
      return null;
    }
  }

  static final class Observer implements Plugin {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final CountDownLatch done = new CountDownLatch(1);

    @Override
    public CompletionStage<?> response(ResponseHook hook) {
      seen.add(hook.flow().request().url() + " " + hook.status() + " editable=" + hook.editable());
      done.countDown();
      return null;
    }
  }

  static final class Throws implements Plugin {
    @Override public String interceptFilter() { return "~u broken"; }

    @Override
    public CompletionStage<?> request(RequestHook hook) {
      throw new IllegalStateException("boom");
    }
  }

  static final class Hangs implements Plugin {
    @Override public String interceptFilter() { return "~u hang"; }

    @Override
    public CompletionStage<?> request(RequestHook hook) {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    }
  }

  private static HttpResponse<String> get(ProxyFixture p, String pathAndQuery) throws Exception {
    return p.client().send(HttpRequest.newBuilder(URI.create(origin.url() + pathAndQuery)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void interceptingPluginEditsOnlyItsFlows() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      p.intercept().plugins().add(new AddHeader(), "test", Map.of());
      HttpResponse<String> edited = get(p, "/status/200?t=edit-me");
      assertThat(edited.statusCode()).isEqualTo(299);
      assertThat(edited.headers().firstValue("x-response-plugin")).hasValue("seen");
      assertThat(origin.awaitSeen("t=edit-me").headers().get("x-added-by-plugin")).isEqualTo("yes");
      Flow f = p.awaitFlow("t=edit-me");
      assertThat(f.tier()).isEqualTo(FlowTier.FULL);
      assertThat(f.modifiedBy()).contains("plugin \"AddHeader\"");

      HttpResponse<String> other = get(p, "/status/200?t=leave-me");
      assertThat(other.statusCode()).isEqualTo(200);
      assertThat(origin.awaitSeen("t=leave-me").headers().contains("x-added-by-plugin")).isFalse();
      assertThat(p.awaitFlow("t=leave-me").tier()).isEqualTo(FlowTier.RELAY);
    }
  }

  @Test
  void observingPluginKeepsTheRelayTier() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      Observer o = new Observer();
      p.intercept().plugins().add(o, "test", Map.of());
      assertThat(get(p, "/status/200?t=observed").statusCode()).isEqualTo(200);
      assertThat(o.done.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(o.seen).singleElement().asString().contains("t=observed").contains("200 editable=false");
      assertThat(p.awaitFlow("t=observed").tier()).isEqualTo(FlowTier.RELAY);
    }
  }

  @Test
  void throwingAndHangingHooksAreRecordedAndTheFlowGoesOn() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      p.intercept().plugins().hookTimeout(Duration.ofMillis(500));
      p.intercept().plugins().add(new Throws(), "test", Map.of());
      p.intercept().plugins().add(new Hangs(), "test", Map.of());
      assertThat(get(p, "/status/200?t=broken").statusCode()).isEqualTo(200);
      assertThat(p.awaitFlow("t=broken").notes()).singleElement().asString()
          .contains("plugin Throws, hook request: IllegalStateException (boom)");
      java.io.ByteArrayOutputStream har = new java.io.ByteArrayOutputStream();
      dev.loupe.engine.flow.har.HarWriter.write(List.of(p.awaitFlow("t=broken")), har);
      assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(har.toByteArray())
          .at("/log/entries/0/_notes").toString())
          .isEqualTo("[\"plugin Throws, hook request: IllegalStateException (boom)\"]");
      assertThat(get(p, "/status/200?t=hang").statusCode()).isEqualTo(200);
      assertThat(p.awaitFlow("t=hang").notes()).singleElement().asString()
          .contains("plugin Hangs, hook request: TimeoutException");
      // The hung plugin got a fresh thread: its next flow is not stuck behind the first.
      assertThat(get(p, "/status/200?t=hang-again").statusCode()).isEqualTo(200);
      assertThat(p.intercept().plugins().list()).extracting(i -> i.errors()).containsExactly(1L, 2L);
      assertThat(p.intercept().plugins().list().get(0).hooks()).containsExactly("request");
    }
  }

  /** Observes; its first response hook hangs, its load hangs too. */
  static final class HangingObserver implements Plugin {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final CountDownLatch done = new CountDownLatch(1);
    volatile boolean hungOnce;

    @Override
    public void load(dev.loupe.spi.PluginContext context) {
      sleep();
    }

    @Override
    public CompletionStage<?> response(ResponseHook hook) {
      if (!hungOnce) {
        hungOnce = true;
        sleep();
      }
      seen.add(hook.flow().request().url());
      return null;
    }

    @Override
    public void done() {
      done.countDown();
    }

    private static void sleep() {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  static final class BadOptions implements Plugin {
    @Override
    public void configure(dev.loupe.spi.PluginContext context) {
      throw new IllegalArgumentException("needs option x");
    }

    @Override public String interceptFilter() { return "~all"; }
  }

  @Test
  void hangingObservingAndLifecycleHooksAreBoundedToo() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      p.engine().plugins().hookTimeout(Duration.ofMillis(500));
      HangingObserver o = new HangingObserver();
      long t0 = System.nanoTime();
      var handle = p.engine().plugins().add(o, "test", Map.of());
      // add() waits for configure, which queued behind the hung load: bounded by the timeout.
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
      assertThat(handle.info().lastError()).contains("load: TimeoutException");
      assertThat(get(p, "/status/200?t=first").statusCode()).isEqualTo(200);
      assertThat(get(p, "/status/200?t=second").statusCode()).isEqualTo(200);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (o.seen.stream().noneMatch(u -> u.contains("t=second")) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(o.seen).anyMatch(u -> u.contains("t=second"));
      assertThat(p.awaitFlow("t=first").notes()).singleElement().asString()
          .contains("hook response: TimeoutException");
      assertThat(p.awaitFlow("t=first").tier()).isEqualTo(FlowTier.RELAY);
      p.intercept().plugins().close();
      assertThat(o.done.await(5, TimeUnit.SECONDS)).as("done() ran at close").isTrue();
    }
  }

  @Test
  void aPluginWhoseConfigureFailsIsSwitchedOff() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      var handle = p.engine().plugins().add(new BadOptions(), "test", Map.of());
      assertThat(handle.info().enabled()).isFalse();
      assertThat(handle.info().lastError()).isEqualTo("configure: IllegalArgumentException (needs option x)");
      assertThat(get(p, "/status/200?t=bad-options").statusCode()).isEqualTo(200);
      assertThat(p.awaitFlow("t=bad-options").tier()).isEqualTo(FlowTier.RELAY);
    }
  }
}
