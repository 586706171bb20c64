package dev.loupe.ca;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ConfigDirectoryTest {
  private static final Path HOME = Path.of("/home/ada");

  @Test
  void linuxUsesXdgConfigHome() {
    assertThat(ConfigDirectory.defaultDirectory("Linux", Map.of("XDG_CONFIG_HOME", "/xdg/conf"), HOME))
        .isEqualTo(Path.of("/xdg/conf/loupe"));
  }

  @Test
  void linuxFallsBackToDotConfig() {
    assertThat(ConfigDirectory.defaultDirectory("Linux", Map.of(), HOME))
        .isEqualTo(Path.of("/home/ada/.config/loupe"));
  }

  @Test
  void linuxIgnoresAnEmptyOrRelativeXdgConfigHome() {
    assertThat(ConfigDirectory.defaultDirectory("Linux", Map.of("XDG_CONFIG_HOME", ""), HOME))
        .isEqualTo(Path.of("/home/ada/.config/loupe"));
    assertThat(ConfigDirectory.defaultDirectory("Linux", Map.of("XDG_CONFIG_HOME", "conf"), HOME))
        .isEqualTo(Path.of("/home/ada/.config/loupe"));
  }

  @Test
  void otherUnixesFollowLinux() {
    assertThat(ConfigDirectory.defaultDirectory("FreeBSD", Map.of(), HOME))
        .isEqualTo(Path.of("/home/ada/.config/loupe"));
  }

  @Test
  void macUsesApplicationSupport() {
    Path mac = Path.of("/Users/ada");
    assertThat(ConfigDirectory.defaultDirectory("Mac OS X", Map.of("XDG_CONFIG_HOME", "/xdg"), mac))
        .isEqualTo(Path.of("/Users/ada/Library/Application Support/Loupe"));
  }

  @Test
  void windowsUsesAppData() {
    Path dir =
        ConfigDirectory.defaultDirectory(
            "Windows 11", Map.of("APPDATA", "C:\\Users\\ada\\AppData\\Roaming"), Path.of("C:\\Users\\ada"));
    // Tests run on Linux, where a Windows path is one opaque name: compare the parts.
    assertThat(dir.getFileName()).hasToString("Loupe");
    assertThat(dir.getParent()).hasToString("C:\\Users\\ada\\AppData\\Roaming");
  }

  @Test
  void windowsWithoutAppDataUsesRoamingUnderHome() {
    Path home = Path.of("/c/Users/ada");
    assertThat(ConfigDirectory.defaultDirectory("Windows 10", Map.of(), home))
        .isEqualTo(Path.of("/c/Users/ada/AppData/Roaming/Loupe"));
  }

  @Test
  void defaultDirectoryForThisMachineEndsInLoupe() {
    assertThat(ConfigDirectory.defaultDirectory().getFileName().toString()).isEqualToIgnoringCase("loupe");
    assertThat(ConfigDirectory.defaultDirectory().isAbsolute()).isTrue();
  }
}
