package dev.loupe.bench.load;

/**
 * The run's phases on {@link System#nanoTime()}: warm-up from {@code start}, the measured window
 * {@code [measureStart, measureEnd)}, then stop. A request is measured when it completes inside
 * the window (so req/s = completions in the window ÷ its length, as wrk counts).
 */
final class LoadClock {
  final long start;
  final long measureStart;
  final long measureEnd;
  private volatile boolean running = true;

  LoadClock(double warmupSeconds, double durationSeconds) {
    this.start = System.nanoTime();
    this.measureStart = start + (long) (warmupSeconds * 1e9);
    this.measureEnd = measureStart + (long) (durationSeconds * 1e9);
  }

  boolean running() {
    return running;
  }

  void stop() {
    running = false;
  }

  boolean measured(long completedAt) {
    return completedAt >= measureStart && completedAt < measureEnd;
  }
}
