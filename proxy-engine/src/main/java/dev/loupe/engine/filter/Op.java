package dev.loupe.engine.filter;

/** The operators of typed comparisons, e.g. the {@code >=} in {@code status>=400}. */
enum Op {
  EQ("="),
  NE("!="),
  LT("<"),
  LE("<="),
  GT(">"),
  GE(">="),
  /** Regex search, {@code host*=}. */
  MATCHES("*=");

  final String symbol;

  Op(String symbol) {
    this.symbol = symbol;
  }

  /** Whether this ordering operator accepts {@code a} against {@code b}. Not for {@link #MATCHES}. */
  boolean holds(long a, long b) {
    return switch (this) {
      case EQ -> a == b;
      case NE -> a != b;
      case LT -> a < b;
      case LE -> a <= b;
      case GT -> a > b;
      case GE -> a >= b;
      case MATCHES -> throw new AssertionError("*= is not an ordering");
    };
  }

  /**
   * The operator at {@code text[at]}, longest first ({@code >=} before {@code >}), or null.
   */
  static Op at(String text, int at) {
    Op best = null;
    for (Op op : values()) {
      if (text.startsWith(op.symbol, at) && (best == null || op.symbol.length() > best.symbol.length())) {
        best = op;
      }
    }
    return best;
  }
}
