package dev.loupe.engine.api.intercept;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * What a {@link Rule} does to the flows its filter matches. In JSON each action is an object with a
 * {@code "type"}: {@code mapLocal}, {@code mapRemote}, {@code rewrite}, {@code block}, {@code throttle}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = RuleAction.MapLocal.class, name = "mapLocal"),
    @JsonSubTypes.Type(value = RuleAction.MapRemote.class, name = "mapRemote"),
    @JsonSubTypes.Type(value = RuleAction.Rewrite.class, name = "rewrite"),
    @JsonSubTypes.Type(value = RuleAction.Block.class, name = "block"),
    @JsonSubTypes.Type(value = RuleAction.Throttle.class, name = "throttle")})
public sealed interface RuleAction {

  /** Checks the action's own fields; throws {@link IllegalArgumentException} naming the problem. */
  void validate();

  /** A short description for lists, e.g. {@code Map Local → /srv/mock}. */
  String describe();

  /**
   * Answer matching requests from a local file, or from a directory: the request path (after
   * {@code stripPrefix}, if it starts with it) is resolved inside it ({@code index.html} for a
   * directory); a path that escapes the directory or does not exist gets a 404. The content type
   * comes from the file name. The origin is not contacted.
   *
   * @param path        a file or directory
   * @param stripPrefix for directories: a URL path prefix to remove first (e.g. {@code /static}); may be empty
   */
  record MapLocal(String path, String stripPrefix) implements RuleAction {
    public MapLocal {
      stripPrefix = stripPrefix == null ? "" : stripPrefix;
    }

    @Override
    public void validate() {
      if (path == null || path.isBlank()) {
        throw new IllegalArgumentException("Map Local needs a file or directory");
      }
    }

    @Override
    public String describe() {
      return "Map Local → " + path;
    }
  }

  /**
   * Send matching requests to another place. {@code url} gives the new scheme, host and port, and a
   * path prefix: with {@code keepPath} the request's own path and query are appended to that prefix
   * ({@code https://staging:8443/v2} turns {@code /users?id=1} into {@code /v2/users?id=1}); without
   * it the request goes to {@code url} exactly (keeping the request's query when {@code url} has none).
   * The {@code Host} header follows.
   */
  record MapRemote(String url, boolean keepPath) implements RuleAction {
    @Override
    public void validate() {
      if (url == null || url.isBlank()) {
        throw new IllegalArgumentException("Map Remote needs a URL");
      }
      new RequestDraft("GET", url, "HTTP/1.1", dev.loupe.engine.flow.Headers.EMPTY, null).toHead();
    }

    @Override
    public String describe() {
      return "Map Remote → " + url + (keepPath ? " (+ path)" : "");
    }
  }

  /** Change headers, URL, query, body or status, in the order of {@code ops}. */
  record Rewrite(List<RewriteOp> ops) implements RuleAction {
    public Rewrite {
      ops = ops == null ? List.of() : List.copyOf(ops);
    }

    @Override
    public void validate() {
      if (ops.isEmpty()) {
        throw new IllegalArgumentException("Rewrite needs at least one change");
      }
      ops.forEach(RewriteOp::validate);
    }

    @Override
    public String describe() {
      StringBuilder sb = new StringBuilder("Rewrite: ");
      for (int i = 0; i < ops.size(); i++) {
        sb.append(i == 0 ? "" : "; ").append(ops.get(i).describe());
      }
      return sb.toString();
    }
  }

  /**
   * Stop matching requests: answer with {@code status} ({@link Mode#RESPOND}), close the connection
   * ({@link Mode#CLOSE}; on HTTP/2 and HTTP/3 the stream is reset with CANCEL), or reset it
   * ({@link Mode#RESET}: TCP RST on HTTP/1.x, RST_STREAM REFUSED_STREAM / H3_REQUEST_REJECTED).
   */
  record Block(Mode mode, int status) implements RuleAction {
    /** How a request is blocked. */
    public enum Mode { RESPOND, CLOSE, RESET }

    public Block {
      mode = mode == null ? Mode.RESPOND : mode;
      status = status == 0 ? 403 : status;
    }

    @Override
    public void validate() {
      if (mode == Mode.RESPOND && (status < 200 || status > 599)) {
        throw new IllegalArgumentException("Block status must be 200..599, got " + status);
      }
    }

    @Override
    public String describe() {
      return switch (mode) {
        case RESPOND -> "Block with " + status;
        case CLOSE -> "Block: close";
        case RESET -> "Block: reset";
      };
    }
  }

  /**
   * Slow matching flows down: request and response bodies flow at most {@code bytesPerSecond}
   * (0: unlimited) each way, and {@code latencyMillis} is added before the request goes upstream and
   * before the response goes back.
   */
  record Throttle(long bytesPerSecond, long latencyMillis) implements RuleAction {
    @Override
    public void validate() {
      if (bytesPerSecond < 0 || latencyMillis < 0) {
        throw new IllegalArgumentException("Throttle rate and latency must not be negative");
      }
      if (bytesPerSecond == 0 && latencyMillis == 0) {
        throw new IllegalArgumentException("Throttle needs a rate or a latency");
      }
      if (bytesPerSecond > 0 && bytesPerSecond < 64) {
        throw new IllegalArgumentException("Throttle rate must be at least 64 bytes/s");
      }
    }

    @Override
    public String describe() {
      return "Throttle " + (bytesPerSecond == 0 ? "" : dev.loupe.engine.api.util.ByteSizes.format(bytesPerSecond) + "/s")
          + (latencyMillis == 0 ? "" : (bytesPerSecond == 0 ? "" : " + ") + latencyMillis + " ms");
    }
  }
}
