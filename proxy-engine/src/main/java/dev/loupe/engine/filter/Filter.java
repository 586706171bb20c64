package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import java.util.function.Predicate;

/**
 * A compiled filter expression: {@code ~d api & ~m POST}, {@code status>=400 | duration>500ms},
 * {@code !~a}. The language is described in {@code docs/FILTERS.md}.
 *
 * <p>A filter is immutable and thread-safe: compile it once with {@link #parse} and call
 * {@link #test} from any thread. Regexes are compiled at parse time; matching reuses per-thread
 * scratch buffers, so a test allocates little or nothing (body matches read at most
 * {@link #BODY_MATCH_LIMIT} bytes of each body).
 *
 * <p>Two filters are {@linkplain #equals equal} when their normalised forms ({@link #toString()})
 * are.
 */
public abstract class Filter implements Predicate<Flow> {
  /** Matches every flow; what an empty expression compiles to. Prints as {@code ~all}. */
  public static final Filter ALL = new Flag(Flag.Kind.ALL);

  /** Bytes of each body (after content decoding) that {@code ~b}, {@code ~bq} and {@code ~bs} look at. */
  public static final int BODY_MATCH_LIMIT = BodyText.LIMIT;

  Filter() {}

  /**
   * Compiles {@code expression}. Blank input gives {@link #ALL}.
   *
   * @throws FilterSyntaxException naming the offending token's position and length
   */
  public static Filter parse(String expression) {
    return new Parser(expression).parse();
  }

  /** Whether {@code flow} matches, judged on what the flow holds at the moment of the call. */
  @Override
  public abstract boolean test(Flow flow);

  /**
   * Whether {@code flow}, of which only the request head is known yet, may still match once its
   * body and response are known: atoms about the request head are decided now, the others count as
   * "maybe". Used to decide, when a request arrives, whether a rule or breakpoint could want it.
   */
  public final boolean couldMatch(Flow flow) {
    return decide(flow) != Tri.NO;
  }

  /** Three-valued result of {@link #decide}. */
  enum Tri {
    NO, YES, MAYBE;

    static Tri of(boolean b) {
      return b ? YES : NO;
    }
  }

  /** Decides on the request head alone; MAYBE (the default) when the answer needs more. */
  Tri decide(Flow flow) {
    return Tri.MAYBE;
  }

  /**
   * Whether this filter looks at nothing but bodies and WebSocket messages: {@code ~b ~bq ~bs}
   * joined by {@code & | !}. A store can then answer it from its body rows with {@link #testBodies}
   * (see {@link BodyScan}) instead of rebuilding each flow.
   */
  boolean bodyOnly() {
    return false;
  }

  /** {@link #test} on a stored flow's bodies and messages; only for {@link #bodyOnly()} filters. */
  boolean testBodies(BodyScan.Bodies flow) {
    throw new UnsupportedOperationException(this + " needs more than bodies");
  }

  /** Appends the normalised form. */
  abstract void print(StringBuilder out);

  /**
   * Appends this filter as a condition over a session store's columns (see {@link FilterSql}); by
   * default none fits, and the atom counts as "true" in a superset to test flow by flow.
   */
  void sql(FilterSql.Builder out) {
    out.inexact();
  }

  /** Binding strength when printed: {@code |} is 1, {@code &} is 2, everything else 3. */
  int precedence() {
    return 3;
  }

  /**
   * The normalised form: operators spaced and explicit ({@code &} for juxtaposition), bare regexes
   * as {@code ~u}, parentheses only where needed. {@code Filter.parse(f.toString())} behaves as
   * {@code f}.
   */
  @Override
  public final String toString() {
    StringBuilder out = new StringBuilder();
    print(out);
    return out.toString();
  }

  @Override
  public final boolean equals(Object o) {
    return o instanceof Filter f && f.toString().equals(toString());
  }

  @Override
  public final int hashCode() {
    return toString().hashCode();
  }
}
