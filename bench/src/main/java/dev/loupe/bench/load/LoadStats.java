package dev.loupe.bench.load;

import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one connection measured. Event-loop confined (one per connection, each connection stays
 * on its loop); the main thread merges them after the loops have terminated.
 */
final class LoadStats {
  /** Error kinds, as they appear in the JSON output. */
  enum ErrorKind {
    /** A response whose status is not 2xx. */
    NON2XX,
    /** TCP connect to the target or proxy failed. */
    CONNECT,
    /** The proxy did not answer CONNECT with 2xx. */
    PROXY,
    /** TLS handshake failed, or ALPN did not select the wanted protocol. */
    TLS,
    /** The connection closed with a request in flight. */
    CLOSED,
    /** An HTTP/2 stream was reset by the peer. */
    RESET,
    /** A request still in flight at the end and older than --timeout. */
    TIMEOUT,
    /** Anything else (protocol errors, exceptions). */
    OTHER
  }

  /** Microseconds, 3 significant digits, up to 10 minutes. */
  final Histogram latencyMicros = new Histogram(600_000_000L, 3);

  long requests;
  long bodyBytes;
  final long[] errors = new long[ErrorKind.values().length];

  void error(ErrorKind kind) {
    errors[kind.ordinal()]++;
  }

  void add(LoadStats other) {
    latencyMicros.add(other.latencyMicros);
    requests += other.requests;
    bodyBytes += other.bodyBytes;
    for (int i = 0; i < errors.length; i++) {
      errors[i] += other.errors[i];
    }
  }

  Map<ErrorKind, Long> errorMap() {
    Map<ErrorKind, Long> m = new EnumMap<>(ErrorKind.class);
    for (ErrorKind k : ErrorKind.values()) {
      m.put(k, errors[k.ordinal()]);
    }
    return m;
  }

  long errorTotal() {
    long t = 0;
    for (long e : errors) {
      t += e;
    }
    return t;
  }
}
