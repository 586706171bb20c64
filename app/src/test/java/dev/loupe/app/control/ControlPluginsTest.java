package dev.loupe.app.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loupe.app.plugins.PluginLoader;
import dev.loupe.app.plugins.PluginOptions;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Replayer;
import dev.loupe.engine.internal.record.RecordingStore;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code /plugins} over real HTTP on a real {@link ControlServer}, with plugins loaded by the real
 * loader from a script in CONFDIR/scripts: listed, switched off and on, reloaded (a failing reload
 * is a 409 and the old version runs on), all behind the token.
 */
@Timeout(120)
class ControlPluginsTest {
  @TempDir Path confdir;
  InterceptService intercept;
  PluginLoader loader;
  ControlServer server;
  ControlClient api;

  static final String SCRIPT = """
      public class Counter implements dev.loupe.spi.Plugin {
        public String name() { return "counter"; }
        public String version() { return "VERSION"; }
        public String interceptFilter() { return "~u count"; }
        public java.util.concurrent.CompletionStage<?> request(dev.loupe.spi.RequestHook h) { return null; }
      }
      """;

  @BeforeEach
  void start() throws Exception {
    Files.createDirectories(confdir.resolve("scripts"));
    Files.writeString(confdir.resolve("scripts/Counter.java"), SCRIPT.replace("VERSION", "1"));
    intercept = InterceptService.create(confdir.resolve("plugin-data"));
    PluginOptions options = new PluginOptions();
    new CommandLine(options).parseArgs("--plugin-timeout", "2.5");
    loader = PluginLoader.create(intercept.plugins(), confdir, options, System.out, System.err);
    loader.loadAll(true, List.of(), List.of());
    Replayer none = (request, protocol, replayOf) -> {
      throw new UnsupportedOperationException("no proxy in this test");
    };
    String token = ControlToken.generate();
    server = ControlServer.start(new InetSocketAddress("127.0.0.1", 0), token,
        new ControlApi(new RecordingStore(), intercept, none, () -> "127.0.0.1:1", new ControlApi.About(null, null), loader));
    api = new ControlClient("127.0.0.1:" + server.address().getPort(), token);
  }

  @AfterEach
  void stop() {
    server.close();
    intercept.close();
    loader.close();
  }

  @Test
  void listsSwitchesAndReloadsPlugins() throws Exception {
    assertThat(api.withToken("wrong").get("/plugins").status()).isEqualTo(401);
    assertThat(api.withToken("wrong").post("/plugins/1", "{\"enabled\": false}").status()).isEqualTo(401);

    JsonNode all = api.get("/plugins").json();
    assertThat(all.get("hookTimeoutMs").asLong()).isEqualTo(2500);
    assertThat(all.get("plugins")).hasSize(1);
    JsonNode p = all.get("plugins").get(0);
    long id = p.get("id").asLong();
    assertThat(p.get("name").asText()).isEqualTo("counter");
    assertThat(p.get("version").asText()).isEqualTo("1");
    assertThat(p.get("source").asText()).isEqualTo("script:" + confdir.resolve("scripts/Counter.java"));
    assertThat(p.get("hooks").toString()).isEqualTo("[\"request\"]");
    assertThat(p.get("enabled").asBoolean()).isTrue();
    assertThat(p.get("interceptFilter").asText()).isEqualTo("~u count");
    assertThat(p.get("lastError").isNull()).isTrue();
    assertThat(p.get("errors").asLong()).isZero();
    assertThat(p.get("reloadable").asBoolean()).isTrue();
    assertThat(api.get("/").json().get("plugins").asInt()).isEqualTo(1);

    ControlClient.Reply off = api.post("/plugins/" + id, "{\"enabled\": false}");
    assertThat(off.status()).isEqualTo(200);
    assertThat(off.json().get("enabled").asBoolean()).isFalse();
    assertThat(intercept.plugins().get(id).info().enabled()).isFalse();
    assertThat(api.get("/plugins/" + id).json().get("enabled").asBoolean()).isFalse();
    assertThat(api.post("/plugins/" + id, "{\"enabled\": true}").json().get("enabled").asBoolean()).isTrue();
    assertThat(Files.exists(confdir.resolve("settings.json"))).as("headless: not remembered").isFalse();

    Files.writeString(confdir.resolve("scripts/Counter.java"), SCRIPT.replace("VERSION", "2"));
    ControlClient.Reply reloaded = api.post("/plugins/" + id + "/reload", null);
    assertThat(reloaded.status()).isEqualTo(200);
    assertThat(reloaded.json().get("version").asText()).isEqualTo("2");

    Files.writeString(confdir.resolve("scripts/Counter.java"), "broken");
    ControlClient.Reply failed = api.post("/plugins/" + id + "/reload", null);
    assertThat(failed.status()).isEqualTo(409);
    assertThat(failed.json().get("error").asText()).contains("Counter.java:1:")
        .contains("still running the previous version");
    assertThat(api.get("/plugins/" + id).json().get("version").asText()).isEqualTo("2");
  }

  @Test
  void badRequestsAreJsonErrors() {
    long id = api.get("/plugins").json().get("plugins").get(0).get("id").asLong();
    assertThat(api.get("/plugins/999999").status()).isEqualTo(404);
    assertThat(api.get("/plugins/abc").status()).isEqualTo(404);
    assertThat(api.post("/plugins/999999", "{\"enabled\": false}").status()).isEqualTo(404);
    assertThat(api.post("/plugins/999999/reload", null).status()).isEqualTo(404);
    assertThat(api.get("/plugins/" + id + "/nope").status()).isEqualTo(404);
    for (String bad : List.of("{}", "{\"enabled\": \"no\"}", "{\"enabled\": false, \"x\": 1}", "[]")) {
      ControlClient.Reply r = api.post("/plugins/" + id, bad);
      assertThat(r.status()).as(bad).isEqualTo(400);
    }
    assertThat(api.post("/plugins/" + id, "{").status()).isEqualTo(400);
    ControlClient.Reply r = api.delete("/plugins/" + id);
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.raw().headers().firstValue("Allow")).hasValue("GET, POST");
    assertThat(api.put("/plugins", "[]").status()).isEqualTo(405);
    assertThat(api.get("/plugins/" + id + "/reload").status()).isEqualTo(405);
    assertThat(intercept.plugins().get(id).info().enabled()).as("nothing changed").isTrue();
  }
}
