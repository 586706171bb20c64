package dev.loupe.engine.api.session.model;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * How {@link dev.loupe.engine.api.session.SessionDiff} matches and compares flows.
 *
 * <h3>Matching</h3>
 * Flows are matched by their {@linkplain #key key} (method and URL) and order: the n-th flow with a
 * key in A is paired with the n-th flow with that key in B. {@code ignoreQuery} leaves the query
 * string out of the key ({@code /a?x=1} and {@code /a?x=2} match); {@code byPath} leaves out the
 * scheme and authority ({@code http://a.test/x} and {@code https://b.test:8443/x} match). Both may be
 * set.
 *
 * <h3>Comparing</h3>
 * A matched pair is <em>changed</em> when its status, a request or response header (names not in
 * {@code ignoredHeaders}, compared case-insensitively), a request or response body (SHA-256 of the
 * bytes with gzip/deflate undone), or its failure differs; and, when {@code timingThresholdMs} is
 * positive, when its total time differs by at least that many milliseconds. Timing deltas are
 * reported for every changed pair either way.
 *
 * @param ignoreQuery       match without the query string
 * @param byPath            match without scheme and authority (method and path only)
 * @param ignoredHeaders    header names (lower case) left out of the comparison
 * @param timingThresholdMs a time difference that alone makes a pair changed; 0 or less: timing never does
 */
public record DiffOptions(boolean ignoreQuery, boolean byPath, Set<String> ignoredHeaders, double timingThresholdMs) {
  /**
   * Headers that differ between two captures of the same traffic by their nature (clocks, request
   * ids, trace ids), left out unless asked for ({@code --all-headers}).
   */
  public static final Set<String> VOLATILE_HEADERS = Set.of("date", "age", "expires", "x-request-id",
      "x-correlation-id", "x-amzn-requestid", "x-amzn-trace-id", "x-amz-cf-id", "x-amz-request-id", "cf-ray",
      "traceparent", "tracestate", "server-timing", "x-runtime", "x-response-time");

  /** Method and full URL, volatile headers ignored, timing reported but never a change. */
  public static final DiffOptions DEFAULT = new DiffOptions(false, false, VOLATILE_HEADERS, 0);

  public DiffOptions {
    TreeSet<String> names = new TreeSet<>();
    for (String h : ignoredHeaders) {
      names.add(h.trim().toLowerCase(Locale.ROOT));
    }
    ignoredHeaders = java.util.Collections.unmodifiableSet(names);
    if (Double.isNaN(timingThresholdMs)) {
      throw new IllegalArgumentException("timingThresholdMs is NaN");
    }
  }

  public DiffOptions withIgnoreQuery(boolean on) {
    return new DiffOptions(on, byPath, ignoredHeaders, timingThresholdMs);
  }

  public DiffOptions withByPath(boolean on) {
    return new DiffOptions(ignoreQuery, on, ignoredHeaders, timingThresholdMs);
  }

  public DiffOptions withIgnoredHeaders(Set<String> names) {
    return new DiffOptions(ignoreQuery, byPath, names, timingThresholdMs);
  }

  public DiffOptions withTimingThreshold(double ms) {
    return new DiffOptions(ignoreQuery, byPath, ignoredHeaders, ms);
  }

  /** Whether header {@code name} takes part in the comparison. */
  public boolean compares(String name) {
    return !ignoredHeaders.contains(name.toLowerCase(Locale.ROOT));
  }

  /** The matching mode as the store's key function takes it: {@code q} and/or {@code p}, or empty. */
  public String mode() {
    return (ignoreQuery ? "q" : "") + (byPath ? "p" : "");
  }

  /** What flows are matched by, as a sentence ("method + URL without query + order"). */
  public String describeMatching() {
    return "method + " + (byPath ? "path" : "URL") + (ignoreQuery ? " without query" : "") + " + order";
  }

  /** The key flows are matched by under these options. */
  public String key(String method, String url) {
    return key(method, url, mode());
  }

  /**
   * The key of a flow under matching {@code mode} ({@link #mode()}): {@code METHOD URL}, the URL
   * without its query ({@code q}) and/or without scheme and authority ({@code p}). A missing method
   * or URL counts as empty. Lone surrogates become U+FFFD, so keys order the same way in Java (by
   * code point, see {@link dev.loupe.engine.api.session.SessionDiff#compareKeys}) and in the store (UTF-8 bytes).
   */
  public static String key(String method, String url, String mode) {
    String m = method == null ? "" : method;
    String u = url == null ? "" : url;
    if (mode.indexOf('p') >= 0) {
      int scheme = u.indexOf("://");
      if (scheme >= 0) {
        int slash = u.indexOf('/', scheme + 3);
        int query = u.indexOf('?', scheme + 3);
        int cut = slash >= 0 && (query < 0 || slash < query) ? slash : query;
        u = cut < 0 ? "/" : u.charAt(cut) == '?' ? "/" + u.substring(cut) : u.substring(cut);
      }
    }
    if (mode.indexOf('q') >= 0) {
      int q = u.indexOf('?');
      if (q >= 0) {
        u = u.substring(0, q);
      }
    }
    return wellFormed(m + " " + u);
  }

  private static String wellFormed(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isSurrogate(s.charAt(i))) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int j = 0; j < s.length(); j++) {
          char c = s.charAt(j);
          if (Character.isHighSurrogate(c) && j + 1 < s.length() && Character.isLowSurrogate(s.charAt(j + 1))) {
            sb.append(c).append(s.charAt(++j));
          } else {
            sb.append(Character.isSurrogate(c) ? '\uFFFD' : c);
          }
        }
        return sb.toString();
      }
    }
    return s;
  }
}
