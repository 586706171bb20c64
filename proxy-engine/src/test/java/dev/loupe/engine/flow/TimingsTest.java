package dev.loupe.engine.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordedTimings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TimingsTest {
  private static final long MS = 1_000_000;
  private static final long T0 = 7_000 * MS;

  @Test
  void nothingRecordedIsUnknownEverywhere() {
    RecordedTimings t = new RecordedTimings();
    assertThat(t.blockedMs()).isEqualTo(-1);
    assertThat(t.dnsMs()).isEqualTo(-1);
    assertThat(t.connectMs()).isEqualTo(-1);
    assertThat(t.sslMs()).isEqualTo(-1);
    assertThat(t.sendMs()).isEqualTo(-1);
    assertThat(t.waitMs()).isEqualTo(-1);
    assertThat(t.receiveMs()).isEqualTo(-1);
    assertThat(t.totalMs()).isEqualTo(-1);
  }

  @Test
  void freshTlsConnectionHasEveryPhaseAndConnectIncludesTls() {
    RecordedTimings t = new RecordedTimings();
    t.requestStart(T0);
    t.dnsStart(T0 + MS);
    t.dnsEnd(T0 + 3 * MS);
    t.connectStart(T0 + 3 * MS);
    t.connectEnd(T0 + 10 * MS);
    t.tlsStart(T0 + 10 * MS);
    t.tlsEnd(T0 + 30 * MS);
    t.sendStart(T0 + 30 * MS);
    t.sendEnd(T0 + 31 * MS);
    t.responseStart(T0 + 81 * MS);
    t.responseEnd(T0 + 91 * MS + MS / 2);
    assertThat(t.blockedMs()).isEqualTo(1);
    assertThat(t.dnsMs()).isEqualTo(2);
    assertThat(t.connectMs()).isEqualTo(27); // TCP 7 + TLS 20, as HAR wants
    assertThat(t.sslMs()).isEqualTo(20);
    assertThat(t.sendMs()).isEqualTo(1);
    assertThat(t.waitMs()).isEqualTo(50);
    assertThat(t.receiveMs()).isEqualTo(10.5);
    assertThat(t.totalMs()).isEqualTo(91.5);
    assertThat(t.requestStartNanos()).isEqualTo(T0);
    assertThat(t.responseEndNanos()).isEqualTo(T0 + 91 * MS + MS / 2);
  }

  @Test
  void cleartextConnectIsTcpOnly() {
    RecordedTimings t = new RecordedTimings();
    t.connectStart(T0);
    t.connectEnd(T0 + 4 * MS);
    assertThat(t.connectMs()).isEqualTo(4);
    assertThat(t.sslMs()).isEqualTo(-1);
  }

  @Test
  void blockedRunsToTheFirstUpstreamStep() {
    RecordedTimings pooled = new RecordedTimings();
    pooled.requestStart(T0);
    pooled.sendStart(T0 + 2 * MS);
    assertThat(pooled.blockedMs()).as("pooled: until send").isEqualTo(2);
    assertThat(pooled.dnsMs()).isEqualTo(-1);
    assertThat(pooled.connectMs()).isEqualTo(-1);

    RecordedTimings byIp = new RecordedTimings();
    byIp.requestStart(T0);
    byIp.connectStart(T0 + 3 * MS);
    byIp.sendStart(T0 + 9 * MS);
    assertThat(byIp.blockedMs()).as("no DNS: until connect").isEqualTo(3);
  }

  @Test
  void readingsOutOfOrderAreUnknownNotNegative() {
    RecordedTimings t = new RecordedTimings();
    t.sendEnd(T0 + 5 * MS);
    t.responseStart(T0 + 2 * MS); // an early response (before the upload ended)
    assertThat(t.waitMs()).isEqualTo(-1);
  }

  @Test
  void negativeNanoTimeReadingsWork() {
    // System.nanoTime() may be negative; only differences mean anything.
    RecordedTimings t = new RecordedTimings();
    t.sendStart(-10 * MS);
    t.sendEnd(-7 * MS);
    assertThat(t.sendMs()).isEqualTo(3);
  }

  @Test
  void totalOfAFlowInFlightRunsToNow() {
    RecordedTimings t = new RecordedTimings();
    t.requestStart(System.nanoTime());
    assertThat(t.totalMs()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void aFailedFlowsDurationStopsAtTheFailure() {
    RecordedFlow f = new RecordedFlow(1, java.time.Instant.now(), new CapturePolicy(1024, false, java.nio.file.Path.of(System.getProperty("java.io.tmpdir"))));
    f.timings().requestStart(System.nanoTime());
    f.fail(new FlowError(FlowError.Kind.DNS, "DNS lookup failed for x.invalid"));
    double atFailure = f.timings().totalMs();
    java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
    assertThat(f.timings().totalMs()).as("read later, same duration").isEqualTo(atFailure);
  }
}
