package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;

/** The operand does not match ({@code !a}). */
final class Not extends Filter {
  private final Filter operand;

  Not(Filter operand) {
    this.operand = operand;
  }

  Filter operand() {
    return operand;
  }

  @Override
  public boolean test(Flow flow) {
    return !operand.test(flow);
  }

  @Override
  boolean bodyOnly() {
    return operand.bodyOnly();
  }

  @Override
  boolean testBodies(BodyScan.Bodies flow) {
    return !operand.testBodies(flow);
  }

  @Override
  Tri decide(Flow flow) {
    return switch (operand.decide(flow)) {
      case YES -> Tri.NO;
      case NO -> Tri.YES;
      case MAYBE -> Tri.MAYBE;
    };
  }

  @Override
  void sql(FilterSql.Builder out) {
    out.not(operand);
  }

  @Override
  void print(StringBuilder out) {
    out.append('!');
    Printing.operand(out, operand, precedence());
  }
}
