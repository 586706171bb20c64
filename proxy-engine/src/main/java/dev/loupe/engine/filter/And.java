package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import java.util.ArrayList;
import java.util.List;

/** All operands match ({@code a & b}, or {@code a b}). Nested ands are flattened. */
final class And extends Filter {
  private final Filter[] operands;

  private And(Filter[] operands) {
    this.operands = operands;
  }

  /** The conjunction of {@code filters}: the filter itself when there is one. */
  static Filter of(List<Filter> filters) {
    if (filters.size() == 1) {
      return filters.get(0);
    }
    List<Filter> flat = new ArrayList<>(filters.size());
    for (Filter f : filters) {
      if (f instanceof And a) {
        flat.addAll(List.of(a.operands));
      } else {
        flat.add(f);
      }
    }
    return new And(flat.toArray(Filter[]::new));
  }

  List<Filter> operands() {
    return List.of(operands);
  }

  @Override
  public boolean test(Flow flow) {
    for (Filter f : operands) {
      if (!f.test(flow)) {
        return false;
      }
    }
    return true;
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
      if (!f.testBodies(flow)) {
        return false;
      }
    }
    return true;
  }

  @Override
  Tri decide(Flow flow) {
    Tri out = Tri.YES;
    for (Filter f : operands) {
      Tri t = f.decide(flow);
      if (t == Tri.NO) {
        return Tri.NO;
      }
      if (t == Tri.MAYBE) {
        out = Tri.MAYBE;
      }
    }
    return out;
  }

  @Override
  int precedence() {
    return 2;
  }

  @Override
  void sql(FilterSql.Builder out) {
    out.join(List.of(operands), "AND");
  }

  @Override
  void print(StringBuilder out) {
    Printing.join(out, operands, " & ", precedence());
  }
}
