package dev.loupe.app;

import dev.loupe.app.ctl.CtlCommand;
import dev.loupe.app.mcp.McpCommand;
import dev.loupe.app.plugins.PluginOptions;
import dev.loupe.app.sysproxy.SystemProxyService;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.ui.settings.Settings;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code loupe}: starts the proxy. The public command line — scripts depend on these names, so
 * extend them, never change them silently. This class holds the options and the order of the run;
 * the jobs are elsewhere: {@link ProxyOptions} and {@link ControlOptions} check the options (exit 2
 * with one line), {@link WindowRun} applies the window's renderer and saved settings and shows it,
 * {@link ProxyRun} starts the proxy, prints the start lines and runs headless until SIGINT or
 * SIGTERM, {@link SessionOptions} resolves {@code --session} and {@code FILE}.
 */
@Command(
    name = "loupe",
    mixinStandardHelpOptions = true,
    versionProvider = LoupeCommand.Version.class,
    sortOptions = false,
    description = {
        "Loupe, an HTTP(S) debugging proxy: shows every request and response passing through it.",
        "Point a client at it as its HTTP and HTTPS proxy, and trust Loupe's CA certificate (see 'loupe ca path').",
        "Opens the desktop window (live flow table, filter) unless --headless or there is no display."},
    subcommands = {CaCommand.class, BrowserCommand.class, EnvCommand.class, ConvertCommand.class,
        DiffCommand.class},
    footer = {"", "Examples:",
        "  java -jar app/target/loupe.jar",
        "  java -jar app/target/loupe.jar --headless",
        "  curl --proxy http://127.0.0.1:8080 --cacert \"$(java -jar app/target/loupe.jar ca path)\" https://example.com/",
        "  java -jar app/target/loupe.jar --headless --har session.har --ignore-hosts '(^|\\.)bank\\.example$'",
        "  java -jar app/target/loupe.jar --headless --session capture.loupe",
        "  java -jar app/target/loupe.jar capture.loupe",
        "  java -jar app/target/loupe.jar diff before.loupe after.har",
        "  java -jar app/target/loupe.jar browser firefox https://example.com/",
        "  eval \"$(java -jar app/target/loupe.jar env --shell bash)\""})
final class LoupeCommand implements Callable<Integer> {
  @Option(names = "--headless", description = "Run without a window: print a line per completed flow.")
  boolean headless;

  @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:8080",
      description = "Address to listen on (default: ${DEFAULT-VALUE}). Use port 0 for any free port.")
  String listen;

  @Option(names = "--allow-remote",
      description = "Allow a non-loopback --listen address (anyone who can reach it can use the proxy).")
  boolean allowRemote;

  @Option(names = "--socks", paramLabel = "HOST:PORT",
      description = "Also listen on this address for SOCKS5 only (SOCKS5 is always served on --listen too, told apart"
          + " by its first byte); loopback only unless --allow-remote. Port 0 picks a free port.")
  String socks;

  @Option(names = "--proxy-auth", paramLabel = "USER:PASS|off",
      description = "Require these credentials from every client (HTTP 407 / SOCKS5 username and password), or 'off'."
          + " Default: on a non-loopback address (--allow-remote), remote clients must use the credentials in"
          + " CONFDIR/remote-access.json (generated on first use); clients on this machine need none.")
  String proxyAuth;

  @Option(names = "--confdir", paramLabel = "DIR",
      description = "Where the CA and settings live (default: ~/.config/loupe on Linux, "
          + "~/Library/Application Support/Loupe on macOS, %%APPDATA%%\\Loupe on Windows).")
  Path confdir;

  @Option(names = "--trust-ca", paramLabel = "FILE",
      description = "Also trust the CA certificate(s) in this PEM or DER file when verifying origins. Repeatable.")
  List<Path> trustCa = new ArrayList<>();

  @Option(names = "--insecure", description = "Do not verify origin certificates at all (dangerous; shown in the output).")
  boolean insecure;

  @Option(names = "--ignore-hosts", paramLabel = "REGEX",
      description = "Tunnel CONNECT targets matching this regex (host or host:port) without decrypting them. Repeatable.")
  List<String> ignoreHosts = new ArrayList<>();

  /** Flows a headless session without --har keeps (nothing reads older ones). */
  static final int HEADLESS_KEEP = 1000;
  /** Body bytes those flows keep on the heap (older flows are forgotten beyond it, never spilled). */
  static final long HEADLESS_BODY_BUDGET = 32L << 20;

  @Option(names = "--har", paramLabel = "FILE",
      description = "Write a HAR 1.2 file of the session on exit (SIGINT or SIGTERM), atomically.")
  Path har;

  @Option(names = "--session", paramLabel = "FILE",
      description = "Record every flow into this session file (.loupe, created if missing, appended to if not) as it"
          + " happens: written at least every 200 ms, so a crash loses at most that; memory stays flat however"
          + " long it runs. Open it later with 'loupe FILE', or convert it: 'loupe convert FILE out.har'.")
  Path session;

  @Parameters(arity = "0..1", paramLabel = "FILE",
      description = "A session (.loupe) to open and record into (as --session), or a HAR file to open in the window.")
  Path file;

  @Option(names = "--keep-flows", paramLabel = "N",
      description = "Keep only the newest N flows in memory (older completed ones are forgotten). Default: all"
          + " with --har, else the newest " + HEADLESS_KEEP + " and at most 32 MiB of their bodies, so a long"
          + " headless run stays flat in memory.")
  Integer keepFlows;

  @Option(names = "--body-cap", paramLabel = "SIZE", defaultValue = "1MiB",
      description = "Bytes of each body kept in memory (default: ${DEFAULT-VALUE}); the rest spills to a temp file.")
  String bodyCap;

  @Option(names = "--no-spill", description = "Do not spill bodies beyond --body-cap to disk; mark them truncated.")
  boolean noSpill;

  @Option(names = "--ca-key", paramLabel = "ec|rsa", defaultValue = "ec",
      description = "Key type for a NEW CA (default: ${DEFAULT-VALUE}). An existing CA is always reused.")
  String caKey;

  @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "10",
      description = "TCP connect timeout to origins (default: ${DEFAULT-VALUE}).")
  int connectTimeoutSeconds;

  @Option(names = "--mode", paramLabel = "regular|reverse:URL", defaultValue = "regular",
      description = "regular (default): an explicit HTTP proxy (CONNECT). reverse:https://host:port (or http://):"
          + " a reverse proxy sending every request on --listen to that origin; the listener speaks TLS (HTTP/1.1,"
          + " HTTP/2), cleartext HTTP/1.1 and h2c on the same port.")
  String mode;

  @Option(names = "--cert", paramLabel = "FILE",
      description = "Reverse mode: present this certificate chain (PEM) instead of one minted by the Loupe CA.")
  Path cert;

  @Option(names = "--key", paramLabel = "FILE", description = "Reverse mode: the PKCS#8 PEM key of --cert.")
  Path key;

  @Option(names = "--upstream-protocol", paramLabel = "auto|h1|h2|h3", defaultValue = "auto",
      description = "What Loupe speaks to origins: auto (default: HTTP/2 when the client spoke it and the origin"
          + " agrees by ALPN, else HTTP/1.1), h1, h2 (h2c prior knowledge for http:// origins), or h3"
          + " (HTTP/3 over QUIC to https:// origins; http:// origins stay on HTTP/1.1).")
  String upstreamProtocol;

  @Option(names = "--connect-strategy", paramLabel = "eager|lazy", defaultValue = "eager",
      description = "Regular mode, intercepted CONNECT: eager (default) connects to the origin before answering"
          + " 200, so an unreachable origin is a 502 the client shows; lazy answers 200 at once and connects"
          + " with the first request inside the tunnel.")
  String connectStrategy;

  @Option(names = "--upstream-proxy", paramLabel = "URL",
      description = "Reach origins through this HTTP proxy (http://[user:pass@]host:port): a CONNECT tunnel per"
          + " origin connection; origin certificates are still verified.")
  String upstreamProxy;

  @Option(names = {"-q", "--quiet"}, description = "Do not print a line per flow.")
  boolean quiet;

  @Option(names = "--system-proxy",
      description = "Point the system's HTTP and HTTPS proxy (GNOME, KDE, macOS, Windows) at Loupe while it runs;"
          + " the previous settings are saved first and restored on exit (after a crash: on the next start).")
  boolean systemProxy;

  @Option(names = "--restore-system-proxy",
      description = "Restore the system proxy settings a Loupe saved (e.g. one killed while switched), then exit.")
  boolean restoreSystemProxy;

  @Option(names = "--control", paramLabel = "HOST:PORT",
      description = "Serve the control API (HTTP+JSON: flows, breakpoints, rules, paused flows, replay; see README)"
          + " on this address, loopback only unless --allow-remote; every request needs the bearer token Loupe"
          + " prints and writes to CONFDIR/control-token. Port 0 picks a free port.")
  String control;

  @Option(names = "--control-token-file", paramLabel = "FILE",
      description = "Use the control API token in FILE (at least 16 characters) instead of a new random one.")
  Path controlTokenFile;

  @Option(names = "--rules", paramLabel = "FILE",
      description = "Headless: apply the rules in FILE (a JSON array, as the window's rules list exports them).")
  Path rulesFile;

  @Option(names = "--mcp-read-only",
      description = "The MCP server at /mcp on the control listener offers only the tools that read (no replay,"
          + " rules, breakpoints or releasing paused flows).")
  boolean mcpReadOnly;

  @Option(names = "--mcp-no-redact",
      description = "Do not hide secrets (Authorization, cookies, API keys, tokens) in MCP answers.")
  boolean mcpNoRedact;

  @Option(names = "--pause-timeout", paramLabel = "SECONDS", defaultValue = "0",
      description = "Resume a flow paused at a breakpoint unchanged after this many seconds (default: 0 = never).")
  long pauseTimeoutSeconds;

  @CommandLine.Mixin
  PluginOptions pluginOptions = new PluginOptions();

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new LoupeCommand());
    cli.addSubcommand("mcp", new McpCommand(args -> commandLine().execute(args)));
    cli.addSubcommand("ctl", CtlCommand.commandLine());
    cli.setParameterExceptionHandler((ex, args) -> {
      PrintStream err = System.err;
      err.println("loupe: " + ex.getMessage());
      err.println("Try 'loupe --help' for more information.");
      return 2;
    });
    cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
      System.err.println("loupe: " + (ex.getMessage() == null ? ex.toString() : ex.getMessage()));
      return ex instanceof UsageError ? 2 : 1;
    });
    return cli;
  }

  /** A bad option value found after parsing: exit 2 with a one-line reason. */
  static final class UsageError extends RuntimeException {
    UsageError(String message) {
      super(message);
    }
  }

  @Override
  public Integer call() throws Exception {
    if (restoreSystemProxy) {
      return SystemProxyService.restoreCommand(confdir != null ? confdir : ConfigDirectory.defaultDirectory(),
          System.out, System.err);
    }
    Settings saved = headless ? null : WindowRun.beforeStart(this);
    SessionOptions sessionFiles = SessionOptions.resolve(this);
    ProxyOptions options = ProxyOptions.check(this);
    ControlOptions control = ControlOptions.check(this);
    ProxyRun run = ProxyRun.start(this, options, control, sessionFiles);
    if (!headless) {
      String noWindow = WindowRun.showAndWait(run, saved);
      if (noWindow == null) {
        return 0; // the window was closed: exiting runs the session's shutdown (HAR, proxy)
      }
      run.goHeadless(noWindow);
    }
    run.awaitShutdown();
    return 0;
  }

  /** One case-insensitive pattern matching any of {@code regexes}, or null for none. */
  static Pattern ignorePattern(List<String> regexes) {
    return regexes.isEmpty() ? null
        : Pattern.compile(String.join("|", regexes.stream().map(r -> "(?:" + r + ")").toList()), Pattern.CASE_INSENSITIVE);
  }

  static String hostPort(InetSocketAddress a) {
    return ListenAddress.format(a);
  }

  /** Version from the jar manifest, or "dev". */
  static final class Version implements CommandLine.IVersionProvider {
    static String text() {
      String v = LoupeCommand.class.getPackage().getImplementationVersion();
      return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
      return new String[] {"Loupe " + text()};
    }
  }
}
