package dev.loupe.app;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes lines to a stream from its own thread, in batches (one write and one flush per batch, at
 * most one batch per {@link #NAP_MILLIS} ms unless the batches are full), so
 * that whoever hands a line over never waits for the stream: when the stream is slower than the
 * lines come (a terminal scrolling, a pipe nobody reads), the queue fills and further lines are
 * dropped and counted instead of slowing the proxy down.
 *
 * <h3>Threads</h3>
 * {@link #print} from any thread (it never blocks); one writer thread; {@link #close} writes what is
 * queued, waiting at most the given time for the stream.
 */
final class LinePrinter implements AutoCloseable {
  /** Lines written per batch at most (bounds the batch buffer, not the rate). */
  private static final int BATCH = 1024;
  /**
   * How long the writer waits after a write before it takes the next batch, so that the lines of
   * that time leave in one write: without it, under traffic each line queued while the writer waited
   * woke it (a futex wake-up for the thread queueing, a context switch, a write and a flush for a
   * handful of lines). The most a line waits for its write; no wait while closing.
   */
  static final long NAP_MILLIS = 20;

  private final OutputStream out;
  private final BlockingQueue<String> queue;
  private final AtomicLong dropped = new AtomicLong();
  private final AtomicLong written = new AtomicLong();
  private final Thread writer;
  private volatile boolean closing;
  private volatile IOException failure;

  /** Holds at most {@code capacity} lines not yet written. */
  LinePrinter(OutputStream out, int capacity, String threadName) {
    this.out = out;
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.writer = new Thread(this::run, threadName);
    writer.setDaemon(true);
    writer.start();
  }

  /** Queues a line (without its separator); drops it and counts it when the queue is full. */
  void print(String line) {
    if (closing || failure != null || !queue.offer(line)) {
      dropped.incrementAndGet();
    }
  }

  /** Lines dropped because the stream could not keep up (or failed, or the printer was closing). */
  long dropped() {
    return dropped.get();
  }

  /** Lines written to the stream so far. */
  long written() {
    return written.get();
  }

  private void run() {
    List<String> batch = new ArrayList<>(BATCH);
    StringBuilder text = new StringBuilder(BATCH * 64);
    try {
      while (true) {
        String first = queue.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) {
          if (closing && queue.isEmpty()) {
            return;
          }
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        for (String line : batch) {
          text.append(line).append(System.lineSeparator());
        }
        out.write(text.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        written.addAndGet(batch.size());
        boolean full = batch.size() == BATCH;
        batch.clear();
        text.setLength(0);
        if (!full && !closing) {
          Thread.sleep(NAP_MILLIS); // a full batch means more are waiting: write them at once
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      failure = e;
      dropped.addAndGet(queue.size());
      queue.clear();
    }
  }

  /** Stops taking lines and waits up to {@code millis} for the queued ones to be written. */
  void close(long millis) {
    closing = true;
    try {
      writer.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      writer.interrupt(); // the stream is stuck: what is left is lost, and counted
    }
    dropped.addAndGet(queue.size()); // also lines that raced with closing
    queue.clear();
  }

  @Override
  public void close() {
    close(2_000);
  }
}
