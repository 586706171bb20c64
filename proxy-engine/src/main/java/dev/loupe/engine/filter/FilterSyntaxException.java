package dev.loupe.engine.filter;

/**
 * A filter expression that does not parse or does not compile. Carries the 0-based position and
 * length of the offending token so an editor can underline it; {@link #getMessage()} reads
 * "{@code reason at position}", e.g. {@code expected ')' at 12}.
 */
public final class FilterSyntaxException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String reason;
  private final int position;
  private final int length;

  FilterSyntaxException(String reason, int position, int length) {
    super(reason + " at " + position);
    this.reason = reason;
    this.position = position;
    this.length = length;
  }

  /** The problem without its position, e.g. {@code unknown operator ~x}. */
  public String reason() {
    return reason;
  }

  /** 0-based offset of the offending token in the expression (its length when the input ended early). */
  public int position() {
    return position;
  }

  /** Length of the offending token; 0 when something is missing at {@link #position()}. */
  public int length() {
    return length;
  }
}
