package dev.loupe.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The per-flow lines are written in batches off the caller's thread and never make it wait. */
class LinePrinterTest {
  @Test
  void everyLineArrivesInOrderInFewWrites() {
    CountingStream out = new CountingStream();
    List<String> expected = new ArrayList<>();
    try (LinePrinter p = new LinePrinter(out, 100_000, "test-lines")) {
      for (int i = 0; i < 50_000; i++) {
        String line = "line " + i + " é";
        expected.add(line);
        p.print(line);
      }
    }
    String text = out.bytes.toString(StandardCharsets.UTF_8);
    assertThat(text.split(System.lineSeparator())).containsExactlyElementsOf(expected);
    assertThat(out.flushes.get()).as("one flush per batch, not per line").isLessThan(50_000 / 10);
  }

  @Test
  void linesThatTrickleInLeaveInBatchesNotOneWriteEach() {
    // As under traffic: a line every ~100 µs (10,000 flows a second), each handed over while the
    // writer waits for the next. Without its nap after a write, the writer woke for each one.
    CountingStream out = new CountingStream();
    List<String> expected = new ArrayList<>();
    long start = System.nanoTime();
    try (LinePrinter p = new LinePrinter(out, 100_000, "test-lines")) {
      for (int i = 0; i < 3_000; i++) {
        String line = "flow " + i;
        expected.add(line);
        p.print(line);
        long until = System.nanoTime() + 100_000;
        while (System.nanoTime() < until) {
          Thread.onSpinWait();
        }
      }
    }
    long elapsedMs = (System.nanoTime() - start) / 1_000_000;
    String text = out.bytes.toString(StandardCharsets.UTF_8);
    assertThat(text.split(System.lineSeparator())).containsExactlyElementsOf(expected);
    // At most one write per nap, plus the close: a loaded machine only makes the batches larger.
    assertThat(out.flushes.get()).as("writes for 3,000 lines over %d ms", elapsedMs)
        .isLessThanOrEqualTo((int) (elapsedMs / LinePrinter.NAP_MILLIS) + 3);
  }

  @Test
  void aStuckStreamNeverBlocksTheCallerAndWhatIsLostIsCounted() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    OutputStream stuck = new OutputStream() {
      @Override
      public void write(int b) {
        throw new UnsupportedOperationException();
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        entered.countDown();
        try {
          release.await(); // a terminal nobody scrolls, a pipe nobody reads
        } catch (InterruptedException e) {
          throw new java.io.InterruptedIOException();
        }
      }
    };
    LinePrinter p = new LinePrinter(stuck, 1_000, "test-lines");
    p.print("first");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    long t0 = System.nanoTime();
    for (int i = 0; i < 200_000; i++) {
      p.print("line " + i);
    }
    long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    // Not a timing assertion on speed: 200,000 offers against a blocked writer either return or hang.
    assertThat(tookMs).as("print() returned while the stream was stuck").isLessThan(60_000);
    assertThat(p.dropped()).as("the queue holds 1,000; the rest is dropped and counted").isEqualTo(200_000 - 1_000);
    p.close(200);
    assertThat(p.dropped()).as("closing while stuck counts the queued lines too").isEqualTo(200_000);
    release.countDown();
  }

  @Test
  void aFailingStreamDropsInsteadOfThrowing() throws Exception {
    OutputStream broken = new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        throw new IOException("broken pipe");
      }
    };
    try (LinePrinter p = new LinePrinter(broken, 10, "test-lines")) {
      p.print("a");
      org.awaitility.Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> p.dropped() >= 0 && p.written() == 0
          && probeDropped(p));
      assertThat(p.dropped()).isPositive();
    }
  }

  /** After the writer failed, a further line is dropped at once. */
  private static boolean probeDropped(LinePrinter p) {
    long before = p.dropped();
    p.print("b");
    return p.dropped() > before;
  }

  private static final class CountingStream extends OutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final AtomicInteger flushes = new AtomicInteger();

    @Override
    public synchronized void write(int b) {
      bytes.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      bytes.write(b, off, len);
    }

    @Override
    public void flush() {
      flushes.incrementAndGet();
    }
  }
}
