package dev.loupe.engine.filter;

import dev.loupe.engine.flow.FlowTier;
import java.util.List;
import java.util.Locale;

/** The names of typed comparisons ({@code status}, {@code size}, ...) and how each compiles. */
final class Fields {
  /** Every field, in the order error messages list them. */
  static final List<String> NAMES = List.of(
      "status", "size", "reqsize", "duration", "port", "method", "host", "proto", "proto.client", "proto.server",
      "tier");

  private Fields() {}

  static boolean isField(String name) {
    return NAMES.contains(name);
  }

  /** Whether field {@code name} takes {@code op}: ordering only for numbers, {@code *=} only for host. */
  static boolean accepts(String name, Op op) {
    if (op == Op.EQ || op == Op.NE) {
      return true;
    }
    if (op == Op.MATCHES) {
      return name.equals("host");
    }
    return numeric(name) != null;
  }

  /**
   * Compiles {@code name op value}; {@link #isField} and {@link #accepts} hold.
   *
   * @throws Units.BadValue when the value does not suit the field
   * @throws java.util.regex.PatternSyntaxException when the value of {@code host*=} is not a regex
   */
  static Filter compile(String name, Op op, String value) throws Units.BadValue {
    NumberComparison.Quantity quantity = numeric(name);
    if (quantity != null) {
      long n = switch (quantity) {
        case SIZE, REQUEST_SIZE -> Units.bytes(value);
        case DURATION -> Units.nanos(value);
        case STATUS, PORT -> Units.integer(value);
      };
      return new NumberComparison(quantity, op, n, value);
    }
    switch (name) {
      case "method":
        return new TextComparison(TextComparison.Field.METHOD, op, nonEmpty(value, "a method"));
      case "host":
        return op == Op.MATCHES
            ? RegexAtom.compile(RegexAtom.Target.DOMAIN, value)
            : new TextComparison(TextComparison.Field.HOST, op, nonEmpty(value, "a host"));
      case "tier":
        return new TierComparison(op, tier(value), value);
      default:
        return new ProtocolComparison(leg(name), op, protocol(value), value);
    }
  }

  private static NumberComparison.Quantity numeric(String name) {
    for (NumberComparison.Quantity q : NumberComparison.Quantity.values()) {
      if (q.field.equals(name)) {
        return q;
      }
    }
    return null;
  }

  private static String nonEmpty(String value, String what) throws Units.BadValue {
    if (value.isEmpty()) {
      throw new Units.BadValue("expected " + what, 0, 0);
    }
    return value;
  }

  private static FlowTier tier(String value) throws Units.BadValue {
    for (FlowTier t : FlowTier.values()) {
      if (t.name().equalsIgnoreCase(value)) {
        return t;
      }
    }
    throw new Units.BadValue("unknown tier '" + value + "' (expected relay, full or tunnel)", 0, value.length());
  }

  private static Protocol protocol(String value) throws Units.BadValue {
    Protocol p = Protocol.named(value);
    if (p == null) {
      throw new Units.BadValue("unknown protocol '" + value + "' (expected h1, h2, h3, http/1.0 or http/1.1)", 0,
          value.length());
    }
    return p;
  }

  private static ProtocolComparison.Leg leg(String name) {
    return switch (name) {
      case "proto.client" -> ProtocolComparison.Leg.CLIENT;
      case "proto.server" -> ProtocolComparison.Leg.SERVER;
      default -> ProtocolComparison.Leg.EITHER;
    };
  }

  /** Lower-cases a field name as written, for lookup. */
  static String normalise(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
