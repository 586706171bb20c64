package dev.loupe.engine.internal.upstream;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What origins advertised as their HTTP/3 alternative ({@code Alt-Svc: h3=...}), per origin
 * ({@code https://host:port}), until its max-age runs out or the origin sends {@code clear}, and
 * which origins' HTTP/3 is marked broken (QUIC failed or did not answer in time) until when.
 *
 * <p>Bounded: the least recently used origin goes first beyond {@link #MAX_ORIGINS}. Thread-safe
 * (every event loop shares it; each call is short).
 */
public final class AltSvcCache {
  public static final int MAX_ORIGINS = 10_000;

  /** How long an origin's HTTP/3 stays marked broken after QUIC failed. */
  public static final Duration BROKEN_FOR = Duration.ofMinutes(5);

  /** An origin's HTTP/3 endpoint: {@code host} null means the origin's own host. */
  public record Endpoint(String host, int port) {
    @Override
    public String toString() {
      return (host == null ? "" : host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /** The answer for one request: where to try HTTP/3, or null with the reason not to. */
  public record Choice(Endpoint endpoint, String reason) {}

  private static final class Entry {
    Endpoint endpoint;
    long expiresAt;
    long brokenUntil;
    Instant brokenUntilWall;
    String brokenCause;
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
      return size() > MAX_ORIGINS;
    }
  };

  /**
   * A response from {@code origin} carried {@code Alt-Svc}: the first {@code h3} alternative
   * replaces what was known (RFC 7838 §3: a new field value replaces the old alternatives);
   * {@code clear}, or a list without h3, forgets it. {@code ageSeconds}: the response's
   * {@code Age} (its max-age counts from its generation).
   */
  public synchronized void advertised(String origin, AltSvc.Parsed field, long ageSeconds, long nowNanos) {
    AltSvc.Alternative h3 = null;
    if (!field.clear()) {
      for (AltSvc.Alternative a : field.alternatives()) {
        if (a.protocol().equals("h3")) {
          h3 = a;
          break;
        }
      }
    }
    long fresh = h3 == null ? 0 : h3.maxAgeSeconds() - Math.max(0, ageSeconds);
    Entry e = entries.get(origin);
    if (h3 == null || fresh <= 0) {
      if (e != null) {
        e.endpoint = null;
        if (e.brokenUntil == 0) {
          entries.remove(origin);
        }
      }
      return;
    }
    if (e == null) {
      e = new Entry();
      entries.put(origin, e);
    }
    e.endpoint = new Endpoint(h3.host(), h3.port());
    e.expiresAt = nowNanos + Math.min(fresh, Long.MAX_VALUE / 4_000_000_000L) * 1_000_000_000L;
  }

  /** Where to try HTTP/3 for {@code origin} now, or why not. */
  public synchronized Choice choose(String origin, long nowNanos) {
    Entry e = entries.get(origin);
    if (e == null) {
      return new Choice(null, "no Alt-Svc");
    }
    if (e.brokenUntil != 0) {
      if (nowNanos - e.brokenUntil < 0) {
        return new Choice(null, "h3 marked broken until " + e.brokenUntilWall + " (" + e.brokenCause + ")");
      }
      e.brokenUntil = 0;
      e.brokenUntilWall = null;
      e.brokenCause = null;
    }
    if (e.endpoint == null) {
      entries.remove(origin);
      return new Choice(null, "no Alt-Svc");
    }
    if (nowNanos - e.expiresAt >= 0) {
      entries.remove(origin);
      return new Choice(null, "Alt-Svc h3 expired");
    }
    return new Choice(e.endpoint, null);
  }

  /** HTTP/3 to {@code origin} failed: use TCP for {@link #BROKEN_FOR}. */
  public synchronized void broken(String origin, String cause, long nowNanos) {
    Entry e = entries.computeIfAbsent(origin, k -> new Entry());
    e.brokenUntil = nowNanos + BROKEN_FOR.toNanos();
    e.brokenUntilWall = Instant.now().plus(BROKEN_FOR).truncatedTo(ChronoUnit.SECONDS);
    e.brokenCause = cause;
  }

  /**
   * HTTP/3 to {@code origin} works after all: a QUIC handshake that missed the budget (the request
   * went to TCP and marked the origin broken) finished later. The mark goes, so the next request
   * uses that connection instead of TCP for {@link #BROKEN_FOR}.
   */
  public synchronized void recovered(String origin) {
    Entry e = entries.get(origin);
    if (e == null || e.brokenUntil == 0) {
      return;
    }
    e.brokenUntil = 0;
    e.brokenUntilWall = null;
    e.brokenCause = null;
    if (e.endpoint == null) {
      entries.remove(origin);
    }
  }

  /** Origins remembered (advertised or marked broken), for tests. */
  public synchronized int size() {
    return entries.size();
  }
}
