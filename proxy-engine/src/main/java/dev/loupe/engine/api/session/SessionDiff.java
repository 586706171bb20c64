package dev.loupe.engine.api.session;

import dev.loupe.engine.api.session.model.BodyDigest;
import dev.loupe.engine.api.session.model.DiffOptions;
import dev.loupe.engine.api.session.model.DigestSource;
import dev.loupe.engine.api.session.model.FlowDigest;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.api.session.model.WebSocketDigest;
import dev.loupe.engine.flow.Headers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Compares two sessions (or a session and a HAR, or two HARs, each imported into a session first;
 * see {@link DiffInput}): which flows were added, removed or changed.
 *
 * <h3>Matching</h3>
 * Flows are matched by {@link DiffOptions#key} (method and URL, or less) and order: the n-th flow
 * with a key in A pairs with the n-th flow with that key in B; the ones left over were removed (in
 * A only) or added (in B only). Both sides arrive sorted by key, then id ({@link DigestSource}), and
 * are merged in one pass, one digest per side in memory: two sessions of a million flows each are
 * compared in constant memory. Lines come out in key order.
 *
 * <h3>Comparing</h3>
 * See {@link DiffOptions}: status, failure kind, request and response headers (as multisets of
 * values per lower-cased name; ignored names left out), request and response bodies
 * ({@link BodyDigest#difference}), WebSocket messages (per direction: how many, and message by
 * message its opcode and payload hash, see {@link WebSocketDigest}), and the total time when a
 * threshold is set.
 *
 * <p>Pure: no I/O but what the sources do; any thread.
 */
public final class SessionDiff {
  private SessionDiff() {}

  /**
   * Diffs session {@code a} against {@code b}: every line goes to {@code sink}, then the counts.
   *
   * @param stop checked between flows; when it turns true the diff ends with a {@link CancellationException}
   */
  public static DiffSummary run(Session a, Session b, DiffOptions options, DiffSink sink, BooleanSupplier stop)
      throws SessionException, IOException {
    try (DigestSource left = a.digests(options); DigestSource right = b.digests(options)) {
      return run(left, right, options, sink, stop);
    }
  }

  /** Merges two sorted sources; see the class comment. */
  public static DiffSummary run(DigestSource a, DigestSource b, DiffOptions options, DiffSink sink,
      BooleanSupplier stop) throws SessionException, IOException {
    Ordered left = new Ordered(a, options, "A");
    Ordered right = new Ordered(b, options, "B");
    long added = 0;
    long removed = 0;
    long changed = 0;
    long unchanged = 0;
    String previous = null;
    int occurrence = 0;
    left.advance();
    right.advance();
    while (left.current != null || right.current != null) {
      if (stop.getAsBoolean()) {
        throw new CancellationException("the diff was stopped");
      }
      int c = left.current == null ? 1 : right.current == null ? -1 : compareKeys(left.key, right.key);
      String key = c <= 0 ? left.key : right.key;
      occurrence = key.equals(previous) ? occurrence + 1 : 1;
      previous = key;
      if (c == 0) {
        List<FlowDiff.Change> changes = changes(left.current, right.current, options);
        if (changes.isEmpty()) {
          unchanged++;
        } else {
          changed++;
          sink.entry(new FlowDiff(FlowDiff.Kind.CHANGED, key, occurrence, FlowDiff.Side.of(left.current),
              FlowDiff.Side.of(right.current), changes));
        }
        left.advance();
        right.advance();
      } else if (c < 0) {
        removed++;
        sink.entry(new FlowDiff(FlowDiff.Kind.REMOVED, key, occurrence, FlowDiff.Side.of(left.current), null, List.of()));
        left.advance();
      } else {
        added++;
        sink.entry(new FlowDiff(FlowDiff.Kind.ADDED, key, occurrence, null, FlowDiff.Side.of(right.current), List.of()));
        right.advance();
      }
    }
    DiffSummary summary = new DiffSummary(a.count(), b.count(), added, removed, changed, unchanged);
    sink.end(summary);
    return summary;
  }

  /** A source whose order is checked as it is read: a source out of order would pair the wrong flows. */
  private static final class Ordered {
    private final DigestSource source;
    private final DiffOptions options;
    private final String name;
    FlowDigest current;
    String key;

    Ordered(DigestSource source, DiffOptions options, String name) {
      this.source = source;
      this.options = options;
      this.name = name;
    }

    void advance() throws SessionException {
      FlowDigest next = source.next();
      if (next == null) {
        current = null;
        return;
      }
      String k = options.key(next.method(), next.url());
      if (current != null) {
        int c = compareKeys(key, k);
        if (c > 0 || (c == 0 && current.id() >= next.id())) {
          throw new IllegalStateException("flows of " + name + " out of key order: #" + current.id() + " '" + key
              + "' before #" + next.id() + " '" + k + "'");
        }
      }
      current = next;
      key = k;
    }
  }

  /**
   * Orders keys by code point, which is how the store orders them (by their UTF-8 bytes); not
   * {@link String#compareTo}, which differs for characters beyond U+FFFF.
   */
  public static int compareKeys(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }

  /** What differs between two matched flows, in {@link FlowDiff}'s order; empty when nothing does. */
  public static List<FlowDiff.Change> changes(FlowDigest a, FlowDigest b, DiffOptions options) {
    List<FlowDiff.Change> out = new ArrayList<>();
    if (a.status() != b.status()) {
      out.add(new FlowDiff.Change(FlowDiff.Aspect.STATUS, null, status(a.status()), status(b.status())));
    }
    if (!Objects.equals(a.errorKind(), b.errorKind())) {
      out.add(new FlowDiff.Change(FlowDiff.Aspect.ERROR, null, a.error(), b.error()));
    }
    headers(FlowDiff.Aspect.REQUEST_HEADER, a.requestHeaders(), b.requestHeaders(), options, out);
    String req = BodyDigest.difference(a.requestBody(), b.requestBody());
    if (req != null) {
      out.add(new FlowDiff.Change(FlowDiff.Aspect.REQUEST_BODY, null, a.requestBody().describe(),
          b.requestBody().describe()));
    }
    headers(FlowDiff.Aspect.RESPONSE_HEADER, a.responseHeaders(), b.responseHeaders(), options, out);
    String res = BodyDigest.difference(a.responseBody(), b.responseBody());
    if (res != null) {
      out.add(new FlowDiff.Change(FlowDiff.Aspect.RESPONSE_BODY, null, a.responseBody().describe(),
          b.responseBody().describe()));
    }
    webSocket(a.webSocket(), b.webSocket(), out);
    if (options.timingThresholdMs() > 0 && a.durationMs() >= 0 && b.durationMs() >= 0
        && Math.abs(b.durationMs() - a.durationMs()) >= options.timingThresholdMs()) {
      out.add(new FlowDiff.Change(FlowDiff.Aspect.TIMING, null, ms(a.durationMs()), ms(b.durationMs())));
    }
    return out;
  }

  /** Changed WebSocket messages listed per flow at most; more are counted in one last line. */
  static final int LISTED_MESSAGES = 20;

  private static void webSocket(WebSocketDigest a, WebSocketDigest b, List<FlowDiff.Change> out) {
    if (a.equals(b)) {
      return;
    }
    String[] names = {"client→server", "server→client"};
    WebSocketDigest.Messages[][] sides = {{a.sent(), b.sent()}, {a.received(), b.received()}};
    for (int d = 0; d < 2; d++) {
      if (sides[d][0].count() != sides[d][1].count()) {
        out.add(new FlowDiff.Change(FlowDiff.Aspect.WEBSOCKET_COUNT, names[d], Long.toString(sides[d][0].count()),
            Long.toString(sides[d][1].count())));
      }
    }
    for (int d = 0; d < 2; d++) {
      WebSocketDigest.Messages x = sides[d][0];
      WebSocketDigest.Messages y = sides[d][1];
      int n = Math.max(x.first().size(), y.first().size());
      int listed = 0;
      long unlisted = 0;
      for (int i = 0; i < n; i++) {
        WebSocketDigest.Message m = i < x.first().size() ? x.first().get(i) : null;
        WebSocketDigest.Message o = i < y.first().size() ? y.first().get(i) : null;
        if (WebSocketDigest.Message.same(m, o)) {
          continue;
        }
        if (listed++ < LISTED_MESSAGES) {
          out.add(new FlowDiff.Change(FlowDiff.Aspect.WEBSOCKET_MESSAGE, names[d] + " #" + (i + 1),
              m == null ? null : m.describe(), o == null ? null : o.describe()));
        } else {
          unlisted++;
        }
      }
      if (unlisted > 0) {
        String more = unlisted + " more changed messages";
        out.add(new FlowDiff.Change(FlowDiff.Aspect.WEBSOCKET_MESSAGE, names[d] + " …", more, more));
      }
      if (listed == 0 && x.count() == y.count() && !x.sha256().equals(y.sha256())) {
        // the kept ones agree: the difference lies past them
        out.add(new FlowDiff.Change(FlowDiff.Aspect.WEBSOCKET_MESSAGE, names[d] + " #" + (WebSocketDigest.KEPT + 1)
            + "…", "sha256 of all " + x.sha256().substring(0, 12), "sha256 of all " + y.sha256().substring(0, 12)));
      }
    }
  }

  private static String status(int s) {
    return s == 0 ? null : Integer.toString(s);
  }

  /** {@code 12.3 ms}. */
  public static String ms(double ms) {
    return String.format(Locale.ROOT, "%.1f ms", ms);
  }

  private static void headers(FlowDiff.Aspect aspect, Headers a, Headers b, DiffOptions options,
      List<FlowDiff.Change> out) {
    Map<String, List<String>> left = byName(a, options);
    Map<String, List<String>> right = byName(b, options);
    List<String> names = new ArrayList<>(left.keySet());
    for (String n : right.keySet()) {
      if (!left.containsKey(n)) {
        names.add(n);
      }
    }
    for (String n : names) {
      List<String> x = left.get(n);
      List<String> y = right.get(n);
      if (!sameValues(x, y)) {
        out.add(new FlowDiff.Change(aspect, n, x == null ? null : String.join(", ", x),
            y == null ? null : String.join(", ", y)));
      }
    }
  }

  private static Map<String, List<String>> byName(Headers h, DiffOptions options) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (Headers.Field f : h.fields()) {
      if (options.compares(f.name())) {
        out.computeIfAbsent(Headers.normalise(f.name()), k -> new ArrayList<>(1)).add(f.value());
      }
    }
    return out;
  }

  /** Values of one name compared as a multiset (an HTTP/2 peer may reorder fields of different names, not values). */
  private static boolean sameValues(List<String> x, List<String> y) {
    if (x == null || y == null) {
      return x == y;
    }
    if (x.size() != y.size()) {
      return false;
    }
    List<String> xs = new ArrayList<>(x);
    List<String> ys = new ArrayList<>(y);
    xs.sort(Comparator.naturalOrder());
    ys.sort(Comparator.naturalOrder());
    return xs.equals(ys);
  }

  /**
   * A source over digests in memory, sorted as a session would hand them out (tests, and flows
   * that never were in a file).
   */
  public static DigestSource sorted(List<FlowDigest> flows, DiffOptions options) {
    List<FlowDigest> list = new ArrayList<>(flows);
    list.sort((x, y) -> {
      int c = compareKeys(options.key(x.method(), x.url()), options.key(y.method(), y.url()));
      return c != 0 ? c : Long.compare(x.id(), y.id());
    });
    return new DigestSource() {
      private int next;

      @Override
      public FlowDigest next() {
        return next < list.size() ? list.get(next++) : null;
      }

      @Override
      public long count() {
        return next;
      }

      @Override
      public void close() {
      }
    };
  }

  /** A sink that keeps every line (tests, small diffs). */
  public static final class Collector implements DiffSink {
    private final List<FlowDiff> entries = new ArrayList<>();
    private DiffSummary summary;

    @Override
    public void entry(FlowDiff d) {
      entries.add(d);
    }

    @Override
    public void end(DiffSummary s) {
      summary = s;
    }

    public List<FlowDiff> entries() {
      return entries;
    }

    /** The counts, or null before the end. */
    public DiffSummary summary() {
      return summary;
    }
  }
}
