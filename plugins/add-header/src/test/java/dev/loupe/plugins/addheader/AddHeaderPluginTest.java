package dev.loupe.plugins.addheader;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.plugin.Plugins;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.spi.Plugin;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The add-header plugin on a real proxy (JDK client through the explicit proxy to a real origin):
 * the header arrives at the origin on matching flows only, which take the full tier; the others stay
 * on the relay tier; bad options are refused with a reason and the plugin is switched off.
 */
@Timeout(120)
class AddHeaderPluginTest {
  static TestOrigin origin;

  @BeforeAll
  static void start() throws Exception {
    origin = TestOrigin.http();
  }

  @AfterAll
  static void stop() {
    origin.close();
  }

  private static int get(ProxyFixture p, String pathAndQuery) throws Exception {
    return p.client().send(HttpRequest.newBuilder(URI.create(origin.url() + pathAndQuery)).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void isFoundByServiceLoader() {
    assertThat(ServiceLoader.load(Plugin.class).stream().map(ServiceLoader.Provider::type))
        .contains(AddHeaderPlugin.class);
  }

  @Test
  void setsTheHeaderOnMatchingFlowsOnly() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      p.engine().plugins().add(new AddHeaderPlugin(), "test",
          Map.of("header", "X-Debug-Token: abc 123", "filter", "~u /status/ & ~q ~u wanted"));
      awaitConfigured(p.engine().plugins());
      assertThat(get(p, "/status/200?t=wanted")).isEqualTo(200);
      assertThat(origin.awaitSeen("t=wanted").headers().get("x-debug-token")).isEqualTo("abc 123");
      assertThat(p.awaitFlow("t=wanted").tier()).isEqualTo(FlowTier.FULL);
      assertThat(p.awaitFlow("t=wanted").modifiedBy()).contains("plugin \"add-header\"");

      assertThat(get(p, "/status/200?t=other")).isEqualTo(200);
      assertThat(origin.awaitSeen("t=other").headers().contains("x-debug-token")).isFalse();
      assertThat(p.awaitFlow("t=other").tier()).isEqualTo(FlowTier.RELAY);
    }
  }

  @Test
  void replacesAnExistingFieldOfThatName() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      p.engine().plugins().add(new AddHeaderPlugin(), "test", Map.of("header", "User-Agent: loupe-plugin"));
      awaitConfigured(p.engine().plugins());
      HttpRequest req = HttpRequest.newBuilder(URI.create(origin.url() + "/status/200?t=ua"))
          .header("User-Agent", "original").build();
      assertThat(p.client().send(req, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
      assertThat(origin.awaitSeen("t=ua").headers().getAll("user-agent")).containsExactly("loupe-plugin");
    }
  }

  @Test
  void withoutAHeaderItObservesOnly() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      Plugins.PluginHandle h = p.engine().plugins().add(new AddHeaderPlugin(), "test", Map.of());
      assertThat(get(p, "/status/200?t=plain")).isEqualTo(200);
      assertThat(p.awaitFlow("t=plain").tier()).isEqualTo(FlowTier.RELAY);
      assertThat(h.info().interceptFilter()).isNull();
      assertThat(h.info().lastError()).isNull();
    }
  }

  @Test
  void badOptionsAreRefusedWithAReason() throws Exception {
    try (ProxyFixture p = ProxyFixture.start()) {
      Plugins.PluginHandle noColon = p.engine().plugins().add(new AddHeaderPlugin(), "test",
          Map.of("header", "X-No-Colon"));
      Plugins.PluginHandle badFilter = p.engine().plugins().add(new AddHeaderPlugin(), "test",
          Map.of("header", "X-A: b", "filter", "~u ("));
      Plugins.PluginHandle badName = p.engine().plugins().add(new AddHeaderPlugin(), "test",
          Map.of("header", "X A: b"));
      awaitError(noColon);
      awaitError(badFilter);
      awaitError(badName);
      assertThat(noColon.info().lastError()).contains("expected \"Name: value\"");
      assertThat(badFilter.info().lastError()).contains("filter:");
      assertThat(badName.info().lastError()).contains("is not a valid header name");
      assertThat(noColon.info().enabled()).isFalse();
      assertThat(get(p, "/status/200?t=after-bad")).isEqualTo(200);
      assertThat(origin.awaitSeen("t=after-bad").headers().contains("x-a")).isFalse();
    }
  }

  /** configure runs on the plugin's thread; wait until the host has read the filter. */
  private static void awaitConfigured(Plugins plugins) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (plugins.list().stream().anyMatch(i -> i.interceptFilter() == null)) {
      assertThat(System.nanoTime()).as("configured in time").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static void awaitError(Plugins.PluginHandle h) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (h.info().lastError() == null) {
      assertThat(System.nanoTime()).as("error recorded in time").isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
