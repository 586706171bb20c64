package dev.loupe.app;

import dev.loupe.app.LoupeCommand.UsageError;
import dev.loupe.app.connect.CaDownloads;
import dev.loupe.app.connect.RunningLoupe;
import dev.loupe.app.control.ControlApi;
import dev.loupe.app.mcp.McpOptions;
import dev.loupe.app.plugins.PluginLoader;
import dev.loupe.app.sysproxy.SystemProxyService;
import dev.loupe.ca.CaException;
import dev.loupe.ca.CertificateAuthority;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.ca.LeafCertificate;
import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.api.ServerCertificate;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The proxy {@code loupe} starts, headless or under the window: the CA, the flow store, the
 * recording into {@code --session}, rules and plugins, the engine, the running-file, the control
 * API, and the lines printed at start. {@link #start} runs once the options are checked; then either
 * the window takes over ({@link WindowRun}) or {@link #awaitShutdown} blocks until SIGINT or SIGTERM.
 * Confined to the thread running the command.
 */
final class ProxyRun {
  final LoupeCommand command;
  final ProxyOptions options;
  final SessionOptions sessionFiles;
  final Path dir;
  final AccessOptions access;
  final SystemProxyService sysProxy;
  final CertificateAuthority ca;
  final FlowStore store;
  final InterceptService intercept;
  final PluginLoader pluginLoader;
  final EngineSwitch engines;
  /** {@code running.json} and the listeners {@code loupe browser} asks for; null in reverse mode. */
  final RunningLoupe running;
  final PrintStream out = System.out;
  private final HeadlessSession session;
  /** Ended flows a recording keeps in memory once written ({@link Session#record}). */
  private final int keepInMemory;

  private ProxyRun(LoupeCommand c, ProxyOptions options, ControlOptions control, SessionOptions sessionFiles)
      throws IOException {
    this.command = c;
    this.options = options;
    this.sessionFiles = sessionFiles;
    EngineConfig.Reverse reverse = options.reverse();
    dir = c.confdir != null ? c.confdir : ConfigDirectory.defaultDirectory();
    access = reverse != null ? new AccessOptions(null, null, null)
        : AccessOptions.resolve(c.proxyAuth, c.socks, c.allowRemote, options.address(), dir);
    if (reverse != null && (c.proxyAuth != null || c.socks != null)) {
      throw new UsageError("--proxy-auth and --socks are for regular mode (a reverse proxy is not a proxy clients"
          + " choose)");
    }
    if (c.systemProxy && reverse != null) {
      throw new UsageError("--system-proxy is for regular mode (a reverse proxy is not a system proxy)");
    }
    // Restores what a crashed Loupe left switched; with --system-proxy, refuses early if another Loupe has it.
    sysProxy = SystemProxyService.atStartup(dir, c.systemProxy, System.out);
    try {
      ca = CertificateAuthority.loadOrCreate(dir, options.caKey());
    } catch (CaException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    EngineConfig config = engineConfig(c);
    // With a HAR to write (and in the UI) every flow is kept; otherwise only the newest, like mitmdump.
    store = c.keepFlows != null ? FlowStore.rolling(c.keepFlows, FlowStore.DEFAULT_MEMORY_BUDGET)
        : c.har != null || !c.headless || sessionFiles.record() != null ? FlowStore.create()
        : FlowStore.rolling(LoupeCommand.HEADLESS_KEEP, LoupeCommand.HEADLESS_BODY_BUDGET);
    // the window records through its session manager (File menu, autosave); headless straight into --session
    // Without --control nothing reads a headless recording's flows from memory, so each leaves it
    // once it is on disk: kept longer, every young collection copies them (docs/PERFORMANCE.md,
    // "--session, third pass"). The control API lists and replays the newest from memory.
    keepInMemory = control.address() != null ? Session.KEEP_IN_MEMORY : 0;
    Session recording = c.headless ? sessionFiles.startRecording(store, System.out, keepInMemory) : null;
    intercept = interceptService(dir, c.headless);
    intercept.pauseTimeout(Duration.ofSeconds(c.pauseTimeoutSeconds)); // the saved setting unless given (merge)
    if (control.rules() != null) {
      intercept.rules().replace(control.rules());
    }
    List<String> pluginLines;
    try {
      pluginLoader = PluginLoader.create(intercept.plugins(), dir, c.pluginOptions, System.out, System.err);
      pluginLines = pluginLoader.loadAll(!c.pluginOptions.noPlugins(), c.pluginOptions.plugins(),
          c.pluginOptions.scripts());
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
    engines = new EngineSwitch(engine, config, store);
    session = new HeadlessSession(engines::current, store, recording, c.har, c.quiet ? null : out, pluginLoader);
    if (c.headless) {
      session.printFlowLines();
    }
    // running.json and the listeners `loupe browser` asks for; both follow the proxy across
    // restarts. Written before the listening line, so a script that waits for that line finds it.
    running = reverse == null ? RunningLoupe.start(dir, engines::current) : null;
    if (running != null) {
      engines.onRestart(running::restarted);
      Runtime.getRuntime().addShutdownHook(new Thread(running::close, "loupe-running-file"));
    }
    printStartLines(engine, pluginLines);
    pluginLoader.startWatching();
    if (control.address() != null) {
      control.start(dir, store, intercept, engines,
          new ControlApi.About(reverse == null ? "regular" : "reverse:" + reverse,
              options.userCertificate() == null ? ca.certificatePath() : null),
          new McpOptions(c.mcpReadOnly, !c.mcpNoRedact), pluginLoader, out);
    }
    out.flush();
    sysProxy.listening(engine.address(), c.systemProxy); // switches now with --system-proxy; restored on exit
  }

  /**
   * Starts the proxy {@code c} asks for; {@code options}, {@code control} and {@code sessionFiles} are
   * its checked options. Throws {@link UsageError} for the option conflicts found only here, and
   * {@link IOException} when {@code running.json} cannot be written.
   */
  static ProxyRun start(LoupeCommand c, ProxyOptions options, ControlOptions control, SessionOptions sessionFiles)
      throws IOException {
    return new ProxyRun(c, options, control, sessionFiles);
  }

  private EngineConfig engineConfig(LoupeCommand c) {
    UserCertificate user = options.userCertificate();
    return EngineConfig.builder(user != null
            ? host -> new ServerCertificate(user.key(), user.chain())
            : host -> {
              LeafCertificate leaf = ca.leafFor(host);
              return new ServerCertificate(leaf.privateKey(), leaf.chain());
            })
        .reverse(options.reverse())
        .listen(options.address())
        .trustCas(options.extraCas())
        .insecure(c.insecure)
        .ignoreHosts(options.ignore())
        .capture(new CapturePolicy((int) options.bodyCap(), !c.noSpill,
            Path.of(System.getProperty("java.io.tmpdir"))))
        .connectTimeout(Duration.ofSeconds(c.connectTimeoutSeconds))
        .upstreamProtocol(options.upstream())
        .upstreamProxy(options.upstreamProxy())
        .connectStrategy(options.strategy())
        .proxyAuth(access.auth())
        .socks(access.socks())
        .setup(options.reverse() == null ? CaDownloads.of(ca) : null)
        .build();
  }

  /** Where the proxy listens, the CA, the warnings, the HAR file and the plugins loaded. */
  private void printStartLines(ProxyEngine engine, List<String> pluginLines) {
    EngineConfig.Reverse reverse = options.reverse();
    String at = LoupeCommand.hostPort(engine.address());
    out.println("Loupe " + LoupeCommand.Version.text() + " listening on http://" + at
        + (reverse == null ? " (regular mode, " : " (reverse mode to " + reverse + ", ") + ProxyEngine.transport()
        + ", TLS: " + ProxyEngine.tlsProvider() + ")");
    out.println("CA certificate: " + ca.certificatePath());
    if (command.insecure) {
      out.println("WARNING: --insecure: origin certificates are NOT verified; anyone on the path can read and change"
          + " traffic.");
    }
    if (!options.address().getAddress().isLoopbackAddress() && access.auth() == null) {
      out.println("WARNING: listening on a non-loopback address: anyone who can reach " + at
          + " can use this proxy.");
    }
    if (reverse == null) {
      out.println("SOCKS5 on the same port" + (engine.socksAddress() == null ? ""
          : " and on " + LoupeCommand.hostPort(engine.socksAddress()))
          + "; setup page for devices: http://loupe.setup/ through the proxy, or http://" + at + "/");
    }
    if (access.message() != null) {
      out.println(access.message());
    }
    if (command.headless && access.auth() != null) {
      AccessOptions.printRefusals(engine.accessLog(), out);
    }
    if (command.har != null) {
      out.println("HAR will be written on exit to " + command.har.toAbsolutePath());
    }
    pluginLines.forEach(out::println);
  }

  /** The window could not open ({@code why}): prints the flows and records into {@code --session} instead. */
  void goHeadless(String why) {
    out.println("Loupe: cannot open the desktop window (" + why + "); running headless. Stop with Ctrl+C.");
    session.printFlowLines();
    session.record(sessionFiles.startRecording(store, out, keepInMemory));
    out.flush();
  }

  /** Blocks until the JVM is shutting down and the session (HAR, --session) has been saved. */
  void awaitShutdown() throws InterruptedException {
    session.runUntilShutdown();
  }

  /**
   * The rules and breakpoints: the desktop app keeps them in the configuration directory
   * ({@code rules.json}, {@code breakpoints.json}); a headless run starts from none, so a CI run
   * does not depend on what someone clicked in a window.
   */
  private static InterceptService interceptService(Path dir, boolean headless) {
    InterceptService intercept = InterceptService.create(dir.resolve("plugin-data"));
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
}
