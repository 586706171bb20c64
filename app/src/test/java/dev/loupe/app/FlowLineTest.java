package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The per-flow line is built by hand (no String.format, issue 19); it must print exactly what the
 * formatters it replaced printed: {@code %.0fms}, {@code %.2fs}, {@code %.1f}/{@code %.0f} sizes and
 * {@code HH:mm:ss.SSS} in the local zone.
 */
class FlowLineTest {
  @Test
  void durationsMatchTheFormatterTheyReplaced() {
    double[] edge = {0, 0.4, 0.5, 0.49999, 1.5, 2.5, 12.345, 999.4, 999.5, 999.99, 1000, 1004.999, 1005, 1015,
        1234.5, 59_999.99, 86_400_000.0, 0.125e4, 1.005e3, 2.675e3};
    for (double ms : edge) {
      assertThat(duration(ms)).as("%s ms", ms).isEqualTo(reference(ms));
    }
    SplittableRandom r = new SplittableRandom(19);
    for (int i = 0; i < 200_000; i++) {
      double ms = r.nextInt(4) == 0 ? r.nextDouble(0, 1000) : r.nextDouble(0, 200_000);
      assertThat(duration(ms)).as("%s ms", ms).isEqualTo(reference(ms));
    }
    assertThat(duration(-1)).isEqualTo("-");
  }

  @Test
  void sizesMatchTheFormatterTheyReplaced() {
    long[] edge = {0, 1, 1023, 1024, 1025, 1536, 10 * 1024 - 52, 10 * 1024 - 51, 10 * 1024, 65_536, 1_048_575,
        1_048_576, 1_572_864, Long.MAX_VALUE / 2, Long.MAX_VALUE};
    for (long b : edge) {
      assertThat(size(b)).as("%s bytes", b).isEqualTo(referenceSize(b));
    }
    SplittableRandom r = new SplittableRandom(7);
    for (int i = 0; i < 200_000; i++) {
      long b = r.nextLong(1L << r.nextInt(1, 50));
      assertThat(size(b)).as("%s bytes", b).isEqualTo(referenceSize(b));
    }
  }

  @Test
  void timesMatchTheFormatterTheyReplacedAcrossZonesAndTransitions() {
    for (String zone : new String[] {"UTC", "Europe/Berlin", "America/St_Johns", "Asia/Kolkata", "Australia/Lord_Howe"}) {
      ZoneId z = ZoneId.of(zone);
      DateTimeFormatter ref = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(z);
      FlowLine line = new FlowLine(z);
      SplittableRandom r = new SplittableRandom(zone.hashCode());
      // Walk forward through 2026 in random steps (a cached offset must follow every transition) ...
      long t = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
      long end = Instant.parse("2027-01-01T00:00:00Z").toEpochMilli();
      while (t < end) {
        check(line, ref, Instant.ofEpochMilli(t));
        t += r.nextLong(1, 6 * 3_600_000L);
      }
      // ... and around each transition, to the millisecond, also backwards.
      for (var tr : z.getRules().getTransitions()) {
        long at = tr.getInstant().toEpochMilli();
        if (at > end || at < Instant.parse("2025-01-01T00:00:00Z").toEpochMilli()) {
          continue;
        }
        for (long d : new long[] {-3_600_001, -1, 0, 1, 1_799_999, 3_599_999, 3_600_000, -1}) {
          check(line, ref, Instant.ofEpochMilli(at + d));
        }
      }
    }
  }

  @Test
  void aWholeLineReadsAsBefore() {
    RecordedFlow f = new RecordedFlow(1, Instant.parse("2026-12-02T10:15:30.045Z"), CapturePolicy.defaults());
    f.request(new RequestHead("GET", "https", "origin.test", 443, "/a?b=1", "HTTP/2.0", Headers.of("Host", "origin.test")));
    f.clientProtocol("HTTP/2");
    f.serverProtocol("HTTP/1.1");
    f.tier(FlowTier.RELAY);
    f.requestBody().complete();
    f.response(new ResponseHead(200, "", "HTTP/1.1", Headers.of()));
    f.responseBody().append(ByteBuffer.wrap(new byte[1536]));
    f.responseBody().complete();
    f.complete();
    String line = new FlowLine(ZoneId.of("UTC")).format(f);
    // No timings were recorded on this hand-made flow: the duration is "-".
    assertThat(line).isEqualTo("10:15:30.045 GET https://origin.test/a?b=1 200 1.5k - h2/h1 relay");
  }

  private static void check(FlowLine line, DateTimeFormatter ref, Instant t) {
    StringBuilder sb = new StringBuilder();
    line.time(sb, t);
    assertThat(sb.toString()).as("%s", t).isEqualTo(ref.format(t));
  }

  private static String duration(double ms) {
    StringBuilder sb = new StringBuilder();
    FlowLine.duration(sb, ms);
    return sb.toString();
  }

  private static String size(long b) {
    StringBuilder sb = new StringBuilder();
    FlowLine.size(sb, b);
    return sb.toString();
  }

  /** The code this replaced (HeadlessSession.line, Sizes.human before issue 19). */
  private static String reference(double ms) {
    return ms < 0 ? "-" : ms < 1000 ? String.format(Locale.ROOT, "%.0fms", ms)
        : String.format(Locale.ROOT, "%.2fs", ms / 1000);
  }

  private static String referenceSize(long bytes) {
    if (bytes < 1024) {
      return bytes + "B";
    }
    double v = bytes;
    String[] units = {"k", "M", "G", "T"};
    int i = -1;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return String.format(Locale.ROOT, v < 10 ? "%.1f%s" : "%.0f%s", v, units[i]);
  }
}
