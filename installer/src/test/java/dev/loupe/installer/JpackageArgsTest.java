package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The jpackage command lines of every platform. Linux's are also run by installer/build.sh here; macOS's
 * and Windows's only run on their own OS (the CI workflow), so their shape is pinned down here.
 */
@Timeout(30)
class JpackageArgsTest {
  private static JpackageArgs args(Platform p) {
    Path w = Path.of("/w");
    return new JpackageArgs(p, "0.1.0", w.resolve("input"), "loupe-app-0.1.0.jar", w.resolve("runtime"),
        w.resolve("icons"), List.of("--add-exports=javafx.base/com.sun.javafx.event=ALL-UNNAMED", "-Xss1m"),
        List.of(w.resolve("har.properties"), w.resolve("loupe-session.properties")),
        p.os() == Platform.Os.LINUX ? w.resolve("resources") : null, w.resolve("out"));
  }

  /** The value following {@code option}, failing if the option is absent or repeated. */
  private static String value(List<String> a, String option) {
    assertThat(a.stream().filter(option::equals).count()).as(option).isEqualTo(1);
    return a.get(a.indexOf(option) + 1);
  }

  private static List<String> values(List<String> a, String option) {
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < a.size() - 1; i++) {
      if (a.get(i).equals(option)) {
        out.add(a.get(i + 1));
      }
    }
    return out;
  }

  @Test
  void appImageIsTheSameApplicationOnEveryPlatform() {
    for (Platform p : Platform.values()) {
      List<String> a = args(p).appImage();
      assertThat(value(a, "--type")).isEqualTo("app-image");
      assertThat(value(a, "--name")).isEqualTo("Loupe");
      assertThat(value(a, "--main-class")).isEqualTo("dev.loupe.app.Main");
      assertThat(value(a, "--main-jar")).isEqualTo("loupe-app-0.1.0.jar");
      assertThat(value(a, "--runtime-image")).isEqualTo(Path.of("/w/runtime").toString());
      assertThat(value(a, "--app-version")).isEqualTo("0.1.0");
      assertThat(values(a, "--java-options"))
          .containsExactly("--add-exports=javafx.base/com.sun.javafx.event=ALL-UNNAMED", "-Xss1m");
      String icon = value(a, "--icon");
      switch (p.os()) {
        case LINUX -> assertThat(icon).endsWith("loupe-256.png");
        case MAC -> assertThat(icon).endsWith("loupe.icns");
        case WINDOWS -> assertThat(icon).endsWith("loupe.ico");
      }
      assertThat(a).noneMatch(s -> s.startsWith("--file-associations")); // on the packages, not the image
    }
  }

  @Test
  void macImageAndDmgCarryTheBundleIdentifier() {
    for (Platform p : List.of(Platform.MAC_X64, Platform.MAC_AARCH64)) {
      JpackageArgs j = args(p);
      assertThat(j.appImageDir()).isEqualTo(Path.of("/w/out/Loupe.app"));
      List<String> dmg = j.installer("dmg", j.appImageDir());
      assertThat(value(dmg, "--type")).isEqualTo("dmg");
      assertThat(value(dmg, "--app-image")).isEqualTo(Path.of("/w/out/Loupe.app").toString());
      assertThat(value(dmg, "--mac-package-identifier")).isEqualTo("dev.loupe.Loupe");
      assertThat(value(dmg, "--mac-package-name")).isEqualTo("Loupe");
      assertThat(values(dmg, "--file-associations")).hasSize(2);
      assertThat(dmg).noneMatch(s -> s.startsWith("--linux-") || s.startsWith("--win-"));
      assertThat(value(j.appImage(), "--mac-package-identifier")).isEqualTo("dev.loupe.Loupe");
      assertThatThrownBy(() -> j.installer("msi", j.appImageDir())).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void windowsMsiHasMenuShortcutDirectoryChooserAndAFixedUpgradeCode() {
    JpackageArgs j = args(Platform.WIN_X64);
    List<String> msi = j.installer("msi", j.appImageDir());
    assertThat(value(msi, "--type")).isEqualTo("msi");
    assertThat(msi).contains("--win-menu", "--win-shortcut", "--win-dir-chooser");
    assertThat(value(msi, "--win-menu-group")).isEqualTo("Loupe");
    assertThat(value(msi, "--win-upgrade-uuid")).isEqualTo("6f1c2f57-4c8e-4a9e-9d0b-7e3f0b1a4c21");
    assertThat(values(msi, "--file-associations")).containsExactly(Path.of("/w/har.properties").toString(),
        Path.of("/w/loupe-session.properties").toString());
    assertThat(msi).noneMatch(s -> s.startsWith("--linux-") || s.startsWith("--mac-"));
    // a console launcher next to the window's, for --headless and --help
    assertThat(value(j.appImage(), "--add-launcher")).isEqualTo("loupe-cli=" + Path.of("/w/loupe-cli.properties"));
    assertThat(j.windowsCliLauncher()).contains("win-console=true");
  }

  @Test
  void linuxPackagesInstallToOptLoupeWithMenuEntryAndGtk() {
    JpackageArgs j = args(Platform.LINUX_X64);
    for (String type : List.of("deb", "rpm")) {
      List<String> a = j.installer(type, j.appImageDir());
      assertThat(value(a, "--linux-package-name")).isEqualTo("loupe");
      assertThat(value(a, "--install-dir")).isEqualTo("/opt");
      assertThat(a).contains("--linux-shortcut");
      assertThat(value(a, "--resource-dir")).isEqualTo(Path.of("/w/resources").toString());
      assertThat(value(a, "--linux-package-deps")).contains(type.equals("deb") ? "libgtk-3-0" : "gtk3");
      assertThat(values(a, "--file-associations")).hasSize(2);
    }
    assertThatThrownBy(() -> j.installer("dmg", j.appImageDir())).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void versionsAndAssociations() {
    assertThat(JpackageArgs.numericVersion("0.1.0-SNAPSHOT")).isEqualTo("0.1.0");
    assertThat(JpackageArgs.numericVersion("2.3")).isEqualTo("2.3");
    assertThatThrownBy(() -> JpackageArgs.numericVersion("next")).isInstanceOf(IllegalArgumentException.class);
    assertThat(JpackageArgs.association("har", "application/x-har", "HTTP Archive"))
        .isEqualTo("extension=har\nmime-type=application/x-har\ndescription=HTTP Archive\n");
  }
}
