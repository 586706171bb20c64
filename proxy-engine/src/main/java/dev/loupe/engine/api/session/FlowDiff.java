package dev.loupe.engine.api.session;

import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.FlowDigest;
import java.util.List;
import java.util.Objects;

/**
 * One line of a session diff: a flow only in B ({@link Kind#ADDED}), only in A
 * ({@link Kind#REMOVED}), or matched in both and different ({@link Kind#CHANGED}, with what
 * changed). Matched flows that do not differ are only counted ({@link DiffSummary#unchanged()}).
 *
 * @param key        what the flow was matched by ({@link DiffOptions#key})
 * @param occurrence which flow with that key this is, from 1 (the second {@code GET /a} is 2)
 * @param a          the flow in A, or null when added
 * @param b          the flow in B, or null when removed
 * @param changes    what differs, in a fixed order (status, failure, request headers, request body,
 *                   response headers, response body, WebSocket message counts and messages, time);
 *                   empty unless changed
 */
public record FlowDiff(Kind kind, String key, int occurrence, Side a, Side b, List<Change> changes) {
  /** Added, removed or changed. */
  public enum Kind {
    ADDED, REMOVED, CHANGED;

    /** {@code added}, as in reports. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** What may differ between two matched flows. */
  public enum Aspect {
    STATUS("status"), ERROR("error"), REQUEST_HEADER("requestHeader"), REQUEST_BODY("requestBody"),
    RESPONSE_HEADER("responseHeader"), RESPONSE_BODY("responseBody"),
    /** How many messages one direction of a WebSocket carried; the name is the direction. */
    WEBSOCKET_COUNT("webSocketCount"),
    /** One WebSocket message; the name is its direction and place ({@code client→server #3}). */
    WEBSOCKET_MESSAGE("webSocketMessage"),
    TIMING("timing");

    private final String label;

    Aspect(String label) {
      this.label = label;
    }

    /** {@code requestHeader}, as in the JSON report. */
    public String label() {
      return label;
    }
  }

  /**
   * One difference.
   *
   * @param name   the header's name (lower case) for header changes; the direction
   *               ({@code client→server}, {@code server→client}) for WebSocket counts, and the
   *               direction and place ({@code client→server #3}) for WebSocket messages; else null
   * @param before the value in A, or null when absent there
   * @param after  the value in B, or null when absent there
   */
  public record Change(Aspect aspect, String name, String before, String after) {
    public Change {
      Objects.requireNonNull(aspect, "aspect");
    }

    @Override
    public String toString() {
      String what = name == null ? aspect.label() : aspect.label() + " " + name;
      return what + ": " + (before == null ? "(none)" : before) + " → " + (after == null ? "(none)" : after);
    }
  }

  /**
   * A flow as the diff shows it.
   *
   * @param status     0 without a response
   * @param durationMs -1 when unknown
   */
  public record Side(long id, String method, String url, int status, double durationMs) {
    public static Side of(FlowDigest d) {
      return new Side(d.id(), d.method(), d.url(), d.status(), d.durationMs());
    }
  }

  public FlowDiff {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    changes = List.copyOf(changes);
    if ((kind == Kind.ADDED) != (a == null) || (kind == Kind.REMOVED) != (b == null)) {
      throw new IllegalArgumentException(kind + " with a=" + a + ", b=" + b);
    }
  }

  /** B's total time minus A's, in ms; NaN unless both are known. */
  public double timingDeltaMs() {
    return a == null || b == null || a.durationMs() < 0 || b.durationMs() < 0 ? Double.NaN
        : b.durationMs() - a.durationMs();
  }

  /** Whether a change of {@code aspect} is among {@link #changes()}. */
  public boolean has(Aspect aspect) {
    for (Change c : changes) {
      if (c.aspect() == aspect) {
        return true;
      }
    }
    return false;
  }

  /** The flow this line is about in A, else in B. */
  public Side either() {
    return a != null ? a : b;
  }
}
