package dev.loupe.engine.filter;

import dev.loupe.engine.flow.WebSocketMessage;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A filter that a session store answers from its columns and its body rows alone, without
 * rebuilding flows: {@code ~b needle}, {@code ~bs error & ~d api}, {@code !~bq token & status>=400}.
 *
 * <h3>Which filters</h3>
 * The filter's top-level conjuncts ({@code a & b & c}) that {@link FilterSql} translates exactly
 * are left to the store's SQL condition ({@link FilterSql#where()} selects exactly the rows that
 * match all of them). Every other conjunct must be {@code ~b ~bq ~bs} joined by {@code & | !}
 * ({@link Filter#bodyOnly()}); {@link #test} decides those on a {@link Source}. A filter with a
 * header atom, or a body atom under {@code |} with a column atom, has no scan ({@link #of} is null):
 * the store rebuilds those flows and calls {@link Filter#test}.
 *
 * <h3>Same answers as {@link Filter#test}</h3>
 * A body is read as {@link Filter#test} reads it: its first {@link Filter#BODY_MATCH_LIMIT} bytes,
 * a {@code gzip}/{@code deflate} coding undone, bytes seen as ISO-8859-1; each body is read and
 * decoded at most once per flow however many atoms look at it, and a body held in an array is
 * searched in place.
 *
 * <p>Immutable; {@link #test} may run on many threads at once (each with its own source).
 */
public final class BodyScan {
  private final List<Filter> bodyParts;
  private final boolean request;
  private final boolean response;

  private BodyScan(List<Filter> bodyParts) {
    this.bodyParts = List.copyOf(bodyParts);
    boolean[] reads = new boolean[2];
    for (Filter f : bodyParts) {
      collect(f, reads);
    }
    this.request = reads[0];
    this.response = reads[1];
  }

  /**
   * The scan for {@code filter}, or null when some part of it needs more than columns and bodies
   * (or when SQL alone answers it: nothing to scan).
   */
  public static BodyScan of(Filter filter) {
    List<Filter> conjuncts = filter instanceof And a ? a.operands() : List.of(filter);
    List<Filter> body = new ArrayList<>();
    for (Filter c : conjuncts) {
      if (FilterSql.of(c).exact()) {
        continue;
      }
      if (!c.bodyOnly()) {
        return null;
      }
      body.add(c);
    }
    return body.isEmpty() ? null : new BodyScan(body);
  }

  private static void collect(Filter f, boolean[] reads) {
    if (f instanceof BodyAtom b) {
      reads[0] |= b.reads(true);
      reads[1] |= b.reads(false);
    } else if (f instanceof And a) {
      a.operands().forEach(o -> collect(o, reads));
    } else if (f instanceof Or o) {
      o.operands().forEach(x -> collect(x, reads));
    } else if (f instanceof Not n) {
      collect(n.operand(), reads);
    }
  }

  /** Whether the request body may be read ({@code ~b}, {@code ~bq}). */
  public boolean readsRequest() {
    return request;
  }

  /** Whether the response body may be read ({@code ~b}, {@code ~bs}). */
  public boolean readsResponse() {
    return response;
  }

  /**
   * Whether a flow that matches the store's condition matches the whole filter, judged on its
   * bodies and messages.
   */
  public boolean test(Source source) {
    Bodies flow = Bodies.CURRENT.get();
    flow.reset(source);
    try {
      for (Filter f : bodyParts) {
        if (!f.testBodies(flow)) {
          return false;
        }
      }
      return true;
    } finally {
      flow.reset(null);
    }
  }

  @Override
  public String toString() {
    return "body scan of " + bodyParts;
  }

  /**
   * One stored flow as a body search reads it, for the duration of one {@link #test}: read lazily,
   * only what an atom asks for. Methods taking {@code request} mean the request (true) or the
   * response (false) message.
   */
  public interface Source {
    /** Whether the flow has that head ({@code Flow.request()} or {@code Flow.response()} is not null). */
    boolean hasHead(boolean request);

    /** The head's {@code Content-Encoding} (its first value), or null. */
    String contentEncoding(boolean request);

    /** Bytes of that body seen on the wire; 0 when it has none. */
    long size(boolean request);

    /** The kept bytes when they are in an array (all of it is the body), else null: see {@link #open}. */
    byte[] inline(boolean request);

    /** Opens the kept bytes (an empty stream when none were kept). */
    InputStream open(boolean request) throws IOException;

    /** Whether the flow is a WebSocket. */
    boolean webSocket();

    /** The flow's WebSocket messages, in order (asked only of a WebSocket). */
    List<WebSocketMessage> messages();
  }

  /** A {@link Source} with each body decoded at most once; confined to the testing thread. */
  static final class Bodies {
    private static final ThreadLocal<Bodies> CURRENT = ThreadLocal.withInitial(Bodies::new);

    private final BodyText.Buffer[] texts = {new BodyText.Buffer(), new BodyText.Buffer()};
    private final boolean[] read = new boolean[2];
    private Source source;

    /** Starts on {@code s}; null lets go of the last source and of any array it lent. */
    private void reset(Source s) {
      source = s;
      for (int i = 0; i < 2; i++) {
        read[i] = false;
        texts[i].clear();
      }
    }

    boolean hasHead(boolean request) {
      return source.hasHead(request);
    }

    /** The body's searched bytes, as {@link BodyText#read} gives them. */
    BodyText.Buffer text(boolean request) {
      int i = request ? 0 : 1;
      if (!read[i]) {
        read[i] = true;
        long size = source.size(request);
        BodyText.read(size, size == 0 ? null : source.inline(request), () -> source.open(request),
            size == 0 ? null : source.contentEncoding(request), texts[i]);
      }
      return texts[i];
    }

    boolean webSocket() {
      return source.webSocket();
    }

    List<WebSocketMessage> messages() {
      return source.messages();
    }
  }
}
