package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;

/**
 * {@code proto}, {@code proto.client} and {@code proto.server} with {@code =} or {@code !=}.
 * {@code proto=h2} holds when either side spoke HTTP/2; {@code proto!=h2} when at least one side is
 * known and none spoke it.
 */
final class ProtocolComparison extends Comparison {
  /** Which leg's protocol is compared. */
  enum Leg {
    EITHER("proto"),
    CLIENT("proto.client"),
    SERVER("proto.server");

    final String field;

    Leg(String field) {
      this.field = field;
    }
  }

  private final Leg leg;
  private final Protocol protocol;

  ProtocolComparison(Leg leg, Op op, Protocol protocol, String literal) {
    super(leg.field, op, literal);
    this.leg = leg;
    this.protocol = protocol;
  }

  @Override
  Tri decide(Flow flow) {
    return leg == Leg.CLIENT && flow.clientProtocol() != null ? Tri.of(test(flow)) : Tri.MAYBE;
  }

  @Override
  void sql(FilterSql.Builder out) {
    String client = leg == Leg.SERVER ? null : "client_proto";
    String server = leg == Leg.CLIENT ? null : "server_proto";
    out.sql("((");
    out.sql(client == null ? "0" : client + " IS NOT NULL").sql(" OR ").sql(server == null ? "0" : server + " IS NOT NULL");
    out.sql(") AND (");
    if (client != null) {
      out.sql("COALESCE(");
      out.covers(client, protocol);
      out.sql(", 0)");
    } else {
      out.sql("0");
    }
    out.sql(" OR ");
    if (server != null) {
      out.sql("COALESCE(");
      out.covers(server, protocol);
      out.sql(", 0)");
    } else {
      out.sql("0");
    }
    out.sql(") = " + (op == Op.EQ ? 1 : 0) + ")");
  }

  @Override
  public boolean test(Flow flow) {
    String client = leg == Leg.SERVER ? null : flow.clientProtocol();
    String server = leg == Leg.CLIENT ? null : flow.serverProtocol();
    if (client == null && server == null) {
      return false;
    }
    boolean spoken = (client != null && protocol.covers(client)) || (server != null && protocol.covers(server));
    return spoken == (op == Op.EQ);
  }
}
