package dev.loupe.ui.detail;

import dev.loupe.engine.flow.Timings;
import java.util.ArrayList;
import java.util.List;

/**
 * One bar of the timing waterfall: a phase of the exchange, placed after the phases before it.
 *
 * @param name    {@code Blocked}, {@code DNS}, {@code Connect}, {@code TLS}, {@code Send},
 *                {@code Wait} or {@code Receive}
 * @param startMs where the bar begins, in ms from the request's arrival
 * @param ms      how long the phase took
 */
public record TimingPhase(String name, double startMs, double ms) {
  /** Style class of the bar ({@code phase-dns}). */
  public String styleClass() {
    return "phase-" + name.toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The phases that happened, in order, one after another. Timings hold durations only (as HAR
   * does), so each bar starts where the previous one ended. Connect excludes TLS here (HAR's
   * {@code connect} includes it); a pooled connection has neither.
   */
  public static List<TimingPhase> of(Timings t) {
    List<TimingPhase> out = new ArrayList<>(7);
    double at = 0;
    double ssl = t.sslMs();
    double connect = t.connectMs();
    if (connect >= 0 && ssl >= 0) {
      connect = Math.max(0, connect - ssl);
    }
    double[] ms = {t.blockedMs(), t.dnsMs(), connect, ssl, t.sendMs(), t.waitMs(), t.receiveMs()};
    String[] names = {"Blocked", "DNS", "Connect", "TLS", "Send", "Wait", "Receive"};
    for (int i = 0; i < ms.length; i++) {
      if (ms[i] >= 0) {
        out.add(new TimingPhase(names[i], at, ms[i]));
        at += ms[i];
      }
    }
    return out;
  }

  /** {@code 0.42 ms}, {@code 12.3 ms}, {@code 1,234 ms}. */
  public static String format(double ms) {
    if (ms < 0) {
      return "–";
    }
    if (ms < 1) {
      return String.format(java.util.Locale.ROOT, "%.2f ms", ms);
    }
    if (ms < 100) {
      return String.format(java.util.Locale.ROOT, "%.1f ms", ms);
    }
    return String.format(java.util.Locale.ROOT, "%,.0f ms", ms);
  }
}
