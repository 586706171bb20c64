package dev.loupe.app.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.plugin.Plugins.PluginInfo;
import dev.loupe.engine.internal.intercept.PluginHost;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Single-file scripts: compiled in memory, reloaded when edited (the watcher thread), a compile
 * error keeps the previous version with the error shown, a script that never compiled waits as a
 * placeholder, new files in CONFDIR/scripts are picked up, and a runtime without a compiler says so.
 */
@Timeout(120)
class ScriptPluginsTest {
  @TempDir Path confdir;
  PluginHost host;
  ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
  ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
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

  PluginLoader loader(ScriptCompiler compiler) {
    loader = new PluginLoader(host, confdir, PluginConfig.EMPTY, compiler,
        new PrintStream(outBytes, true, StandardCharsets.UTF_8), new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    return loader;
  }

  static String script(String version) {
    return "import dev.loupe.spi.*;\n"
        + "public class Tagger implements Plugin {\n"
        + "  public String version() { return \"" + version + "\"; }\n"
        + "  public String interceptFilter() { return \"~u tag\"; }\n"
        + "  public java.util.concurrent.CompletionStage<?> request(RequestHook h) { h.setHeader(\"X-Tag\", \""
        + version + "\"); return null; }\n"
        + "}\n";
  }

  static void await(String what, BooleanSupplier ok) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!ok.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(25);
    }
  }

  PluginInfo only() {
    List<PluginInfo> all = host.list();
    assertThat(all).hasSize(1);
    return all.get(0);
  }

  /** The version of the one plugin, or null while there is not exactly one (a swap in progress). */
  String version() {
    List<PluginInfo> all = host.list();
    return all.size() == 1 ? all.get(0).version() : null;
  }

  @Test
  void aScriptIsCompiledAndReloadedWhenItChanges() throws Exception {
    Path file = confdir.resolve("elsewhere/Tagger.java");
    Files.createDirectories(file.getParent());
    Files.writeString(file, script("one"));
    List<String> lines = loader(ScriptCompiler.forThisJvm()).loadAll(false, List.of(), List.of(file));
    assertThat(lines).containsExactly("Plugin Tagger one (script:" + file.toAbsolutePath()
        + "): hooks interceptFilter, request; changes flows matching ~u tag".replace("interceptFilter, ", ""));
    long id = only().id();
    loader.startWatching();

    Files.writeString(file, script("two"));
    await("the new version", () -> "two".equals(version()));
    assertThat(only().id()).isEqualTo(id);
    await("the reload on stdout",
        () -> outBytes.toString(StandardCharsets.UTF_8).contains("Reloaded Plugin Tagger two (script:"));

    // A compile error: the old version keeps running, the error is shown and said once on stderr.
    Files.writeString(file, script("three").replace("return null;", "return null"));
    await("the compile error", () -> only().lastError() != null);
    assertThat(only().version()).isEqualTo("two");
    assertThat(only().lastError()).startsWith("Tagger.java:5:").contains("';' expected")
        .endsWith("(still running the previous version)");
    // The error is set on the plugin before the line goes to stderr (on the watcher's thread).
    await("the compile error on stderr",
        () -> errBytes.toString(StandardCharsets.UTF_8).contains("';' expected"));
    assertThat(errBytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("';' expected")))
        .hasSize(1);

    Files.writeString(file, script("four"));
    await("the fixed version", () -> "four".equals(version()));
    assertThat(only().lastError()).isNull();
    assertThat(loader.canReload(id)).isTrue();
    assertThat(loader.reload(id)).isNull();
  }

  @Test
  void aScriptThatNeverCompiledWaitsAsAPlaceholder() throws Exception {
    Path dir = confdir.resolve("scripts");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("Tagger.java"), "public class Tagger implements dev.loupe.spi.Plugin { oops }");
    loader(ScriptCompiler.forThisJvm()).loadAll(true, List.of(), List.of());
    PluginInfo p = only();
    assertThat(p.name()).isEqualTo("Tagger");
    assertThat(p.enabled()).isFalse();
    assertThat(p.lastError()).startsWith("Tagger.java:1:");
    assertThat(errBytes.toString(StandardCharsets.UTF_8)).contains("script " + dir.resolve("Tagger.java")
        + " not loaded: Tagger.java:1:");
    loader.startWatching();
    Files.writeString(dir.resolve("Tagger.java"), script("fixed"));
    await("the fixed script", () -> "fixed".equals(version()));
    assertThat(only().enabled()).isTrue();
    assertThat(only().hooks()).containsExactly("request");

    // A new script dropped into CONFDIR/scripts while running.
    Files.writeString(dir.resolve("Second.java"), """
        public class Second implements dev.loupe.spi.Plugin, dev.loupe.spi.ContentView {
          public String name() { return "second"; }
          public boolean accepts(dev.loupe.engine.flow.Headers h, byte[] b) { return true; }
          public View render(dev.loupe.engine.flow.Headers h, byte[] b) { return new Text("x"); }
        }
        """);
    await("the new script", () -> host.list().size() == 2 && !host.contentViews().isEmpty());
    assertThat(host.contentViews()).extracting(v -> v.name()).containsExactly("second");
    // The line is printed after the plugin is in the host: wait for it too.
    await("the load line", () -> outBytes.toString(StandardCharsets.UTF_8).contains("Loaded Plugin second 0 (script:"));
  }

  @Test
  void withoutACompilerScriptsSaySo() throws Exception {
    Path file = confdir.resolve("Tagger.java");
    Files.writeString(file, script("x"));
    loader(new ScriptCompiler(null, "", getClass().getClassLoader())).loadAll(false, List.of(file), List.of());
    assertThat(only().lastError()).startsWith("scripts need a JDK: this Java runtime (").contains("jdk.compiler");
  }

  @Test
  void aScriptWithoutAPluginClassIsRefused() throws Exception {
    Path file = confdir.resolve("Nothing.java");
    Files.writeString(file, "public class Nothing { }");
    loader(ScriptCompiler.forThisJvm()).loadAll(false, List.of(file), List.of());
    assertThat(only().lastError()).isEqualTo(
        "Nothing.java: no class implements dev.loupe.spi.Plugin or dev.loupe.spi.ContentView");
  }
}
