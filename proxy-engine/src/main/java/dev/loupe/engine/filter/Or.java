package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import java.util.ArrayList;
import java.util.List;

/** Any operand matches ({@code a | b}). Nested ors are flattened. */
final class Or extends Filter {
  private final Filter[] operands;

  private Or(Filter[] operands) {
    this.operands = operands;
  }

  /** The disjunction of {@code filters}: the filter itself when there is one. */
  static Filter of(List<Filter> filters) {
    if (filters.size() == 1) {
      return filters.get(0);
    }
    List<Filter> flat = new ArrayList<>(filters.size());
    for (Filter f : filters) {
      if (f instanceof Or o) {
        flat.addAll(List.of(o.operands));
      } else {
        flat.add(f);
      }
    }
    return new Or(flat.toArray(Filter[]::new));
  }

  List<Filter> operands() {
    return List.of(operands);
  }

  @Override
  public boolean test(Flow flow) {
    for (Filter f : operands) {
      if (f.test(flow)) {
        return true;
      }
    }
    return false;
  }

  @Override
  boolean bodyOnly() {
    for (Filter f : operands) {
      if (!f.bodyOnly()) {
        return false;
      }
    }
    return true;
  }

  @Override
  boolean testBodies(BodyScan.Bodies flow) {
    for (Filter f : operands) {
      if (f.testBodies(flow)) {
        return true;
      }
    }
    return false;
  }

  @Override
  Tri decide(Flow flow) {
    Tri out = Tri.NO;
    for (Filter f : operands) {
      Tri t = f.decide(flow);
      if (t == Tri.YES) {
        return Tri.YES;
      }
      if (t == Tri.MAYBE) {
        out = Tri.MAYBE;
      }
    }
    return out;
  }

  @Override
  int precedence() {
    return 1;
  }

  @Override
  void sql(FilterSql.Builder out) {
    out.join(List.of(operands), "OR");
  }

  @Override
  void print(StringBuilder out) {
    Printing.join(out, operands, " | ", precedence());
  }
}
