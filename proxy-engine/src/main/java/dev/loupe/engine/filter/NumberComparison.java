package dev.loupe.engine.filter;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.Timings;

/** {@code status port size reqsize duration} against a number, with any of {@code = != < <= > >=}. */
final class NumberComparison extends Comparison {
  /** What is compared; {@link #ABSENT} when the flow does not have it. */
  enum Quantity {
    /** The final response's status code. */
    STATUS("status") {
      @Override
      long of(Flow flow) {
        ResponseHead response = flow.response();
        return response == null ? ABSENT : response.status();
      }
    },
    /** The origin port of the request. */
    PORT("port") {
      @Override
      long of(Flow flow) {
        RequestHead request = flow.request();
        return request == null ? ABSENT : request.port();
      }
    },
    /** Response body bytes seen on the wire (after transfer decoding, before content decoding). */
    SIZE("size") {
      @Override
      long of(Flow flow) {
        return flow.response() == null ? ABSENT : flow.responseBody().size();
      }
    },
    /** Request body bytes seen on the wire. */
    REQUEST_SIZE("reqsize") {
      @Override
      long of(Flow flow) {
        return flow.request() == null ? ABSENT : flow.requestBody().size();
      }
    },
    /** Nanoseconds from the request head arriving to the response ending. */
    DURATION("duration") {
      @Override
      long of(Flow flow) {
        Timings t = flow.timings();
        long start = t.requestStartNanos();
        long end = t.responseEndNanos();
        return start == 0 || end == 0 || end - start < 0 ? ABSENT : end - start;
      }
    };

    static final long ABSENT = -1;

    final String field;

    Quantity(String field) {
      this.field = field;
    }

    abstract long of(Flow flow);
  }

  private final Quantity quantity;
  private final long value;

  NumberComparison(Quantity quantity, Op op, long value, String literal) {
    super(quantity.field, op, literal);
    this.quantity = quantity;
    this.value = value;
  }

  @Override
  Tri decide(Flow flow) {
    return quantity == Quantity.PORT ? Tri.of(test(flow)) : Tri.MAYBE;
  }

  @Override
  void sql(FilterSql.Builder out) {
    String column = switch (quantity) {
      case STATUS -> "status";
      case PORT -> "port";
      case SIZE -> "res_size";
      case REQUEST_SIZE -> "req_size";
      case DURATION -> "duration";
    };
    out.present(column).sql(column + " " + FilterSql.Builder.sqlOp(op) + " ").arg(value).sql(")");
  }

  @Override
  public boolean test(Flow flow) {
    long actual = quantity.of(flow);
    return actual != Quantity.ABSENT && op.holds(actual, value);
  }
}
