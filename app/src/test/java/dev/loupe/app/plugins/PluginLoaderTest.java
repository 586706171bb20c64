package dev.loupe.app.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.api.plugin.Plugins.PluginInfo;
import dev.loupe.engine.internal.intercept.PluginHost;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading plugin jars (CONFDIR/plugins and --plugin), each in its own class loader; reloading a
 * rebuilt jar; options and switches from settings.json and --set; what is refused and why.
 */
@Timeout(120)
class PluginLoaderTest {
  static final String SERVICE = "dev.loupe.spi.Plugin";

  @TempDir Path confdir;
  @TempDir Path elsewhere;
  PluginHost host;
  ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
  PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
  PluginLoader loader;

  @BeforeEach
  void start() {
    host = new PluginHost(confdir.resolve("plugin-data"));
  }

  @AfterEach
  void stop() {
    if (loader != null) {
      loader.close();
    }
    host.close();
  }

  PluginLoader loader(List<String> set) {
    PluginOptions o = new PluginOptions();
    o.assignments = set;
    loader = PluginLoader.create(host, confdir, o, System.out, err);
    return loader;
  }

  static Path jar(Path at, String version) throws Exception {
    return TestPluginJar.build(at, Map.of("Stamp.java", TestPluginJar.headerPlugin("t", "Stamp", version)),
        Map.of(SERVICE, "t.Stamp"));
  }

  @Test
  void eachJarGetsItsOwnClassLoader() throws Exception {
    // The same class name in two jars: only separate class loaders can hold both.
    jar(confdir.resolve("plugins/one.jar"), "v-one");
    TestPluginJar.build(confdir.resolve("plugins/two.jar"),
        Map.of("Stamp.java", TestPluginJar.headerPlugin("t", "Stamp", "v-two").replace("\"stamp\"", "\"stamp2\"")),
        Map.of(SERVICE, "t.Stamp"));
    List<String> lines = loader(List.of()).loadAll(true, List.of(), List.of());
    assertThat(host.list()).extracting(PluginInfo::version).containsExactly("v-one", "v-two");
    assertThat(host.list()).extracting(PluginInfo::source).containsExactly(
        "jar:" + confdir.resolve("plugins/one.jar").toAbsolutePath(),
        "jar:" + confdir.resolve("plugins/two.jar").toAbsolutePath());
    assertThat(lines).containsExactly(
        "Plugin stamp v-one (jar:" + confdir.resolve("plugins/one.jar").toAbsolutePath()
            + "): hooks request; changes flows matching ~all",
        "Plugin stamp2 v-two (jar:" + confdir.resolve("plugins/two.jar").toAbsolutePath()
            + "): hooks request; changes flows matching ~all");
    assertThat(loader.canReload(host.list().get(0).id())).isTrue();
  }

  @Test
  void reloadReadsTheJarAgain() throws Exception {
    Path j = jar(elsewhere.resolve("stamp.jar"), "v1");
    loader(List.of()).loadAll(false, List.of(j), List.of());
    long id = host.list().get(0).id();
    jar(j, "v2"); // rebuilt in place
    assertThat(loader.reload(id)).isNull();
    assertThat(host.list()).singleElement().satisfies(i -> {
      assertThat(i.id()).isEqualTo(id);
      assertThat(i.version()).isEqualTo("v2");
    });
    Files.writeString(j, "not a jar");
    assertThat(loader.reload(id)).contains("still running the previous version");
    assertThat(host.list().get(0).version()).isEqualTo("v2");
    assertThat(host.list().get(0).lastError()).contains("reload failed");
  }

  @Test
  void optionsAndSwitchesComeFromSettingsAndSet() throws Exception {
    TestPluginJar.build(confdir.resolve("plugins/opts.jar"), Map.of("Opts.java", """
        package t;
        public class Opts implements dev.loupe.spi.Plugin {
          volatile String seen = "";
          public String name() { return "opts"; }
          public void configure(dev.loupe.spi.PluginContext c) { seen = new java.util.TreeMap<>(c.options()).toString(); }
          public String version() { return seen; }
        }
        """), Map.of(SERVICE, "t.Opts"));
    Files.writeString(confdir.resolve("settings.json"),
        "{\"plugins\": {\"opts\": {\"a\": \"from-settings\", \"b\": 2, \"enabled\": false}}}");
    loader(List.of("opts.b=from-set")).loadAll(true, List.of(), List.of());
    PluginInfo i = host.list().get(0);
    assertThat(i.version()).isEqualTo("{a=from-settings, b=from-set}");
    assertThat(i.enabled()).isFalse();
  }

  @Test
  void refusesWhatCannotWork() throws Exception {
    assertThatThrownBy(() -> loader(List.of("nobody.x=1")).loadAll(true, List.of(), List.of()))
        .hasMessage("--set: no plugin named 'nobody' is loaded");
    assertThatThrownBy(() -> loader(List.of()).loadAll(true, List.of(elsewhere.resolve("missing.jar")), List.of()))
        .hasMessageContaining("--plugin: no such file");
    Files.writeString(elsewhere.resolve("x.txt"), "");
    assertThatThrownBy(() -> loader(List.of()).loadAll(true, List.of(elsewhere.resolve("x.txt")), List.of()))
        .hasMessageContaining("expected a .jar or a .java file");
    assertThatThrownBy(() -> loader(List.of()).loadAll(true, List.of(), List.of(elsewhere.resolve("x.txt"))))
        .hasMessageContaining("--script: expected an existing .java file");
  }

  @Test
  void aBrokenJarIsReportedAndTheOthersLoad() throws Exception {
    TestPluginJar.build(confdir.resolve("plugins/empty.jar"), Map.of("E.java", "package t; public class E {}"),
        Map.of());
    Files.writeString(confdir.resolve("plugins/garbage.jar"), "zip? no");
    TestPluginJar.build(confdir.resolve("plugins/throws.jar"), Map.of("T.java", """
        package t;
        public class T implements dev.loupe.spi.Plugin { public T() { throw new IllegalStateException("ctor"); } }
        """), Map.of(SERVICE, "t.T"));
    jar(confdir.resolve("plugins/ok.jar"), "ok");
    loader(List.of()).loadAll(true, List.of(), List.of());
    assertThat(host.list()).extracting(PluginInfo::version).containsExactly("ok");
    String e = errBytes.toString(StandardCharsets.UTF_8);
    assertThat(e).contains("empty.jar not loaded: it registers no plugin")
        .contains("garbage.jar not loaded")
        .contains("throws.jar not loaded");
  }

  @Test
  void noPluginsSkipsTheDefaultPlacesButNotExplicitOnes() throws Exception {
    jar(confdir.resolve("plugins/default.jar"), "default");
    Path explicit = jar(elsewhere.resolve("explicit.jar"), "explicit");
    loader(List.of()).loadAll(false, List.of(explicit, explicit), List.of());
    assertThat(host.list()).extracting(PluginInfo::version).containsExactly("explicit");
  }

  @Test
  void theWindowsSwitchIsRemembered() throws Exception {
    jar(confdir.resolve("plugins/s.jar"), "s");
    loader(List.of()).loadAll(true, List.of(), List.of());
    long id = host.list().get(0).id();
    assertThat(loader.enabled(id, false).enabled()).isFalse();
    assertThat(Files.exists(confdir.resolve("settings.json"))).as("not remembered headless").isFalse();
    loader.rememberSwitches();
    loader.enabled(id, false);
    assertThat(PluginSettings.read(confdir).enabledOf("stamp")).isFalse();
    assertThat(loader.enabled(12345, true)).isNull();
  }
}
