package dev.loupe.app.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The window's feed of MCP calls follows the call log, also across a rotation. */
@Timeout(30)
class McpActivityTest {
  @TempDir Path conf;

  @Test
  void newCallsReachTheListenerOldOnesDoNot() throws Exception {
    McpCallLog log = new McpCallLog(conf);
    log.record("http", "list_flows", "", null, Duration.ofMillis(3));
    List<String> seen = new CopyOnWriteArrayList<>();
    AutoCloseable sub = new McpActivity(conf).subscribe(seen::add);
    Thread.sleep(2 * McpActivity.POLL_MILLIS);
    log.record("stdio", "get_flow", "{\"flowId\":7}", "no flow 7", Duration.ofMillis(1));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 1);
    assertThat(seen.get(0)).endsWith(" stdio get_flow {\"flowId\":7} error: no flow 7 1ms");

    // rotated: the new file is read from its start
    Files.move(log.file(), conf.resolve("mcp.log.1"));
    log.record("http", "export_har", "", null, Duration.ofMillis(2));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
    assertThat(seen.get(1)).contains(" http export_har ok 2ms");
    sub.close();
    log.record("http", "proxy_status", "", null, Duration.ofMillis(2));
    Thread.sleep(3 * McpActivity.POLL_MILLIS);
    assertThat(seen).hasSize(2);
  }
}
