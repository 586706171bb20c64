package dev.loupe.engine.filter;

/**
 * A typed comparison, {@code field op value}. Subclasses say how the flow's value is read and
 * compared; when the flow has no such value (no response yet, for {@code status}) the comparison is
 * false whatever the operator, {@code !=} included.
 */
abstract class Comparison extends Filter {
  private final String field;
  final Op op;
  private final String literal;

  /**
   * @param literal the value as written, printed back in the normalised form
   */
  Comparison(String field, Op op, String literal) {
    this.field = field;
    this.op = op;
    this.literal = literal;
  }

  @Override
  final void print(StringBuilder out) {
    out.append(field).append(op.symbol);
    Printing.value(out, literal);
  }
}
