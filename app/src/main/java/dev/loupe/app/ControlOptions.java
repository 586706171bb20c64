package dev.loupe.app;

import dev.loupe.app.LoupeCommand.UsageError;
import dev.loupe.app.control.ControlApi;
import dev.loupe.app.control.ControlEndpoint;
import dev.loupe.app.control.ControlServer;
import dev.loupe.app.control.ControlToken;
import dev.loupe.app.control.RulesFile;
import dev.loupe.app.mcp.LoupeMcp;
import dev.loupe.app.mcp.McpCallLog;
import dev.loupe.app.mcp.McpHttpTransport;
import dev.loupe.app.mcp.McpOptions;
import dev.loupe.app.plugins.PluginLoader;
import dev.loupe.engine.api.ListenAddress;
import dev.loupe.engine.api.intercept.InterceptService;
import dev.loupe.engine.api.intercept.Rule;
import dev.loupe.engine.flow.FlowStore;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What {@code --control}, {@code --control-token-file}, {@code --rules} and {@code --pause-timeout}
 * ask for, checked before anything starts; {@link #start} serves the control API and its MCP server.
 *
 * @param address where the control API listens, or null for none
 * @param token   its bearer token (null without {@code --control})
 * @param rules   the rules of {@code --rules}, or null
 */
record ControlOptions(InetSocketAddress address, String token, List<Rule> rules) {

  static ControlOptions check(LoupeCommand c) {
    if (c.pauseTimeoutSeconds < 0) {
      throw new UsageError("--pause-timeout: expected 0 (off) or a positive number of seconds, got "
          + c.pauseTimeoutSeconds);
    }
    List<Rule> rules = null;
    if (c.rulesFile != null) {
      if (!c.headless) {
        throw new UsageError("--rules is for --headless (the window keeps its rules in the configuration"
            + " directory; import a file from its rules list)");
      }
      try {
        rules = RulesFile.read(c.rulesFile);
      } catch (IllegalArgumentException e) {
        throw new UsageError("--rules: " + e.getMessage());
      }
    }
    if (c.control == null) {
      if (c.controlTokenFile != null) {
        throw new UsageError("--control-token-file goes with --control");
      }
      return new ControlOptions(null, null, rules);
    }
    InetSocketAddress at;
    try {
      at = ListenAddress.parse(c.control);
    } catch (IllegalArgumentException e) {
      throw new UsageError("--control: " + e.getMessage());
    }
    // Only --allow-remote given here counts: the window's saved settings may allow a remote proxy, not this API.
    if (!at.getAddress().isLoopbackAddress() && !c.spec.commandLine().getParseResult().hasMatchedOption("--allow-remote")) {
      throw new UsageError("--control " + c.control + " is not a loopback address; add --allow-remote to serve the"
          + " control API on it (anyone who can reach it and has the token can then drive Loupe)");
    }
    String token;
    try {
      token = c.controlTokenFile != null ? ControlToken.read(c.controlTokenFile) : ControlToken.generate();
    } catch (IllegalArgumentException e) {
      throw new UsageError("--control-token-file: " + e.getMessage());
    }
    return new ControlOptions(at, token, rules);
  }

  /** Starts the control API (stopped when the JVM exits) and prints where it is and its token. */
  void start(Path dir, FlowStore store, InterceptService intercept, EngineSwitch engines, ControlApi.About about,
      McpOptions mcp, PluginLoader plugins, PrintStream out) {
    Path tokenFile;
    try {
      tokenFile = ControlToken.save(dir, token);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write the control API token to " + dir + ": " + e.getMessage(), e);
    }
    ControlServer server;
    try {
      ControlApi api = new ControlApi(store, intercept, engines.replayer(),
          () -> LoupeCommand.hostPort(engines.current().address()), about, plugins);
      LoupeMcp tools = new LoupeMcp(ControlServer.inProcess(api), mcp, new McpCallLog(dir));
      server = ControlServer.start(address, token, api, Map.of(McpHttpTransport.PATH, McpHttpTransport.serve(tools)));
    } catch (IOException e) {
      throw new IllegalStateException("--control " + LoupeCommand.hostPort(address) + ": cannot listen: "
          + e.getMessage(), e);
    }
    String at = LoupeCommand.hostPort(server.address());
    ControlEndpoint endpoint = new ControlEndpoint("http://" + at, LoupeCommand.hostPort(engines.current().address()),
        ProcessHandle.current().pid(), tokenFile);
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
    out.println("Control API on http://" + at + " (token: " + token + ", also in " + tokenFile + ")");
    out.println("MCP server on http://" + at + McpHttpTransport.PATH + " (same token"
        + (mcp.readOnly() ? "; read-only" : "") + (mcp.redact() ? "" : "; secrets NOT redacted") + ")");
    if (!address.getAddress().isLoopbackAddress()) {
      out.println("WARNING: the control API listens on a non-loopback address: anyone who can reach "
          + at + " and has the token can drive Loupe.");
    }
  }
}
