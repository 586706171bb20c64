package dev.loupe.app.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** settings.json's "plugins" object, --set on top of it, and the switches written back. */
@Timeout(30)
class PluginConfigTest {
  @TempDir Path dir;

  @Test
  void readsOptionsAndSwitchesFromSettings() throws IOException {
    Files.writeString(dir.resolve("settings.json"), """
        {"listen": "127.0.0.1:9999",
         "plugins": {"add-header": {"header": "X-A: 1", "filter": "~d example"},
                     "flow-log": {"enabled": false, "path": "/tmp/x.jsonl", "max": 5, "headers": true}}}
        """);
    PluginConfig c = PluginSettings.read(dir);
    assertThat(c.optionsOf("add-header")).isEqualTo(Map.of("header", "X-A: 1", "filter", "~d example"));
    assertThat(c.optionsOf("flow-log")).isEqualTo(Map.of("path", "/tmp/x.jsonl", "max", "5", "headers", "true"));
    assertThat(c.enabledOf("flow-log")).isFalse();
    assertThat(c.enabledOf("add-header")).isTrue();
    assertThat(c.optionsOf("other")).isEmpty();
  }

  @Test
  void commandLineAssignmentsWin() throws IOException {
    Files.writeString(dir.resolve("settings.json"), "{\"plugins\": {\"p\": {\"a\": \"1\", \"enabled\": false}}}");
    PluginConfig c = PluginSettings.read(dir).withAssignments(List.of("p.a=2", "p.b=x=y", "p.enabled=true",
        "q.k="));
    assertThat(c.optionsOf("p")).isEqualTo(Map.of("a", "2", "b", "x=y"));
    assertThat(c.enabledOf("p")).isTrue();
    assertThat(c.optionsOf("q")).isEqualTo(Map.of("k", ""));
    assertThat(c.namedOnCommandLine()).containsExactlyInAnyOrder("p", "q");
    for (String bad : List.of("p", "p=1", ".a=1", "p.=1", "p.enabled=maybe")) {
      assertThatThrownBy(() -> PluginConfig.EMPTY.withAssignments(List.of(bad))).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void badSettingsSayWhere() throws IOException {
    Files.writeString(dir.resolve("settings.json"), "{\"plugins\": {\"p\": {\"o\": {\"nested\": 1}}}}");
    assertThatThrownBy(() -> PluginSettings.read(dir)).hasMessageContaining("plugins.p.o must be a string");
    Files.writeString(dir.resolve("settings.json"), "{\"plugins\": []}");
    assertThatThrownBy(() -> PluginSettings.read(dir)).hasMessageContaining("\"plugins\" must be an object");
    Files.writeString(dir.resolve("settings.json"), "{\"plugins\": ");
    assertThatThrownBy(() -> PluginSettings.read(dir)).hasMessageContaining("not valid JSON");
    Files.delete(dir.resolve("settings.json"));
    assertThat(PluginSettings.read(dir)).isEqualTo(PluginConfig.EMPTY);
  }

  @Test
  void writingASwitchKeepsTheRestOfTheFile() throws IOException {
    Files.writeString(dir.resolve("settings.json"),
        "{\"theme\": \"dark\", \"plugins\": {\"p\": {\"a\": \"1\"}}}");
    PluginSettings.writeEnabled(dir, "p", false);
    PluginSettings.writeEnabled(dir, "new", true);
    var root = new ObjectMapper().readTree(dir.resolve("settings.json").toFile());
    assertThat(root.get("theme").asText()).isEqualTo("dark");
    assertThat(root.get("plugins").get("p").get("a").asText()).isEqualTo("1");
    assertThat(root.get("plugins").get("p").get("enabled").asBoolean()).isFalse();
    assertThat(root.get("plugins").get("new").get("enabled").asBoolean()).isTrue();
    assertThat(PluginSettings.read(dir).enabledOf("p")).isFalse();
  }

  @Test
  void savingTheWindowsSettingsKeepsThePlugins() throws IOException {
    Files.writeString(dir.resolve("settings.json"), "{\"plugins\": {\"p\": {\"a\": \"1\", \"enabled\": false}}}");
    new dev.loupe.ui.settings.SettingsFile(dir).save(dev.loupe.ui.settings.Settings.DEFAULTS);
    PluginConfig c = PluginSettings.read(dir);
    assertThat(c.optionsOf("p")).isEqualTo(Map.of("a", "1"));
    assertThat(c.enabledOf("p")).isFalse();
    assertThat(new dev.loupe.ui.settings.SettingsFile(dir).load()).isEqualTo(dev.loupe.ui.settings.Settings.DEFAULTS);
  }
}
