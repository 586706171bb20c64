package dev.loupe.app.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** How browsers are found and how a terminal is started, per OS, without starting anything. */
@Timeout(30)
class LaunchCommandsTest {
  @TempDir Path tmp;

  @Test
  void linuxBrowsersAreFoundOnThePathOnceEach() {
    Set<Path> present = Set.of(Path.of("/usr/bin/chromium"), Path.of("/opt/bin/google-chrome-stable"),
        Path.of("/usr/bin/firefox"), Path.of("/usr/bin/firefox-esr"), Path.of("/usr/bin/brave-browser"));
    List<Browser> found = Browsers.find("Linux", Map.of("PATH", "/usr/bin:/opt/bin"), present::contains);
    assertThat(found).extracting(Browser::id).containsExactly("chromium", "chrome", "brave", "firefox");
    assertThat(found.get(1).executable()).isEqualTo(Path.of("/opt/bin/google-chrome-stable"));
    assertThat(found.get(3).family()).isEqualTo(Browser.Family.FIREFOX);
    assertThat(Browsers.pick(found, "chromium").name()).isEqualTo("Chromium");
    assertThat(Browsers.pick(found, "FIREFOX").id()).isEqualTo("firefox");
    assertThat(Browsers.pick(found, "edge")).isNull();
  }

  @Test
  void macAndWindowsBrowsersAreFoundInTheirFolders() {
    List<Browser> mac = Browsers.find("Mac OS X", Map.of("HOME", "/Users/ada"),
        p -> p.equals(Path.of("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"))
            || p.equals(Path.of("/Users/ada/Applications/Firefox.app/Contents/MacOS/firefox")));
    assertThat(mac).extracting(Browser::name).containsExactly("Google Chrome", "Firefox");
    List<Browser> win = Browsers.find("Windows 11", Map.of("ProgramFiles", "C:\\Program Files"),
        p -> p.toString().endsWith("msedge.exe"));
    assertThat(win).extracting(Browser::id).containsExactly("edge");
  }

  @Test
  void aTerminalRunsTheUsersShellWithItsStartupFilesThenTheSetup() throws IOException {
    TerminalLauncher.Environment env = new TerminalLauncher.Environment("Linux",
        Map.of("PATH", "/usr/bin", "SHELL", "/bin/bash", "TERMINAL", "xterm"),
        p -> p.equals(Path.of("/usr/bin/xterm")) || p.equals(Path.of("/usr/bin/bash")));
    List<String> cmd = TerminalLauncher.command(env, tmp, shell -> "export LOUPE_TEST=" + shell + "\n");
    assertThat(cmd.subList(0, 4)).containsExactly("/usr/bin/xterm", "-e", "/usr/bin/bash", "--rcfile");
    String rc = Files.readString(Path.of(cmd.get(4)));
    assertThat(rc).startsWith("[ -f \"$HOME/.bashrc\" ] && . \"$HOME/.bashrc\"\n").contains("export LOUPE_TEST=BASH");

    TerminalLauncher.Environment gnomeFish = new TerminalLauncher.Environment("Linux",
        Map.of("PATH", "/usr/bin", "SHELL", "/usr/bin/fish"), p -> p.equals(Path.of("/usr/bin/gnome-terminal")));
    List<String> fish = TerminalLauncher.command(gnomeFish, tmp, shell -> "set -gx LOUPE_TEST " + shell + "\n");
    assertThat(fish.subList(0, 4)).containsExactly("/usr/bin/gnome-terminal", "--", "/usr/bin/fish", "-i");
    assertThat(fish.get(5)).startsWith("source '").endsWith("loupe.fish'");

    List<String> win = TerminalLauncher.command(new TerminalLauncher.Environment("Windows 11", Map.of(), p -> false),
        tmp, shell -> "$env:LOUPE_TEST = '" + shell + "'\n");
    assertThat(win).startsWith("cmd", "/c", "start", "Loupe", "powershell", "-NoExit");
    assertThat(Files.readString(tmp.resolve("loupe.ps1"))).contains("$env:LOUPE_TEST = 'PWSH'");

    assertThatThrownBy(() -> TerminalLauncher.command(new TerminalLauncher.Environment("Linux",
        Map.of("PATH", "/nowhere"), p -> false), tmp, shell -> "")).hasMessageContaining("no terminal found");
  }

  @Test
  void setupQuotesValuesForEachShell() {
    assertThat(TerminalSetup.assignment(TerminalSetup.Shell.BASH, "X", "it's")).isEqualTo("export X='it'\\''s'");
    assertThat(TerminalSetup.assignment(TerminalSetup.Shell.FISH, "X", "a\\b'c")).isEqualTo("set -gx X 'a\\\\b\\'c'");
    assertThat(TerminalSetup.assignment(TerminalSetup.Shell.PWSH, "X", "it's")).isEqualTo("$env:X = 'it''s'");
  }
}
