package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;

/** {@code tier=relay|full|tunnel} and {@code tier!=...}: how much of the flow the engine decoded. */
final class TierComparison extends Comparison {
  private final FlowTier tier;

  TierComparison(Op op, FlowTier tier, String literal) {
    super("tier", op, literal);
    this.tier = tier;
  }

  @Override
  void sql(FilterSql.Builder out) {
    out.sql("(tier " + (op == Op.EQ ? "=" : "!=") + " ").arg(tier.name()).sql(")");
  }

  @Override
  public boolean test(Flow flow) {
    return (flow.tier() == tier) == (op == Op.EQ);
  }
}
