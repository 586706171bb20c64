package dev.loupe.ui.flows;

import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Protocols;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One line of the flow table: the columns, read once (from a live flow per UI batch, so the table
 * never touches a flow the engine is still writing, or from a session file's columns), and a way to
 * the whole flow ({@link #flow()}: the live one, or read back from the file when asked).
 *
 * @param summary the columns
 * @param paused  where the flow waits at a breakpoint, or null
 * @param ref     the whole flow
 */
public record FlowRow(FlowSummary summary, Flow.Paused paused, FlowRef ref) {
  public FlowRow {
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(ref, "ref");
  }

  /** The way from a row to its whole flow. */
  public interface FlowRef {
    /** The flow; for a stored one, read from the file (null if it is gone, e.g. the session was cleared). */
    Flow flow();
  }

  /** A flow held in memory. Equal only to a ref of the same flow object. */
  record LiveRef(Flow flow) implements FlowRef {}

  /** The columns of the live flow {@code f} as they are now. */
  public static FlowRow of(Flow f) {
    return new FlowRow(FlowSummary.of(f), f.paused(), new LiveRef(f));
  }

  public long id() {
    return summary.id();
  }

  public Instant time() {
    return summary.startedAt();
  }

  public String method() {
    return summary.method();
  }

  public String host() {
    return summary.host();
  }

  /** The request target; {@code host:port} for a tunnel. */
  public String path() {
    return summary.path();
  }

  /** The final response status, or 0 while there is none. */
  public int status() {
    return summary.status();
  }

  public String contentType() {
    return summary.contentType();
  }

  /** Response body bytes seen (for a tunnel: bytes both ways). */
  public long size() {
    return summary.size();
  }

  /** Total time, or -1 while in flight. */
  public double durationMs() {
    return summary.durationMs();
  }

  /** The client side's protocol, short (h1, h2, h3), or "-". */
  public String clientProto() {
    return Protocols.shortName(summary.clientProtocol());
  }

  /** The server side's protocol, short, or "-". */
  public String serverProto() {
    return Protocols.shortName(summary.serverProtocol());
  }

  public FlowTier tier() {
    return summary.tier();
  }

  public FlowState state() {
    return summary.state();
  }

  /** Whether the flow failed. */
  public boolean error() {
    return summary.error() != null;
  }

  /** What changed the flow (rules, breakpoints); empty when untouched. */
  public List<String> modifiedBy() {
    return summary.modifiedBy();
  }

  /** The flow this one replays, or -1. */
  public long replayOf() {
    return summary.replayOf();
  }

  /** Whether the flow came from a HAR file. */
  public boolean imported() {
    return summary.imported();
  }

  /** Which launched browser or terminal sent the flow, or empty. */
  public String client() {
    return summary.client() == null ? "" : summary.client();
  }

  /** The whole flow (see {@link FlowRef#flow()}). */
  public Flow flow() {
    return ref.flow();
  }

  /** 335 B, 2.0 KiB, 19 MiB: binary units, as the filter language reads them. */
  public static String humanBytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = n;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format(Locale.ROOT, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
  }
}
