package dev.loupe.engine.api.session.model;

import java.util.Comparator;

/**
 * What the flow table is sorted by. The store sorts by the same value ({@link #column()}, ties
 * broken by id) as {@link #comparator()} does for flows still in memory, so a view merges both.
 * Text sorts by character code, not by language rules; the type column by the whole Content-Type
 * value in the store, so flows differing only in its parameters may interleave.
 */
public enum SortKey {
  ID("id", Comparator.comparingLong(FlowSummary::id)),
  TIME("started", Comparator.comparing(FlowSummary::startedAt)),
  METHOD("method", Comparator.comparing(FlowSummary::method)),
  HOST("host", Comparator.comparing(FlowSummary::host)),
  PATH("target", Comparator.comparing(FlowSummary::path)),
  STATUS("status", Comparator.comparingInt(FlowSummary::status)),
  TYPE("res_type", Comparator.comparing(FlowSummary::contentType)),
  SIZE("(CASE WHEN tier = 'TUNNEL' THEN tunnel_up + tunnel_down ELSE coalesce(res_size, 0) END)",
      Comparator.comparingLong(FlowSummary::size)),
  DURATION("total_ms", Comparator.comparingDouble(FlowSummary::durationMs)),
  PROTOCOL("client_proto", Comparator.comparing(s -> s.clientProtocol() == null ? "" : s.clientProtocol())),
  TIER("tier", Comparator.comparing(s -> s.tier().name()));

  private final String column;
  private final Comparator<FlowSummary> comparator;

  SortKey(String column, Comparator<FlowSummary> comparator) {
    this.column = column;
    this.comparator = comparator;
  }

  /** The store column (an SQL expression) sorted on. */
  public String column() {
    return column;
  }

  /** Ascending order by this key, ties by id. */
  public Comparator<FlowSummary> comparator() {
    return this == ID ? comparator : comparator.thenComparingLong(FlowSummary::id);
  }
}
