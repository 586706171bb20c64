package dev.loupe.ca.trust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The real runner, on real processes. */
@Timeout(60)
class ProcessCommandRunnerTest {
  private final ProcessCommandRunner runner = new ProcessCommandRunner(Duration.ofSeconds(20));

  @Test
  void capturesBothOutputsAndTheExitStatus() throws IOException {
    CommandResult result = runner.run(List.of("sh", "-c", "echo out; echo err >&2; exit 3"));

    assertThat(result.exitCode()).isEqualTo(3);
    assertThat(result.stdout()).isEqualTo("out\n");
    assertThat(result.stderr()).isEqualTo("err\n");
    assertThat(result.output()).isEqualTo("err\nout");
    assertThat(result.describeFailure()).isEqualTo("sh -c echo out; echo err >&2; exit 3 exited with 3:\nerr\nout");
  }

  @Test
  void standardInputIsClosedSoPromptsSeeEndOfFile() throws IOException {
    CommandResult result = runner.run(List.of("sh", "-c", "read answer; echo \"read:$?\""));
    assertThat(result.stdout()).isEqualTo("read:1\n");
  }

  @Test
  void killsCommandsThatOverrunTheTimeout() {
    ProcessCommandRunner impatient = new ProcessCommandRunner(Duration.ofMillis(300));
    long start = System.nanoTime();
    assertThatThrownBy(() -> impatient.run(List.of("sleep", "30")))
        .isInstanceOf(IOException.class).hasMessageContaining("did not finish");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void findsProgramsOnThePathAndInSbin() {
    assertThat(runner.isAvailable("sh")).isTrue();
    assertThat(runner.isAvailable("certutil")).isTrue();
    assertThat(runner.isAvailable("update-ca-certificates")).as("in /usr/sbin").isTrue();
    assertThat(runner.isAvailable("no-such-tool-loupe")).isFalse();
    assertThatThrownBy(() -> runner.run(List.of("no-such-tool-loupe"))).isInstanceOf(IOException.class);
  }
}
