package dev.loupe.app.sysproxy;

import dev.loupe.app.CliRun;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.app.Main;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two command-line options, in-process, on paths that never run a settings tool (the real
 * switching runs in GsettingsSystemProxyTest, isolated from this machine's desktop).
 */
@Timeout(60)
class SystemProxyCommandLineTest {
  @TempDir Path tmp;

  private static CliRun run(String... args) {
    return CliRun.of(args);
  }

  @Test
  void restoreWithoutStateSaysNothingToRestoreAndExits0() throws Exception {
    CliRun r = run("--restore-system-proxy", "--confdir", tmp.toString());
    assertThat(r.code()).isZero();
    assertThat(r.out()).startsWith("Loupe: nothing to restore").contains(tmp.toString());
    try (Stream<Path> files = Files.list(tmp)) {
      assertThat(files).isEmpty(); // no CA, no state: it only looked
    }
  }

  @Test
  void aCorruptStateFileIsReportedAndExits1() throws Exception {
    Files.writeString(tmp.resolve("system-proxy.json"), "{not json");
    CliRun r = run("--restore-system-proxy", "--confdir", tmp.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).startsWith("loupe: cannot read " + tmp.resolve("system-proxy.json"));
    assertThat(tmp.resolve("system-proxy.json")).exists();
  }

  @Test
  void systemProxyIsForRegularModeOnly() {
    CliRun r = run("--headless", "--system-proxy", "--mode", "reverse:https://127.0.0.1:1", "--confdir", tmp.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).startsWith("loupe: --system-proxy is for regular mode");
  }

  @Test
  void helpListsBothOptions() {
    assertThat(run("--help").out()).contains("--system-proxy", "--restore-system-proxy");
  }
}
