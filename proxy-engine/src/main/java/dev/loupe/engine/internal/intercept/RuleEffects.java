package dev.loupe.engine.internal.intercept;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.RewriteOp;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What each rule action does to a draft. Pure functions (file reads aside). */
final class RuleEffects {
  private RuleEffects() {}

  /** Map Remote: the request sent to the rule's place instead; {@code Host} follows. */
  static RequestDraft mapRemote(RuleAction.MapRemote rule, RequestDraft draft) {
    RequestHead to = new RequestDraft("GET", rule.url(), "HTTP/1.1", Headers.EMPTY, null).toHead();
    RequestHead from = draft.toHead();
    String target;
    if (rule.keepPath()) {
      String prefix = to.path().endsWith("/") ? to.path().substring(0, to.path().length() - 1) : to.path();
      target = prefix + from.target();
    } else {
      target = to.query() == null && from.query() != null ? to.path() + "?" + from.query() : to.target();
    }
    RequestHead sent = new RequestHead(from.method(), to.scheme(), to.host(), to.port(), target, from.httpVersion(),
        from.headers());
    Headers h = draft.headers().contains("host") ? draft.headers().with("Host", sent.authority()) : draft.headers();
    return new RequestDraft(draft.method(), sent.url(), draft.httpVersion(), h, draft.body());
  }

  /** Map Local: the answer from the rule's file or directory (404 page when there is none). */
  static ResponseDraft mapLocal(RuleAction.MapLocal rule, RequestDraft draft) {
    Path base = Path.of(rule.path()).toAbsolutePath().normalize();
    Path file = base;
    if (Files.isDirectory(base)) {
      String path = draft.toHead().path();
      if (!rule.stripPrefix().isEmpty() && path.startsWith(rule.stripPrefix())) {
        path = path.substring(rule.stripPrefix().length());
      }
      String decoded = URLDecoder.decode(path.replace("+", "%2B"), StandardCharsets.UTF_8);
      while (decoded.startsWith("/")) {
        decoded = decoded.substring(1);
      }
      file = base.resolve(decoded).normalize();
      if (!file.startsWith(base)) {
        return ResponseDraft.text(403, "Loupe Map Local: " + path + " is outside " + base + "\n");
      }
      if (Files.isDirectory(file)) {
        file = file.resolve("index.html");
      }
    }
    if (!Files.isRegularFile(file)) {
      return ResponseDraft.text(404, "Loupe Map Local: no file " + file + "\n");
    }
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return ResponseDraft.text(500, "Loupe Map Local: cannot read " + file + ": " + e.getMessage() + "\n");
    }
    return new ResponseDraft(200, "OK", "HTTP/1.1",
        Headers.of("content-type", contentType(file), "cache-control", "no-store"), bytes);
  }

  private static final Map<String, String> TYPES = Map.ofEntries(
      Map.entry("html", "text/html; charset=utf-8"), Map.entry("htm", "text/html; charset=utf-8"),
      Map.entry("json", "application/json"), Map.entry("js", "text/javascript; charset=utf-8"),
      Map.entry("mjs", "text/javascript; charset=utf-8"), Map.entry("css", "text/css; charset=utf-8"),
      Map.entry("txt", "text/plain; charset=utf-8"), Map.entry("xml", "application/xml"),
      Map.entry("svg", "image/svg+xml"), Map.entry("png", "image/png"), Map.entry("jpg", "image/jpeg"),
      Map.entry("jpeg", "image/jpeg"), Map.entry("gif", "image/gif"), Map.entry("webp", "image/webp"),
      Map.entry("ico", "image/x-icon"), Map.entry("woff2", "font/woff2"), Map.entry("wasm", "application/wasm"),
      Map.entry("pdf", "application/pdf"), Map.entry("csv", "text/csv; charset=utf-8"));

  static String contentType(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    String ext = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
    return TYPES.getOrDefault(ext, "application/octet-stream");
  }

  /** The request side of a rewrite; returns {@code draft} itself when nothing changed. */
  static RequestDraft rewriteRequest(RuleAction.Rewrite rule, RequestDraft draft) {
    RequestDraft d = draft;
    for (RewriteOp op : rule.ops()) {
      if (op.side() != RewriteOp.Side.REQUEST) {
        continue;
      }
      d = switch (op.kind()) {
        case SET_HEADER, ADD_HEADER, REMOVE_HEADER -> d.withHeaders(headers(op, d.headers()));
        case REPLACE_URL -> d.withUrl(replace(op, d.url()));
        case REPLACE_QUERY -> {
          RequestHead h = d.toHead();
          if (h.query() == null) {
            yield d;
          }
          String q = replace(op, h.query());
          String url = d.url().substring(0, d.url().indexOf('?')) + (q.isEmpty() ? "" : "?" + q);
          yield d.withUrl(url);
        }
        case REPLACE_BODY -> d.withBody(replace(op, d.bodyText()).getBytes(StandardCharsets.UTF_8));
        case SET_STATUS -> d;
      };
    }
    return d.sameAs(draft) ? draft : d;
  }

  /** The response side of a rewrite; returns {@code draft} itself when nothing changed. */
  static ResponseDraft rewriteResponse(RuleAction.Rewrite rule, ResponseDraft draft) {
    ResponseDraft d = draft;
    for (RewriteOp op : rule.ops()) {
      if (op.side() != RewriteOp.Side.RESPONSE) {
        continue;
      }
      d = switch (op.kind()) {
        case SET_HEADER, ADD_HEADER, REMOVE_HEADER -> d.withHeaders(headers(op, d.headers()));
        case REPLACE_BODY -> d.withBody(replace(op, d.bodyText()).getBytes(StandardCharsets.UTF_8));
        case SET_STATUS -> d.withStatus(Integer.parseInt(op.value().trim()));
        case REPLACE_URL, REPLACE_QUERY -> d;
      };
    }
    return d.sameAs(draft) ? draft : d;
  }

  static boolean hasResponseOps(RuleAction.Rewrite rule) {
    return rule.ops().stream().anyMatch(op -> op.side() == RewriteOp.Side.RESPONSE);
  }

  private static Headers headers(RewriteOp op, Headers h) {
    return switch (op.kind()) {
      case SET_HEADER -> h.with(op.match(), op.value());
      case ADD_HEADER -> h.plus(op.match(), op.value());
      case REMOVE_HEADER -> h.without(op.match());
      default -> h;
    };
  }

  /** Compiled rewrite regexes by source: a rule applies to every matching request, compile it once. */
  private static final java.util.Map<String, Pattern> PATTERNS = new java.util.concurrent.ConcurrentHashMap<>();

  private static Pattern pattern(String regex) {
    Pattern p = PATTERNS.get(regex);
    if (p == null) {
      if (PATTERNS.size() >= 1024) {
        PATTERNS.clear(); // edited rules leave old regexes behind; start over rather than grow
      }
      p = Pattern.compile(regex);
      PATTERNS.put(regex, p);
    }
    return p;
  }

  private static String replace(RewriteOp op, String text) {
    Matcher m = pattern(op.match()).matcher(text);
    try {
      return m.replaceAll(op.value());
    } catch (IllegalArgumentException | IndexOutOfBoundsException badGroup) {
      return m.replaceAll(Matcher.quoteReplacement(op.value()));
    }
  }
}
