package dev.loupe.installer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** loupe(1) from the real command line: every option is on the page, and groff renders it cleanly. */
@Timeout(60)
class ManPageTest {
  @Test
  void everyOptionOfEveryCommandIsOnThePage() throws Exception {
    CommandSpec spec = ManPage.loupeSpec();
    String page = ManPage.render(spec, LocalDate.of(2026, 12, 2));
    assertThat(page).startsWith(".\\\"").contains(".TH LOUPE 1 \"2026-12-02\"");
    int options = 0;
    for (CommandSpec s : allCommands(spec)) {
      for (OptionSpec o : s.options()) {
        for (String name : o.names()) {
          assertThat(page).as(s.qualifiedName() + " " + name).contains(ManPage.text(name));
          options++;
        }
      }
    }
    assertThat(options).isGreaterThan(30); // the root command alone has more: the model was read, not empty
    assertThat(page).contains(".SS \"loupe ca export\"", ".SS \"loupe ca path\"")
        .contains("127.0.0.1:8080") // --listen's default, interpolated
        .doesNotContain("${DEFAULT-VALUE}")
        .contains("%APPDATA%\\eLoupe") // picocli's %% unescaped, the backslash escaped for troff
        .doesNotContain("java \\-jar app/target/loupe.jar"); // examples use the installed command
  }

  @Test
  void groffRendersItWithoutWarnings(@TempDir Path dir) throws Exception {
    Path page = dir.resolve("loupe.1");
    Files.writeString(page, ManPage.render(ManPage.loupeSpec(), LocalDate.of(2026, 12, 2)));
    Path out = dir.resolve("out.txt");
    Process p = new ProcessBuilder("groff", "-man", "-Tutf8", "-ww", page.toString())
        .redirectOutput(out.toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(Files.readString(dir.resolve("err.txt"))).isEmpty();
    String text = Files.readString(out, StandardCharsets.UTF_8).replaceAll(".\b", ""); // drop overstrike
    assertThat(text).contains("--listen HOST:PORT", "--headless", "loupe ca export", "--har FILE",
        "loupe --headless --har session.har");
  }

  private static java.util.List<CommandSpec> allCommands(CommandSpec spec) {
    java.util.List<CommandSpec> out = new java.util.ArrayList<>(java.util.List.of(spec));
    for (CommandLine sub : spec.subcommands().values()) {
      out.addAll(allCommands(sub.getCommandSpec()));
    }
    return out;
  }
}
