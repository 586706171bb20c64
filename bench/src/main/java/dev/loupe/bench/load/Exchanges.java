package dev.loupe.bench.load;

/** The request driver installed on a ready connection (HTTP/1.1 or HTTP/2). Event-loop confined. */
interface Exchanges {
  /** Requests in flight that started before {@code nanoTime}. */
  int countStartedBefore(long nanoTime);
}
