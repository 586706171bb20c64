package dev.loupe.engine.flow;

/** Short names of the HTTP versions a flow records per side, as the flow line and table show them. */
public final class Protocols {
  private Protocols() {}

  /** {@code h1}, {@code h2}, {@code h3} for the HTTP versions; {@code -} when unknown; others as they are. */
  public static String shortName(String protocol) {
    if (protocol == null) {
      return "-";
    }
    return switch (protocol) {
      case "HTTP/1.1", "HTTP/1.0" -> "h1";
      case "HTTP/2", "HTTP/2.0" -> "h2";
      case "HTTP/3" -> "h3";
      default -> protocol;
    };
  }
}
