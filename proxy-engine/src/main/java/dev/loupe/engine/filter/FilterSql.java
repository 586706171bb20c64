package dev.loupe.engine.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * A filter as an SQL condition over a session store's {@code flow} table, so the store answers it
 * with its indexes instead of rebuilding every flow.
 *
 * <h3>Exact or a superset</h3>
 * Atoms about columns the table keeps (method, host, URL, port, status, content types, sizes,
 * duration, protocols, tier, error, WebSocket) translate exactly. The others (headers, bodies)
 * translate to "true": the condition then selects a superset, {@link #exact()} is false, and the
 * caller must test {@link Filter#test} on each candidate flow. {@code !} and {@code |} over an
 * inexact operand become "true" as a whole, so the superset rule holds at every level.
 *
 * <h3>Same answers as {@link Filter#test}</h3>
 * Every exact atom is two-valued (never SQL NULL), so {@code !} negates it as the filter does: a
 * comparison on a value the flow lacks is false whatever the operator. Case-insensitive text tests
 * use SQLite's ASCII folding ({@code LIKE}, {@code COLLATE NOCASE}) for ASCII values and fall back to
 * the Java rules ({@link #FUNCTIONS}) only for values with other characters, where Java folds
 * Unicode case (the Kelvin sign is a {@code k}) and SQLite does not.
 *
 * <h3>Flows that never ended</h3>
 * A row still marked in flight ({@code state = 0}) that is read back from a file belongs to a Loupe
 * that stopped before the flow ended; it reads back as failed, and {@code ~e} counts it so. (Flows
 * really in flight are held in memory and matched there.)
 *
 * <h3>The columns</h3>
 * {@code method host port url status req_type res_type req_size res_size duration client_proto
 * server_proto tier error_kind state websocket client}: see the session store's schema. Content-type columns hold
 * every Content-Type value of the message, joined by a line feed. The condition calls the functions
 * named in {@link #FUNCTIONS}, which the store registers on its connections.
 *
 * <p>Immutable; {@link #of} is thread-safe.
 */
public final class FilterSql {
  /**
   * SQL functions the conditions use, implemented by {@link #call}: {@code loupe_find(regex, text)}
   * (a head atom's case-insensitive search, each line of {@code text} on its own),
   * {@code loupe_eqic(a, b)} ({@link String#equalsIgnoreCase}), {@code loupe_asset(types)} (the
   * {@code ~a} media types).
   */
  public static final List<String> FUNCTIONS = List.of("loupe_find", "loupe_eqic", "loupe_asset");

  /** A value with a character outside printable ASCII: the Java fallback decides. */
  private static final String NON_ASCII = " GLOB '*[^ -~]*'";

  private final String where;
  private final List<Object> arguments;
  private final boolean exact;
  private final boolean needsBodies;

  private FilterSql(String where, List<Object> arguments, boolean exact, boolean needsBodies) {
    this.where = where;
    this.arguments = List.copyOf(arguments);
    this.exact = exact;
    this.needsBodies = needsBodies;
  }

  /** Translates {@code filter}. */
  public static FilterSql of(Filter filter) {
    Builder b = new Builder();
    filter.sql(b);
    return new FilterSql(b.sql.toString(), b.arguments, b.exact, b.needsBodies);
  }

  /** The condition, with {@code ?} for each of {@link #arguments()}. */
  public String where() {
    return where;
  }

  /** The values of the condition's {@code ?}, in order (String or Long). */
  public List<Object> arguments() {
    return arguments;
  }

  /** Whether the condition selects exactly the matching flows (else a superset to test one by one). */
  public boolean exact() {
    return exact;
  }

  /** Whether testing a candidate needs its bodies and WebSocket messages ({@code ~b ~bq ~bs}). */
  public boolean needsBodies() {
    return needsBodies;
  }

  @Override
  public String toString() {
    return where + " " + arguments + (exact ? "" : " (superset)");
  }

  // ---- the functions ---------------------------------------------------------------------------

  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  /**
   * Runs SQL function {@code name} (one of {@link #FUNCTIONS}) on {@code args}: 1 for true, 0 for
   * false. A null text is false.
   */
  public static int call(String name, String... args) {
    return switch (name) {
      case "loupe_find" -> args[1] != null && findInLines(args[0], args[1]) ? 1 : 0;
      case "loupe_eqic" -> args[0] != null && args[1] != null && args[0].equalsIgnoreCase(args[1]) ? 1 : 0;
      case "loupe_asset" -> args[0] != null && anyAsset(args[0]) ? 1 : 0;
      default -> throw new IllegalArgumentException("no SQL function " + name);
    };
  }

  private static boolean findInLines(String regex, String text) {
    if (PATTERNS.size() > 256) {
      PATTERNS.clear(); // a filter bar's worth of recent regexes; recompiling is cheap
    }
    Pattern p = PATTERNS.computeIfAbsent(regex,
        r -> Pattern.compile(r, Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE));
    Literal literal = Literal.of(regex, true);
    for (String line : text.split("\n", -1)) {
      if (literal != null ? literal.inText(line) : p.matcher(line).find()) {
        return true;
      }
    }
    return false;
  }

  private static boolean anyAsset(String types) {
    for (String t : types.split("\n", -1)) {
      if (Flag.isAsset(t)) {
        return true;
      }
    }
    return false;
  }

  // ---- building --------------------------------------------------------------------------------

  /** Collects one condition; atoms append to it through {@link Filter#sql}. */
  static final class Builder {
    final StringBuilder sql = new StringBuilder();
    final List<Object> arguments = new ArrayList<>();
    boolean exact = true;
    boolean needsBodies;

    /** Appends SQL text. */
    Builder sql(String text) {
      sql.append(text);
      return this;
    }

    /** Appends a {@code ?} bound to {@code value}. */
    Builder arg(Object value) {
      sql.append('?');
      arguments.add(value);
      return this;
    }

    /** The atom has no column: "true", and the whole condition is a superset. */
    void inexact() {
      sql.append('1');
      exact = false;
    }

    /** {@code nonNull} guards the column: {@code (column IS NOT NULL AND condition)}. */
    Builder present(String column) {
      return sql("(" + column + " IS NOT NULL AND ");
    }

    /**
     * A case-insensitive search of {@code regex} in {@code column}, as {@link RegexAtom} does: LIKE
     * for a plain ASCII word on ASCII values, the Java regex otherwise.
     */
    void find(String column, String regex) {
      Literal literal = Literal.of(regex, true);
      present(column);
      if (literal != null && regex.indexOf('\n') < 0) {
        sql("((NOT " + column + NON_ASCII + " AND " + column + " LIKE ").arg("%" + likeEscape(regex) + "%")
            .sql(" ESCAPE '\\') OR (" + column + NON_ASCII + " AND loupe_find(").arg(regex).sql(", " + column + "))))");
      } else {
        sql("loupe_find(").arg(regex).sql(", " + column + "))");
      }
    }

    /** {@code column} equals {@code value} ignoring case, as {@link String#equalsIgnoreCase} does. */
    void equalsIgnoreCase(String column, String value) {
      present(column);
      sql("(" + column + " = ").arg(value).sql(" COLLATE NOCASE OR ((" + column + NON_ASCII + " OR ")
          .arg(value).sql(NON_ASCII + ") AND loupe_eqic(" + column + ", ").arg(value).sql("))))");
    }

    /** {@code ~a}: a response Content-Type naming a script, style sheet, image or font. */
    void asset(String column) {
      StringBuilder like = new StringBuilder();
      for (String type : Flag.ASSET_TYPES) {
        like.append(like.length() == 0 ? "" : " OR ").append("ltrim(" + column + ", ' ') LIKE '" + type + "%'");
      }
      present(column).sql("((NOT " + column + NON_ASCII + " AND (" + like + ")) OR (" + column + NON_ASCII
          + " AND loupe_asset(" + column + "))))");
    }

    /** Lower-cases an ASCII protocol column for comparison with {@code Protocol}'s names. */
    void covers(String column, Protocol protocol) {
      String c = "lower(" + column + ")";
      switch (protocol) {
        case H1 -> sql("(" + c + " LIKE 'http/1.%' OR " + c + " = 'h1')");
        case HTTP_1_0 -> sql("(" + c + " = 'http/1.0')");
        case HTTP_1_1 -> sql("(" + c + " = 'http/1.1')");
        case H2 -> sql("(" + c + " IN ('http/2', 'http/2.0', 'h2', 'h2c'))");
        case H3 -> sql("(" + c + " IN ('http/3', 'http/3.0', 'h3'))");
      }
    }

    static String likeEscape(String s) {
      StringBuilder out = new StringBuilder(s.length() + 4);
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c == '%' || c == '_' || c == '\\') {
          out.append('\\');
        }
        out.append(c);
      }
      return out.toString();
    }

    static String sqlOp(Op op) {
      return switch (op) {
        case EQ -> "=";
        case NE -> "!=";
        case LT -> "<";
        case LE -> "<=";
        case GT -> ">";
        case GE -> ">=";
        case MATCHES -> throw new AssertionError("*= is a regex");
      };
    }

    /** Translates {@code operands} joined by {@code op} ({@code AND}/{@code OR}). */
    void join(List<Filter> operands, String op) {
      boolean or = op.equals("OR");
      int start = sql.length();
      int argStart = arguments.size();
      boolean wasExact = exact;
      exact = true;
      sql.append('(');
      for (int i = 0; i < operands.size(); i++) {
        if (i > 0) {
          sql.append(' ').append(op).append(' ');
        }
        operands.get(i).sql(this);
      }
      sql.append(')');
      if (or && !exact) {
        // one inexact operand may match anything: the disjunction as a whole is "true"
        sql.setLength(start);
        arguments.subList(argStart, arguments.size()).clear();
        sql.append('1');
      }
      exact &= wasExact;
    }

    /** {@code !operand}: exact only when the operand is. */
    void not(Filter operand) {
      int start = sql.length();
      int argStart = arguments.size();
      boolean wasExact = exact;
      exact = true;
      sql.append("(NOT ");
      operand.sql(this);
      sql.append(')');
      if (!exact) {
        sql.setLength(start);
        arguments.subList(argStart, arguments.size()).clear();
        sql.append('1');
      }
      exact &= wasExact;
    }
  }
}
