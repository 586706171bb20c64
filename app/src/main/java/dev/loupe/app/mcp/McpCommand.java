package dev.loupe.app.mcp;

import dev.loupe.app.control.ControlChannel;
import dev.loupe.app.control.ControlEndpoint;
import dev.loupe.app.ctl.LocalLoupe;
import dev.loupe.ca.ConfigDirectory;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code loupe mcp}: Loupe's MCP server on stdio, for an agent that starts it as a subprocess. It
 * attaches to the Loupe whose control API the configuration directory names (a window or headless
 * run started with {@code --control}), or, when none runs there, starts a headless Loupe in this
 * process (with a control API on a free loopback port, so {@code loupe ctl} finds it too) that
 * stops when the agent closes stdin.
 *
 * <p>Standard output carries only MCP messages: everything else Loupe prints goes to standard
 * error. Exits 0 when stdin closes, 1 when no Loupe could be attached to or started.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
    description = {"Serve Loupe's MCP server on stdin/stdout (for coding agents).",
        "Attaches to the Loupe running with --control in the configuration directory, or starts a headless one"
            + " there (given LOUPE_OPTIONs after --) that stops when stdin closes."},
    footer = {"", "Example MCP client configuration:",
        "  {\"mcpServers\": {\"loupe\": {\"command\": \"java\", \"args\": [\"-jar\", \"/path/to/loupe.jar\", \"mcp\"]}}}"})
public final class McpCommand implements Callable<Integer> {
  /** How long a Loupe started here may take to bring up its control API. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  @Option(names = "--confdir", paramLabel = "DIR",
      description = "The configuration directory of the Loupe to attach to or start (default: the per-OS one).")
  Path confdir;

  @Option(names = "--mcp-read-only", description = "Offer only the tools that read.")
  boolean readOnly;

  @Option(names = "--mcp-no-redact", description = "Do not hide secrets (Authorization, cookies, API keys) in answers.")
  boolean noRedact;

  @Parameters(paramLabel = "LOUPE_OPTION", arity = "0..*",
      description = "Options for the headless Loupe started when none runs, after --"
          + " (e.g. -- --listen 127.0.0.1:9000 --insecure).")
  List<String> loupeOptions = new ArrayList<>();

  private final Function<String[], Integer> startLoupe;

  /** {@code startLoupe} runs {@code loupe ARGS} in this process (blocks while it runs; returns its exit code). */
  public McpCommand(Function<String[], Integer> startLoupe) {
    this.startLoupe = startLoupe;
  }

  @Override
  public Integer call() throws Exception {
    Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
    PrintStream protocol = System.out;
    System.setOut(System.err); // stdout is the MCP channel: nothing else may write to it
    ControlChannel channel;
    try {
      channel = LocalLoupe.find(dir);
      System.err.println("loupe mcp: attached to the Loupe at " + channel.describe());
    } catch (LocalLoupe.NotFound notFound) {
      System.err.println("loupe mcp: " + notFound.getMessage() + "; starting a headless Loupe");
      Optional<ControlChannel> own = startOwn(dir);
      if (own.isEmpty()) {
        return 1;
      }
      channel = own.get();
    }
    CountDownLatch closed = new CountDownLatch(1);
    InputStream in = new FilterInputStream(System.in) {
      @Override
      public int read() throws IOException {
        return eof(super.read());
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return eof(super.read(b, off, len));
      }

      private int eof(int n) {
        if (n < 0) {
          closed.countDown();
        }
        return n;
      }
    };
    LoupeMcp mcp = new LoupeMcp(channel, new McpOptions(readOnly, !noRedact), new McpCallLog(dir));
    McpSyncServer server = mcp.stdio(new StdioServerTransportProvider(mcp.mapper(), in, protocol));
    System.err.println("loupe mcp: serving MCP on stdio" + (readOnly ? " (read-only)" : "")
        + "; calls are logged in " + dir.resolve(McpCallLog.FILE_NAME));
    closed.await();
    server.closeGracefully();
    return 0;
  }

  /** Starts a headless Loupe in this process and waits for its control API; empty when it failed (said why). */
  private Optional<ControlChannel> startOwn(Path dir) throws InterruptedException {
    List<String> args = new ArrayList<>(List.of("--headless", "--quiet", "--control", "127.0.0.1:0",
        "--confdir", dir.toString()));
    args.addAll(loupeOptions);
    int[] exit = {-1};
    Thread loupe = new Thread(() -> exit[0] = startLoupe.apply(args.toArray(String[]::new)), "loupe-mcp-proxy");
    loupe.setDaemon(true);
    loupe.start();
    long pid = ProcessHandle.current().pid();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!loupe.isAlive()) {
        System.err.println("loupe mcp: the headless Loupe did not start (exit code " + exit[0] + "; see above)");
        return Optional.empty();
      }
      try {
        Optional<ControlEndpoint> e = ControlEndpoint.read(dir);
        if (e.isPresent() && e.get().pid() == pid) {
          return Optional.of(LocalLoupe.find(dir));
        }
      } catch (IOException | IllegalArgumentException | LocalLoupe.NotFound e) {
        // not written completely yet: try again
      }
      Thread.sleep(50);
    }
    System.err.println("loupe mcp: the headless Loupe did not bring up its control API within "
        + START_TIMEOUT.toSeconds() + " s");
    return Optional.empty();
  }
}
