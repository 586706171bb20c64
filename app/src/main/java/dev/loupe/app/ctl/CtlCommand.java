package dev.loupe.app.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loupe.app.control.ControlChannel;
import dev.loupe.app.control.ControlToken;
import dev.loupe.ca.ConfigDirectory;
import dev.loupe.engine.api.util.AtomicFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code loupe ctl}: a command-line client for a running Loupe's control API — flows, bodies, HAR,
 * replay and compose, rules, breakpoints and paused flows — with human-readable output or
 * {@code --json} (the API's own JSON). It finds the Loupe through its configuration directory
 * ({@link LocalLoupe}) or takes {@code --url} and a token.
 *
 * <p>Exit status: 0 done, 1 Loupe refused or could not be reached (the reason on stderr), 2 usage.
 */
@Command(name = "ctl", mixinStandardHelpOptions = true,
    description = {"Drive a running Loupe from the shell through its control API (start Loupe with --control).",
        "Finds it through the configuration directory; prints tables, or the API's JSON with --json."},
    subcommands = {CtlCommand.Status.class, CtlCommand.Connect.class, CtlCommand.Flows.class, CtlCommand.FlowCmd.class,
        CtlCommand.BodyCmd.class, CtlCommand.Har.class, CtlCommand.Replay.class, CtlCommand.Send.class,
        CtlIntercept.Rules.class, CtlIntercept.Breakpoints.class, CtlIntercept.Paused.class,
        CtlIntercept.Resume.class, CtlIntercept.Abort.class, CtlIntercept.Answer.class, CtlCommand.Ca.class})
public final class CtlCommand implements Callable<Integer> {
  static final ObjectMapper JSON = new ObjectMapper();

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Given before the subcommand ({@code loupe ctl --confdir D flows}): the subcommands' defaults. */
  @Mixin Conn conn;

  /**
   * {@code loupe ctl} as a picocli command with its subcommands. Errors go through the top command's
   * handlers: a {@link Refused} request exits 1 with its reason, a bad option value
   * ({@link #usage}) exits 2.
   */
  public static CommandLine commandLine() {
    return new CommandLine(new CtlCommand());
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(System.err);
    return 2;
  }

  /** Loupe refused a request, or could not be reached: the message says which and why. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message, null, false, false);
    }
  }

  /** A bad option value found while running {@code spec}'s command: exits 2 with the message. */
  static CommandLine.ParameterException usage(CommandLine.Model.CommandSpec spec, String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /** How to reach Loupe, and how to print: shared by every subcommand. */
  static final class Conn {
    @Option(names = "--confdir", paramLabel = "DIR", description = "Configuration directory of the Loupe to drive.")
    Path confdir;

    @Option(names = "--api", paramLabel = "URL",
        description = "The control API's URL, e.g. http://127.0.0.1:9090 (instead of finding it in CONFDIR).")
    String url;

    @Option(names = "--token-file", paramLabel = "FILE",
        description = "The token for --api (default: CONFDIR/control-token).")
    Path tokenFile;

    @Option(names = "--json", description = "Print the API's JSON instead of a table.")
    boolean json;

    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec mixee;

    private ControlChannel channel;

    /** Takes what was given before the subcommand for what was not given after it. */
    private void inherit() {
      CommandLine.Model.CommandSpec parent = mixee == null ? null : mixee.parent();
      if (parent != null && parent.userObject() instanceof CtlCommand top && top.conn != this) {
        Conn p = top.conn;
        confdir = confdir != null ? confdir : p.confdir;
        url = url != null ? url : p.url;
        tokenFile = tokenFile != null ? tokenFile : p.tokenFile;
        json |= p.json;
      }
    }

    boolean json() {
      inherit();
      return json;
    }

    ControlChannel channel() {
      if (channel == null) {
        inherit();
        Path dir = confdir != null ? confdir : ConfigDirectory.defaultDirectory();
        if (url != null) {
          Path f = tokenFile != null ? tokenFile : dir.resolve(ControlToken.FILE_NAME);
          try {
            channel = new HttpControlChannel(url, ControlToken.read(f));
          } catch (IllegalArgumentException e) {
            throw new Refused(e.getMessage());
          }
        } else {
          try {
            channel = LocalLoupe.find(dir);
          } catch (LocalLoupe.NotFound e) {
            throw new Refused(e.getMessage());
          }
        }
      }
      return channel;
    }

    JsonNode get(String path, Map<String, String> query) {
      return parse(call("GET", path, query, null));
    }

    JsonNode post(String path, Map<String, String> query, JsonNode body) {
      return parse(call("POST", path, query, body == null ? null : body.toString()));
    }

    String call(String method, String path, Map<String, String> query, String body) {
      ControlChannel.Reply r;
      try {
        r = channel().send(method, path, query, body);
      } catch (IOException e) {
        throw new Refused("cannot reach Loupe at " + channel().describe() + ": " + e.getMessage());
      }
      if (!r.ok()) {
        throw new Refused(r.error() + " (HTTP " + r.status() + ")");
      }
      return r.body();
    }

    /** Prints {@code n} as JSON (with --json) or with {@code human}. */
    int print(JsonNode n, java.util.function.Consumer<PrintStream> human) {
      if (json()) {
        System.out.println(CtlOutput.pretty(n));
      } else {
        human.accept(System.out);
      }
      System.out.flush();
      return 0;
    }

    private static JsonNode parse(String body) {
      if (body == null || body.isBlank()) {
        return JSON.createObjectNode();
      }
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new Refused("Loupe answered something that is not JSON: " + e.getMessage());
      }
    }
  }

  /** Request edits shared by replay, send, resume and answer: headers and a body. */
  static final class Message {
    @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec mixee;

    @Option(names = {"-H", "--header"}, paramLabel = "'NAME: VALUE'",
        description = "A header (repeatable; replaces all headers).")
    List<String> headers = new ArrayList<>();

    @Option(names = {"-d", "--body"}, paramLabel = "TEXT", description = "The body (sent as UTF-8).")
    String body;

    @Option(names = "--body-file", paramLabel = "FILE", description = "The body, from a file (bytes as they are).")
    Path bodyFile;

    /** Adds {@code headers} and {@code body}/{@code bodyBase64} to {@code o} when given. */
    ObjectNode into(ObjectNode o) {
      if (!headers.isEmpty()) {
        ArrayNode a = o.putArray("headers");
        for (String h : headers) {
          int c = h.indexOf(':');
          if (c <= 0) {
            throw usage(mixee, "--header must be 'Name: value', got '" + h + "'");
          }
          a.addArray().add(h.substring(0, c).strip()).add(h.substring(c + 1).strip());
        }
      }
      if (body != null && bodyFile != null) {
        throw usage(mixee, "give --body or --body-file, not both");
      }
      if (body != null) {
        o.put("body", body);
      } else if (bodyFile != null) {
        try {
          o.put("bodyBase64", Base64.getEncoder().encodeToString(Files.readAllBytes(bodyFile)));
        } catch (IOException e) {
          throw new Refused("cannot read " + bodyFile + ": " + e.getMessage());
        }
      }
      return o;
    }
  }

  static Map<String, String> query(String... pairs) {
    Map<String, String> q = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] != null) {
        q.put(pairs[i], pairs[i + 1]);
      }
    }
    return q;
  }

  @Command(name = "status", mixinStandardHelpOptions = true, description = "Proxy address, mode, counts, CA certificate.")
  static final class Status implements Callable<Integer> {
    @Mixin Conn conn;

    @Override
    public Integer call() {
      JsonNode s = conn.get("/", Map.of());
      return conn.print(s, out -> CtlOutput.keyValues(out, s));
    }
  }

  @Command(name = "connect", mixinStandardHelpOptions = true, description = "How to send a client through Loupe.")
  static final class Connect implements Callable<Integer> {
    @Mixin Conn conn;

    @Parameters(paramLabel = "CLIENT", defaultValue = "curl",
        description = "curl (default), env, chromium, firefox, java, node or python.")
    String client;

    @Override
    public Integer call() {
      JsonNode help = ConnectHelp.instructions(conn.get("/", Map.of()), client);
      return conn.print(help, out -> out.print(help.asText()));
    }
  }

  @Command(name = "flows", mixinStandardHelpOptions = true, description = "List captured flows, oldest first.")
  static final class Flows implements Callable<Integer> {
    @Mixin Conn conn;

    @Option(names = {"-f", "--filter"}, paramLabel = "EXPR", description = "Filter expression (docs/FILTERS.md).")
    String filter;

    @Option(names = "--since", paramLabel = "ID", description = "Only flows newer than this id.")
    Long since;

    @Option(names = {"-n", "--limit"}, paramLabel = "N", description = "At most N flows (default 1000).")
    Integer limit;

    @Override
    public Integer call() {
      JsonNode flows = conn.get("/flows", query("filter", filter, "since", since == null ? null : since.toString(),
          "limit", limit == null ? null : limit.toString()));
      return conn.print(flows, out -> CtlOutput.flowTable(out, flows));
    }
  }

  @Command(name = "flow", mixinStandardHelpOptions = true,
      description = "Show one flow: heads, bodies, timings, connections.")
  static final class FlowCmd implements Callable<Integer> {
    @Mixin Conn conn;

    @Parameters(paramLabel = "ID") long id;

    @Option(names = "--max-body", paramLabel = "BYTES", defaultValue = "4096",
        description = "Bytes of each body to print (default ${DEFAULT-VALUE}; --json prints all).")
    int maxBody;

    @Override
    public Integer call() {
      JsonNode f = conn.get("/flows/" + id, Map.of());
      return conn.print(f, out -> CtlOutput.flow(out, f, maxBody));
    }
  }

  @Command(name = "body", mixinStandardHelpOptions = true,
      description = "Write a body to stdout or a file, as bytes (decoded from gzip/deflate unless --raw).")
  static final class BodyCmd implements Callable<Integer> {
    @Mixin Conn conn;

    @Parameters(paramLabel = "ID") long id;

    @Option(names = "--request", description = "The request body (default: the response body).")
    boolean request;

    @Option(names = "--raw", description = "The bytes as on the wire (no gzip/deflate decoding).")
    boolean raw;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write to FILE (readable by you alone).")
    Path output;

    @Override
    public Integer call() throws IOException {
      JsonNode b = conn.get("/flows/" + id + "/body", query("side", request ? "request" : "response",
          "decoded", String.valueOf(!raw), "encoding", "base64"));
      if (conn.json()) {
        return conn.print(b, out -> { });
      }
      byte[] bytes = Base64.getDecoder().decode(b.path("bodyBase64").asText());
      if (output != null) {
        AtomicFiles.write(output, bytes);
        System.err.println(bytes.length + " bytes written to " + output.toAbsolutePath());
      } else {
        System.out.write(bytes);
        System.out.flush();
      }
      return 0;
    }
  }

  @Command(name = "har", mixinStandardHelpOptions = true, description = "Export flows as HAR 1.2 (stdout or a file).")
  static final class Har implements Callable<Integer> {
    @Mixin Conn conn;

    @Option(names = {"-f", "--filter"}, paramLabel = "EXPR", description = "Filter expression.")
    String filter;

    @Option(names = "--since", paramLabel = "ID", description = "Only flows newer than this id.")
    Long since;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE",
        description = "Write to FILE atomically, readable by you alone (default: stdout).")
    Path output;

    @Override
    public Integer call() throws IOException {
      String har = conn.call("GET", "/har", query("filter", filter, "since", since == null ? null : since.toString()),
          null);
      if (output != null) {
        AtomicFiles.write(output, har.getBytes(StandardCharsets.UTF_8));
        System.err.println("HAR written to " + output.toAbsolutePath());
      } else {
        System.out.print(har);
        System.out.flush();
      }
      return 0;
    }
  }

  @Command(name = "replay", mixinStandardHelpOptions = true,
      description = "Send a flow's request again (optionally changed); prints the new flow.")
  static final class Replay implements Callable<Integer> {
    @Mixin Conn conn;
    @Mixin Message message;

    @Parameters(paramLabel = "ID") long id;

    @Option(names = {"-X", "--method"}, paramLabel = "METHOD", description = "A new method.")
    String method;

    @Option(names = "--url", paramLabel = "URL", description = "A new URL.")
    String newUrl;

    @Option(names = "--protocol", paramLabel = "auto|h1|h2|h3", defaultValue = "auto",
        description = "Protocol upstream (default: as the original).")
    String protocol;

    @Option(names = "--no-wait", description = "Answer as soon as the flow exists.")
    boolean noWait;

    @Override
    public Integer call() {
      ObjectNode o = message.into(JSON.createObjectNode());
      if (method != null) {
        o.put("method", method);
      }
      if (newUrl != null) {
        o.put("url", newUrl);
      }
      o.put("protocol", protocol);
      JsonNode f = conn.post("/flows/" + id + "/replay", query("wait", String.valueOf(!noWait)), o);
      return conn.print(f, out -> CtlOutput.flowTable(out, JSON.createArrayNode().add(f)));
    }
  }

  @Command(name = "send", mixinStandardHelpOptions = true, description = "Compose and send a request through Loupe.")
  static final class Send implements Callable<Integer> {
    @Mixin Conn conn;
    @Mixin Message message;

    @Parameters(paramLabel = "URL") String target;

    @Option(names = {"-X", "--method"}, paramLabel = "METHOD", defaultValue = "GET", description = "Method (default GET).")
    String method;

    @Option(names = "--protocol", paramLabel = "auto|h1|h2|h3", defaultValue = "auto", description = "Protocol upstream.")
    String protocol;

    @Option(names = "--no-wait", description = "Answer as soon as the flow exists.")
    boolean noWait;

    @Override
    public Integer call() {
      ObjectNode o = JSON.createObjectNode().put("method", method).put("url", target);
      message.into(o).put("protocol", protocol);
      JsonNode f = conn.post("/compose", query("wait", String.valueOf(!noWait)), o);
      return conn.print(f, out -> CtlOutput.flowTable(out, JSON.createArrayNode().add(f)));
    }
  }

  @Command(name = "ca", mixinStandardHelpOptions = true, description = "The CA certificate clients must trust.")
  static final class Ca implements Callable<Integer> {
    @Mixin Conn conn;

    @Option(names = "--pem", description = "Print the certificate (PEM) only.")
    boolean pem;

    @Override
    public Integer call() {
      JsonNode ca = conn.get("/ca", Map.of());
      if (pem && !conn.json()) {
        System.out.print(ca.path("pem").asText());
        return 0;
      }
      ObjectNode shown = ca.deepCopy();
      shown.remove("pem");
      return conn.print(ca, out -> CtlOutput.keyValues(out, shown));
    }
  }
}
