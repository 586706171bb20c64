package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.RequestHead;

/** {@code method} or {@code host} equal ({@code =}) or not ({@code !=}) to a word, ignoring case. */
final class TextComparison extends Comparison {
  /** Which part of the request is compared. */
  enum Field {
    METHOD("method"),
    HOST("host");

    final String name;

    Field(String name) {
      this.name = name;
    }
  }

  private final Field field;
  private final String value;

  TextComparison(Field field, Op op, String value) {
    super(field.name, op, value);
    this.field = field;
    this.value = value;
  }

  @Override
  Tri decide(Flow flow) {
    return Tri.of(test(flow));
  }

  @Override
  void sql(FilterSql.Builder out) {
    String column = field == Field.METHOD ? "method" : "host";
    if (op == Op.NE) {
      out.sql("(" + column + " IS NOT NULL AND NOT ");
      out.equalsIgnoreCase(column, value);
      out.sql(")");
    } else {
      out.equalsIgnoreCase(column, value);
    }
  }

  @Override
  public boolean test(Flow flow) {
    RequestHead request = flow.request();
    if (request == null) {
      return false;
    }
    String actual = field == Field.METHOD ? request.method() : request.host();
    return actual.equalsIgnoreCase(value) == (op == Op.EQ);
  }
}
