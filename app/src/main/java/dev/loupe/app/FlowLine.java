package dev.loupe.app;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Protocols;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * The headless per-flow line, like mitmdump's: time, method, URL, status, size, duration, protocol
 * per side, tier, and for a client Loupe launched (a browser, a terminal) {@code client NAME}. Built
 * into one {@link StringBuilder} with no {@code String.format} and no intermediate strings beyond the
 * flow's own (issue 19: the line used to cost ~28 % of the relay tier's throughput).
 */
final class FlowLine {
  private static final String[] UNITS = {"k", "M", "G", "T"};

  private final ZoneId zone;
  /** The offset of {@link #zone}, cached for the current hour (times are formatted by hand). */
  private long offsetValidUntilMillis = Long.MIN_VALUE;
  private long offsetValidFromMillis = Long.MAX_VALUE;
  private int offsetSeconds;

  FlowLine(ZoneId zone) {
    this.zone = zone;
  }

  /** The line for a finished flow (no line separator). */
  String format(Flow f) {
    StringBuilder sb = new StringBuilder(160);
    append(sb, f);
    return sb.toString();
  }

  /** Appends the line for a finished flow (no line separator). */
  void append(StringBuilder sb, Flow f) {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    time(sb, f.startedAt());
    sb.append(' ');
    sb.append(req == null ? "?" : req.method()).append(' ');
    sb.append(req == null ? "?" : f.tier() == FlowTier.TUNNEL ? req.authority() : req.url());
    sb.append(' ');
    if (f.error() != null) {
      sb.append("ERROR ").append(f.error().kind().name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .append(": ").append(f.error().message());
    } else if (f.tier() == FlowTier.TUNNEL) {
      sb.append("up ");
      size(sb, f.tunnelBytesClientToServer());
      sb.append(" down ");
      size(sb, f.tunnelBytesServerToClient());
    } else if (res != null) {
      sb.append(res.status()).append(' ');
      size(sb, f.responseBody().size());
    }
    sb.append(' ');
    duration(sb, f.timings().totalMs());
    sb.append(' ').append(Protocols.shortName(f.clientProtocol())).append('/')
        .append(Protocols.shortName(f.serverProtocol()));
    sb.append(' ').append(tierName(f.tier()));
    if (f.isWebSocket()) {
      sb.append(" websocket ").append(f.webSocketMessages().size()).append(" messages");
      if (f.webSocketCloseCode() >= 0) {
        sb.append(" close ").append(f.webSocketCloseCode());
      }
    }
    if (f.client() != null) { // a client Loupe launched (a browser, a terminal): last, as its name may have spaces
      sb.append(" client ").append(f.client());
    }
  }

  private static String tierName(FlowTier t) {
    return switch (t) {
      case RELAY -> "relay";
      case FULL -> "full";
      case TUNNEL -> "tunnel";
    };
  }

  /** {@code HH:mm:ss.SSS} in the zone, as {@code DateTimeFormatter.ofPattern("HH:mm:ss.SSS")} prints it. */
  void time(StringBuilder sb, Instant t) {
    long millis = t.toEpochMilli();
    if (millis < offsetValidFromMillis || millis >= offsetValidUntilMillis) {
      ZoneOffset o = zone.getRules().getOffset(t);
      offsetSeconds = o.getTotalSeconds();
      // Offsets change at most on whole hours of UTC here; recheck at the next one.
      offsetValidFromMillis = Math.floorDiv(millis, 3_600_000L) * 3_600_000L;
      offsetValidUntilMillis = offsetValidFromMillis + 3_600_000L;
      if (!zone.getRules().getOffset(Instant.ofEpochMilli(offsetValidUntilMillis - 1)).equals(o)) {
        offsetValidUntilMillis = millis + 1; // a transition inside this hour: no caching
      }
    }
    long local = millis + offsetSeconds * 1000L;
    long dayMillis = Math.floorMod(local, 86_400_000L);
    two(sb, (int) (dayMillis / 3_600_000L));
    sb.append(':');
    two(sb, (int) (dayMillis / 60_000L % 60));
    sb.append(':');
    two(sb, (int) (dayMillis / 1000 % 60));
    sb.append('.');
    int ms = (int) (dayMillis % 1000);
    sb.append((char) ('0' + ms / 100)).append((char) ('0' + ms / 10 % 10)).append((char) ('0' + ms % 10));
  }

  private static void two(StringBuilder sb, int v) {
    sb.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
  }

  /** {@code 870ms}, {@code 1.25s}, or {@code -} when unknown (as {@code %.0fms} / {@code %.2fs}). */
  static void duration(StringBuilder sb, double ms) {
    if (ms < 0 || Double.isNaN(ms)) {
      sb.append('-');
    } else if (ms < 1000) {
      long r = Math.round(ms);
      if (r >= 1000) {
        sb.append("1000ms"); // 999.5 rounds up, as %.0f does
      } else {
        sb.append(r).append("ms");
      }
    } else {
      fixed(sb, ms / 1000, 2);
      sb.append('s');
    }
  }

  /** {@code 512B}, {@code 1.5k}, {@code 64k}, {@code 1.0M}: binary units. */
  static void size(StringBuilder sb, long bytes) {
    if (bytes < 1024) {
      sb.append(bytes).append('B');
      return;
    }
    double v = bytes;
    int i = -1;
    while (v >= 1024 && i < UNITS.length - 1) {
      v /= 1024;
      i++;
    }
    fixed(sb, v, v < 10 ? 1 : 0);
    sb.append(UNITS[i]);
  }

  /** {@code v} with {@code decimals} digits after the point, rounded half up (non-negative {@code v}). */
  static void fixed(StringBuilder sb, double v, int decimals) {
    long scale = decimals == 0 ? 1 : decimals == 1 ? 10 : 100;
    // Round from the shortest decimal form, as Formatter does, so 0.125 -> 0.13 and 1.05 -> 1.1.
    long scaled = new java.math.BigDecimal(Double.toString(v)).movePointRight(decimals)
        .setScale(0, java.math.RoundingMode.HALF_UP).longValueExact();
    sb.append(scaled / scale);
    if (decimals > 0) {
      sb.append('.');
      long frac = scaled % scale;
      if (decimals == 2 && frac < 10) {
        sb.append('0');
      }
      sb.append(frac);
    }
  }
}
