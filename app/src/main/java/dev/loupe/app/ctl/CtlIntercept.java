package dev.loupe.app.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code loupe ctl} commands for rules, breakpoints and paused flows. */
final class CtlIntercept {
  private CtlIntercept() {}

  /** The JSON of {@code arg}: inline JSON, or {@code @FILE}. */
  static JsonNode json(CtlCommand.Conn conn, String arg) {
    String text = arg;
    if (arg.startsWith("@")) {
      try {
        text = Files.readString(Path.of(arg.substring(1)));
      } catch (IOException e) {
        throw new CtlCommand.Refused("cannot read " + arg.substring(1) + ": " + e.getMessage());
      }
    }
    try {
      return CtlCommand.JSON.readTree(text);
    } catch (IOException e) {
      throw CtlCommand.usage(conn.mixee, "not valid JSON: " + e.getMessage());
    }
  }

  @Command(name = "rules", mixinStandardHelpOptions = true,
      description = "List rules; 'rules add JSON|@FILE', 'rules rm ID', 'rules enable|disable ID'.")
  static final class Rules implements Callable<Integer> {
    @Mixin CtlCommand.Conn conn;

    @Parameters(paramLabel = "ACTION", arity = "0..1", index = "0", description = "list (default), add, rm, enable or disable.")
    String action;

    @Parameters(paramLabel = "ARG", arity = "0..1", index = "1", description = "The rule (JSON or @FILE) or its id.")
    String arg;

    @Override
    public Integer call() {
      return entries(conn, "/rules", "rule", action, arg);
    }
  }

  @Command(name = "breakpoints", mixinStandardHelpOptions = true,
      description = "List breakpoints; 'breakpoints add FILTER [--response] [--no-request]', 'breakpoints rm ID'.")
  static final class Breakpoints implements Callable<Integer> {
    @Mixin CtlCommand.Conn conn;

    @Parameters(paramLabel = "ACTION", arity = "0..1", index = "0", description = "list (default), add, rm, enable or disable.")
    String action;

    @Parameters(paramLabel = "ARG", arity = "0..1", index = "1", description = "The filter (add) or the id.")
    String arg;

    @Option(names = "--response", description = "add: stop responses too.")
    boolean response;

    @Option(names = "--no-request", description = "add: do not stop requests.")
    boolean noRequest;

    @Override
    public Integer call() {
      if ("add".equals(action)) {
        if (arg == null) {
          throw CtlCommand.usage(conn.mixee, "breakpoints add needs a FILTER");
        }
        ObjectNode b = CtlCommand.JSON.createObjectNode().put("filter", arg).put("request", !noRequest)
            .put("response", response);
        JsonNode created = conn.post("/breakpoints", Map.of(), b);
        return conn.print(created, out -> out.println("added breakpoint " + created.path("id").asText()));
      }
      return entries(conn, "/breakpoints", "breakpoint", action, arg);
    }
  }

  private static int entries(CtlCommand.Conn conn, String path, String what, String action, String arg) {
    String a = action == null ? "list" : action;
    if (!a.equals("list") && arg == null) {
      throw CtlCommand.usage(conn.mixee, what + "s " + a + " needs an argument");
    }
    switch (a) {
      case "list" -> {
        JsonNode list = conn.get(path, Map.of());
        return conn.print(list, out -> CtlOutput.entryTable(out, list));
      }
      case "add" -> {
        JsonNode created = conn.post(path, Map.of(), json(conn, arg));
        return conn.print(created, out -> out.println("added " + what + " " + created.path("id").asText()));
      }
      case "rm", "remove" -> {
        conn.call("DELETE", path + "/" + arg, Map.of(), null);
        System.out.println("removed " + what + " " + arg);
        return 0;
      }
      case "enable", "disable" -> {
        JsonNode list = conn.post(path + "/" + arg + "/enable", Map.of(),
            CtlCommand.JSON.createObjectNode().put("enabled", a.equals("enable")));
        return conn.print(list, out -> CtlOutput.entryTable(out, list));
      }
      default -> throw CtlCommand.usage(conn.mixee, "unknown action '" + a + "' (list, add, rm, enable, disable)");
    }
  }

  @Command(name = "paused", mixinStandardHelpOptions = true, description = "List flows paused at a breakpoint.")
  static final class Paused implements Callable<Integer> {
    @Mixin CtlCommand.Conn conn;

    @Override
    public Integer call() {
      JsonNode paused = conn.get("/paused", Map.of());
      return conn.print(paused, out -> CtlOutput.pausedTable(out, paused));
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true,
      description = "Let a paused flow go on, unchanged or with the given edits.")
  static final class Resume implements Callable<Integer> {
    @Mixin CtlCommand.Conn conn;
    @Mixin CtlCommand.Message message;

    @Parameters(paramLabel = "ID") long id;

    @Option(names = {"-X", "--method"}, paramLabel = "METHOD", description = "Request phase: a new method.")
    String method;

    @Option(names = "--url", paramLabel = "URL", description = "Request phase: a new URL.")
    String newUrl;

    @Option(names = "--status", paramLabel = "CODE", description = "Response phase: a new status.")
    Integer status;

    @Override
    public Integer call() {
      ObjectNode o = message.into(CtlCommand.JSON.createObjectNode());
      if (method != null) {
        o.put("method", method);
      }
      if (newUrl != null) {
        o.put("url", newUrl);
      }
      if (status != null) {
        o.put("status", status);
      }
      return released(conn, conn.post("/paused/" + id + "/resume", Map.of(), o.isEmpty() ? null : o));
    }
  }

  @Command(name = "abort", mixinStandardHelpOptions = true, description = "Abort a paused flow (the client's connection or stream is reset).")
  static final class Abort implements Callable<Integer> {
    @Mixin CtlCommand.Conn conn;

    @Parameters(paramLabel = "ID") long id;

    @Override
    public Integer call() {
      return released(conn, conn.post("/paused/" + id + "/abort", Map.of(), null));
    }
  }

  @Command(name = "answer", mixinStandardHelpOptions = true,
      description = "Answer a paused flow's client without (further) contacting the server.")
  static final class Answer implements Callable<Integer> {
    @Mixin CtlCommand.Conn conn;
    @Mixin CtlCommand.Message message;

    @Parameters(paramLabel = "ID") long id;

    @Option(names = "--status", paramLabel = "CODE", defaultValue = "200", description = "Status (default 200).")
    int status;

    @Override
    public Integer call() {
      ObjectNode o = message.into(CtlCommand.JSON.createObjectNode().put("status", status));
      return released(conn, conn.post("/paused/" + id + "/answer", Map.of(), o));
    }
  }

  private static int released(CtlCommand.Conn conn, JsonNode r) {
    return conn.print(r, out -> out.println(r.path("released").asText() + ": flow " + r.path("flowId").asText()));
  }
}
