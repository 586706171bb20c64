package dev.loupe.engine.filter;

/**
 * The protocol names {@code proto=} accepts, and which of the flow model's protocol strings
 * ({@code HTTP/1.1}, {@code HTTP/2}, ...) each one covers. Comparison ignores case and allocates
 * nothing.
 */
enum Protocol {
  /** Any HTTP/1.x. */
  H1("h1"),
  HTTP_1_0("http/1.0"),
  HTTP_1_1("http/1.1"),
  /** HTTP/2, also spelled {@code http/2}. */
  H2("h2"),
  /** HTTP/3, also spelled {@code http/3}. */
  H3("h3");

  final String name;

  Protocol(String name) {
    this.name = name;
  }

  /** The protocol named {@code text} (any case; {@code http/2} and {@code http/3} are aliases), or null. */
  static Protocol named(String text) {
    if (text.equalsIgnoreCase("http/2")) {
      return H2;
    }
    if (text.equalsIgnoreCase("http/3")) {
      return H3;
    }
    for (Protocol p : values()) {
      if (p.name.equalsIgnoreCase(text)) {
        return p;
      }
    }
    return null;
  }

  /** Whether the flow model's protocol string {@code actual} (e.g. {@code HTTP/2}) is this protocol. */
  boolean covers(String actual) {
    return switch (this) {
      case H1 -> actual.regionMatches(true, 0, "HTTP/1.", 0, 7) || actual.equalsIgnoreCase("h1");
      case HTTP_1_0 -> actual.equalsIgnoreCase("HTTP/1.0");
      case HTTP_1_1 -> actual.equalsIgnoreCase("HTTP/1.1");
      case H2 -> isVersion(actual, '2') || actual.equalsIgnoreCase("h2") || actual.equalsIgnoreCase("h2c");
      case H3 -> isVersion(actual, '3') || actual.equalsIgnoreCase("h3");
    };
  }

  /** {@code HTTP/2} or {@code HTTP/2.0} for major version {@code major}. */
  private static boolean isVersion(String actual, char major) {
    return actual.regionMatches(true, 0, "HTTP/", 0, 5) && actual.length() >= 6 && actual.charAt(5) == major
        && (actual.length() == 6 || actual.regionMatches(6, ".0", 0, 2) && actual.length() == 8);
  }
}
