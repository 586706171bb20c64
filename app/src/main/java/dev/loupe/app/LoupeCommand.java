package dev.loupe.app;

import dev.loupe.app.connect.ClientListeners;
import dev.loupe.app.connect.ConnectService;
import dev.loupe.app.connect.RunningLoupe;
import dev.loupe.app.control.ControlApi;
import dev.loupe.app.control.ControlEndpoint;
import dev.loupe.app.control.ControlServer;
import dev.loupe.app.control.ControlToken;
import dev.loupe.app.control.RulesFile;
import dev.loupe.app.ctl.CtlCommand;
import dev.loupe.app.mcp.LoupeMcp;
import dev.loupe.app.mcp.McpActivity;
import dev.loupe.app.mcp.McpCallLog;
import dev.loupe.app.mcp.McpCommand;
import dev.loupe.app.mcp.McpHttpTransport;
import dev.loupe.app.mcp.McpOptions;
import dev.loupe.app.plugins.PluginLoader;
import dev.loupe.app.plugins.PluginOptions;
import dev.loupe.app.sysproxy.SystemProxyService;
import dev.loupe.app.trust.CaTrustPort;
import dev.loupe.ca.CaException;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.ca.KeyAlgorithm;
import dev.loupe.ca.LeafCertificate;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.api.ServerCertificate;
import dev.loupe.engine.api.util.ByteSizes;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.ui.settings.Settings;
import dev.loupe.ui.shell.DesktopContext;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code loupe}: starts the proxy. The public command line — scripts depend on these names, so
 * extend them, never change them silently.
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
    Settings saved = null;
    if (!headless) {
      // No GPU: JavaFX's own renderer and no Mesa. Sets an environment variable, so first, while no thread of
      // Loupe's runs yet (setenv is not safe next to threads reading the environment); before GTK starts.
      SoftwareRendering.applyIfWanted();
    }
    if (!headless) { // the desktop window's saved settings fill in options not given here
      saved = DesktopSettings.load(confdir != null ? confdir : ConfigDirectory.defaultDirectory(), System.out);
      DesktopSettings.merge(saved, this, spec.commandLine().getParseResult());
      AccessOptions.applySavedRemoteAccess(this, confdir != null ? confdir : ConfigDirectory.defaultDirectory(),
          spec.commandLine().getParseResult().hasMatchedOption("--listen"), System.out);
    }
    SessionOptions sessionFiles = SessionOptions.resolve(this);
    if (keepFlows != null && keepFlows < 1) {
      throw new UsageError("--keep-flows: expected at least 1, got " + keepFlows);
    }
    InetSocketAddress address;
    try {
      address = ListenAddress.parse(listen);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--listen: " + e.getMessage());
    }
    if (!address.getAddress().isLoopbackAddress() && !allowRemote) {
      throw new UsageError("--listen " + listen + " is not a loopback address; add --allow-remote to listen on it"
          + " (anyone who can reach it can then use the proxy)");
    }
    long cap;
    try {
      cap = ByteSizes.parse(bodyCap);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--body-cap: " + e.getMessage());
    }
    if (cap > Integer.MAX_VALUE - 16) {
      throw new UsageError("--body-cap: at most 2GiB");
    }
    KeyAlgorithm algorithm = switch (caKey.toLowerCase(java.util.Locale.ROOT)) {
      case "ec", "ecdsa" -> KeyAlgorithm.EC_P256;
      case "rsa" -> KeyAlgorithm.RSA_2048;
      default -> throw new UsageError("--ca-key: expected ec or rsa, got '" + caKey + "'");
    };
    if (connectTimeoutSeconds <= 0) {
      throw new UsageError("--connect-timeout: must be a positive number of seconds");
    }
    EngineConfig.UpstreamProtocol upstream = switch (upstreamProtocol.toLowerCase(java.util.Locale.ROOT)) {
      case "auto" -> EngineConfig.UpstreamProtocol.AUTO;
      case "h1", "http/1.1", "http1" -> EngineConfig.UpstreamProtocol.H1;
      case "h2", "http/2", "http2" -> EngineConfig.UpstreamProtocol.H2;
      case "h3", "http/3", "http3" -> EngineConfig.UpstreamProtocol.H3;
      default -> throw new UsageError("--upstream-protocol: expected auto, h1, h2 or h3, got '" + upstreamProtocol
          + "'");
    };
    EngineConfig.ConnectStrategy strategy = switch (connectStrategy.toLowerCase(java.util.Locale.ROOT)) {
      case "eager" -> EngineConfig.ConnectStrategy.EAGER;
      case "lazy" -> EngineConfig.ConnectStrategy.LAZY;
      default -> throw new UsageError("--connect-strategy: expected eager or lazy, got '" + connectStrategy + "'");
    };
    EngineConfig.UpstreamProxy viaProxy = null;
    if (upstreamProxy != null && !upstreamProxy.isBlank()) {
      try {
        viaProxy = EngineConfig.UpstreamProxy.parse(upstreamProxy);
      } catch (IllegalArgumentException e) {
        throw new UsageError("--upstream-proxy: " + e.getMessage());
      }
    }
    if (viaProxy != null && upstream == EngineConfig.UpstreamProtocol.H3) {
      throw new UsageError("--upstream-proxy: HTTP/3 to origins (QUIC, over UDP) cannot go through an HTTP proxy;"
          + " drop --upstream-protocol h3 or the upstream proxy");
    }
    EngineConfig.Reverse reverse = null;
    if (mode.startsWith("reverse:")) {
      try {
        reverse = EngineConfig.Reverse.parse(mode.substring("reverse:".length()));
      } catch (IllegalArgumentException e) {
        throw new UsageError("--mode: " + e.getMessage());
      }
    } else if (!mode.equals("regular")) {
      throw new UsageError("--mode: expected regular or reverse:URL, got '" + mode + "'");
    }
    if ((cert == null) != (key == null)) {
      throw new UsageError("--cert and --key go together");
    }
    if (cert != null && reverse == null) {
      throw new UsageError("--cert/--key are for reverse mode (regular mode mints certificates with the Loupe CA)");
    }
    UserCertificate userCertificate = cert == null ? null : UserCertificate.load(cert, key);
    Pattern ignore;
    try {
      ignore = ignorePattern(ignoreHosts);
    } catch (PatternSyntaxException e) {
      throw new UsageError("--ignore-hosts: invalid regex: " + e.getDescription());
    }
    List<X509Certificate> extraCas = new ArrayList<>();
    for (Path p : trustCa) {
      extraCas.addAll(UserCertificate.readCertificates(p));
    }
    if (har != null) {
      Path parent = har.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new UsageError("--har: directory does not exist: " + parent);
      }
    }

    ControlOptions controlOptions = controlOptions();

    Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
    AccessOptions access = reverse != null ? new AccessOptions(null, null, null)
        : AccessOptions.resolve(proxyAuth, socks, allowRemote, address, dir);
    if (reverse != null && (proxyAuth != null || socks != null)) {
      throw new UsageError("--proxy-auth and --socks are for regular mode (a reverse proxy is not a proxy clients"
          + " choose)");
    }
    if (systemProxy && reverse != null) {
      throw new UsageError("--system-proxy is for regular mode (a reverse proxy is not a system proxy)");
    }
    // Restores what a crashed Loupe left switched; with --system-proxy, refuses early if another Loupe has it.
    SystemProxyService sysProxy = SystemProxyService.atStartup(dir, systemProxy, System.out);
    CertificateAuthority ca;
    try {
      ca = CertificateAuthority.loadOrCreate(dir, algorithm);
    } catch (CaException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }

    EngineConfig config = EngineConfig.builder(userCertificate != null
            ? host -> new ServerCertificate(userCertificate.key(), userCertificate.chain())
            : host -> {
              LeafCertificate leaf = ca.leafFor(host);
              return new ServerCertificate(leaf.privateKey(), leaf.chain());
            })
        .reverse(reverse)
        .listen(address)
        .trustCas(extraCas)
        .insecure(insecure)
        .ignoreHosts(ignore)
        .capture(new CapturePolicy((int) cap, !noSpill, Path.of(System.getProperty("java.io.tmpdir"))))
        .connectTimeout(Duration.ofSeconds(connectTimeoutSeconds))
        .upstreamProtocol(upstream)
        .upstreamProxy(viaProxy)
        .connectStrategy(strategy)
        .proxyAuth(access.auth())
        .socks(access.socks())
        .setup(reverse == null ? dev.loupe.app.connect.CaDownloads.of(ca) : null)
        .build();
    // With a HAR to write (and in the UI) every flow is kept; otherwise only the newest, like mitmdump.
    FlowStore store = keepFlows != null ? FlowStore.rolling(keepFlows, FlowStore.DEFAULT_MEMORY_BUDGET)
        : har != null || !headless || sessionFiles.record() != null ? FlowStore.create()
        : FlowStore.rolling(HEADLESS_KEEP, HEADLESS_BODY_BUDGET);
    // the window records through its session manager (File menu, autosave); headless straight into --session
    dev.loupe.engine.api.session.Session recording = headless ? sessionFiles.startRecording(store, System.out) : null;
    dev.loupe.engine.api.intercept.InterceptService intercept = interceptService(dir);
    intercept.pauseTimeout(Duration.ofSeconds(pauseTimeoutSeconds)); // the saved setting unless given (merge)
    if (controlOptions.rules() != null) {
      intercept.rules().replace(controlOptions.rules());
    }
    PluginLoader pluginLoader;
    List<String> pluginLines;
    try {
      pluginLoader = PluginLoader.create(intercept.plugins(), dir, pluginOptions, System.out, System.err);
      pluginLines = pluginLoader.loadAll(!pluginOptions.noPlugins(), pluginOptions.plugins(), pluginOptions.scripts());
    } catch (IllegalArgumentException e) {
      intercept.close();
      throw new UsageError(e.getMessage());
    }
    ProxyEngine engine;
    try {
      engine = ProxyEngine.start(config, store, intercept);
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    EngineSwitch engines = new EngineSwitch(engine, config, store);
    PrintStream out = System.out;
    HeadlessSession session = new HeadlessSession(engines::current, store, recording, har, quiet ? null : out,
        pluginLoader);
    if (headless) {
      session.printFlowLines();
    }
    // running.json and the listeners `loupe browser` asks for; both follow the proxy across
    // restarts. Written before the listening line, so a script that waits for that line finds it.
    RunningLoupe running = reverse == null ? RunningLoupe.start(dir, engines::current) : null;
    if (running != null) {
      engines.onRestart(running::restarted);
      Runtime.getRuntime().addShutdownHook(new Thread(running::close, "loupe-running-file"));
    }
    out.println("Loupe " + Version.text() + " listening on http://" + hostPort(engine.address())
        + (reverse == null ? " (regular mode, " : " (reverse mode to " + reverse + ", ") + ProxyEngine.transport() + ", TLS: " + ProxyEngine.tlsProvider() + ")");
    out.println("CA certificate: " + ca.certificatePath());
    if (insecure) {
      out.println("WARNING: --insecure: origin certificates are NOT verified; anyone on the path can read and change traffic.");
    }
    if (!address.getAddress().isLoopbackAddress() && access.auth() == null) {
      out.println("WARNING: listening on a non-loopback address: anyone who can reach " + hostPort(engine.address())
          + " can use this proxy.");
    }
    if (reverse == null) {
      out.println("SOCKS5 on the same port" + (engine.socksAddress() == null ? "" : " and on " + hostPort(engine.socksAddress()))
          + "; setup page for devices: http://loupe.setup/ through the proxy, or http://" + hostPort(engine.address()) + "/");
    }
    if (access.message() != null) {
      out.println(access.message());
    }
    if (headless && access.auth() != null) {
      AccessOptions.printRefusals(engine.accessLog(), out);
    }
    if (har != null) {
      out.println("HAR will be written on exit to " + har.toAbsolutePath());
    }
    pluginLines.forEach(out::println);
    pluginLoader.startWatching();
    if (controlOptions.address() != null) {
      startControl(controlOptions, dir, store, intercept, engines,
          new ControlApi.About(reverse == null ? "regular" : "reverse:" + reverse,
              userCertificate == null ? ca.certificatePath() : null),
          new McpOptions(mcpReadOnly, !mcpNoRedact), pluginLoader, out);
    }
    out.flush();
    sysProxy.listening(engine.address(), systemProxy); // switches now with --system-proxy; restored on exit
    if (!headless) {
      String noDisplay = DesktopWindow.whyNot();
      if (noDisplay == null) {
        pluginLoader.rememberSwitches(); // the window's switches persist, as its other settings do
        dev.loupe.ui.session.SessionManager sessions = DesktopWindow.sessions(dir, store, sessionFiles, out);
        try {
          String listening = ConnectService.listeningText(engine.address(), access.auth());
          ConnectService connect = new ConnectService(engines::current, engines::config, engines::restart,
              running != null ? running.clients() : new ClientListeners(engines::current), dir, ca);
          Runtime.getRuntime().addShutdownHook(new Thread(connect::close, "loupe-launched-browsers"));
          DesktopWindow.showAndWait(sessions, new DesktopContext(store, listening, dir,
              DesktopSettings.current(saved, this, listening), DesktopSettings.applier(engines, sysProxy),
              reverse == null ? sysProxy.control() : DesktopWindow.unsupported(sysProxy.control(),
                  "Loupe runs in reverse mode; the system proxy is for regular mode"),
              CaTrustPort.forThisMachine(ca), intercept, engines.replayer(), new McpActivity(dir), connect,
              pluginLoader.windowControl()));
          connect.close(); // the browsers started from the window go with it (their profiles deleted)
          intercept.releaseAll(); // the user left: nothing stays paused while the proxy shuts down
          sysProxy.restoreOnExit();
          return 0; // the window was closed: exiting runs the session's shutdown (HAR, proxy)
        } catch (RuntimeException | LinkageError e) {
          noDisplay = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
          DesktopWindow.close(sessions);
        }
      }
      out.println("Loupe: cannot open the desktop window (" + noDisplay + "); running headless. Stop with Ctrl+C.");
      session.printFlowLines();
      session.record(sessionFiles.startRecording(store, out));
      out.flush();
    }
    session.runUntilShutdown();
    return 0;
  }

  /** What --control, --control-token-file and --rules asked for, checked before anything starts. */
  private record ControlOptions(InetSocketAddress address, String token, List<dev.loupe.engine.api.intercept.Rule> rules) {}

  private ControlOptions controlOptions() {
    if (pauseTimeoutSeconds < 0) {
      throw new UsageError("--pause-timeout: expected 0 (off) or a positive number of seconds, got "
          + pauseTimeoutSeconds);
    }
    List<dev.loupe.engine.api.intercept.Rule> rules = null;
    if (rulesFile != null) {
      if (!headless) {
        throw new UsageError("--rules is for --headless (the window keeps its rules in the configuration"
            + " directory; import a file from its rules list)");
      }
      try {
        rules = RulesFile.read(rulesFile);
      } catch (IllegalArgumentException e) {
        throw new UsageError("--rules: " + e.getMessage());
      }
    }
    if (control == null) {
      if (controlTokenFile != null) {
        throw new UsageError("--control-token-file goes with --control");
      }
      return new ControlOptions(null, null, rules);
    }
    InetSocketAddress at;
    try {
      at = ListenAddress.parse(control);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--control: " + e.getMessage());
    }
    // Only --allow-remote given here counts: the window's saved settings may allow a remote proxy, not this API.
    if (!at.getAddress().isLoopbackAddress() && !spec.commandLine().getParseResult().hasMatchedOption("--allow-remote")) {
      throw new UsageError("--control " + control + " is not a loopback address; add --allow-remote to serve the"
          + " control API on it (anyone who can reach it and has the token can then drive Loupe)");
    }
    String token;
    try {
      token = controlTokenFile != null ? ControlToken.read(controlTokenFile) : ControlToken.generate();
    } catch (IllegalArgumentException e) {
      throw new UsageError("--control-token-file: " + e.getMessage());
    }
    return new ControlOptions(at, token, rules);
  }

  /** Starts the control API (stopped when the JVM exits) and prints where it is and its token. */
  private static void startControl(ControlOptions o, Path dir, FlowStore store,
      dev.loupe.engine.api.intercept.InterceptService intercept, EngineSwitch engines, ControlApi.About about,
      McpOptions mcp, PluginLoader plugins, PrintStream out) {
    Path tokenFile;
    try {
      tokenFile = ControlToken.save(dir, o.token());
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the control API token to " + dir + ": " + e.getMessage(), e);
    }
    ControlServer server;
    try {
      ControlApi api = new ControlApi(store, intercept, engines.replayer(), () -> hostPort(engines.current().address()),
          about, plugins);
      LoupeMcp tools = new LoupeMcp(ControlServer.inProcess(api), mcp, new McpCallLog(dir));
      server = ControlServer.start(o.address(), o.token(), api,
          java.util.Map.of(McpHttpTransport.PATH, McpHttpTransport.serve(tools)));
    } catch (IOException e) {
      throw new IllegalStateException("--control " + hostPort(o.address()) + ": cannot listen: " + e.getMessage(), e);
    }
    ControlEndpoint endpoint = new ControlEndpoint("http://" + hostPort(server.address()),
        hostPort(engines.current().address()), ProcessHandle.current().pid(), tokenFile);
    try {
      endpoint.save(dir);
    } catch (IOException e) {
      out.println("WARNING: cannot write " + dir.resolve(ControlEndpoint.FILE_NAME) + " (loupe ctl and loupe mcp"
          + " find this Loupe through it): " + e.getMessage());
    }
    ControlServer running = server;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      endpoint.remove(dir);
      running.close();
    }, "loupe-control-stop"));
    out.println("Control API on http://" + hostPort(server.address()) + " (token: " + o.token() + ", also in "
        + tokenFile + ")");
    out.println("MCP server on http://" + hostPort(server.address()) + McpHttpTransport.PATH + " (same token"
        + (mcp.readOnly() ? "; read-only" : "") + (mcp.redact() ? "" : "; secrets NOT redacted") + ")");
    if (!o.address().getAddress().isLoopbackAddress()) {
      out.println("WARNING: the control API listens on a non-loopback address: anyone who can reach "
          + hostPort(server.address()) + " and has the token can drive Loupe.");
    }
  }

  /**
   * The rules and breakpoints: the desktop app keeps them in the configuration directory
   * ({@code rules.json}, {@code breakpoints.json}); a headless run starts from none, so a CI run
   * does not depend on what someone clicked in a window.
   */
  private dev.loupe.engine.api.intercept.InterceptService interceptService(Path dir) {
    var intercept = dev.loupe.engine.api.intercept.InterceptService.create(dir.resolve("plugin-data"));
    if (!headless) {
      for (String problem : new String[] {
          intercept.rules().persistTo(dir.resolve("rules.json")),
          intercept.breakpoints().persistTo(dir.resolve("breakpoints.json"))}) {
        if (problem != null) {
          System.err.println("Loupe: " + problem);
        }
      }
    }
    return intercept;
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
