package dev.loupe.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What a logger and its children log at or above a level while this is open, as "LEVEL logger:
 * message throwable" lines. Netty logs through java.util.logging (directly or through SLF4J), and
 * so does Loupe: {@code of("io.netty", Level.WARNING)} catches "An exceptionCaught() event was
 * fired, and it reached at the tail of the pipeline".
 */
final class CapturedLogs extends Handler implements AutoCloseable {
  private final Logger logger; // held: JUL keeps loggers weakly
  private final Level previous;
  private final List<String> records = new ArrayList<>();

  private CapturedLogs(Logger logger, Level level) {
    this.logger = logger;
    this.previous = logger.getLevel();
    setLevel(level);
    if (!logger.isLoggable(level)) {
      logger.setLevel(level); // e.g. FINE, below the default INFO
    }
    logger.addHandler(this);
  }

  static CapturedLogs of(String loggerName, Level level) {
    return new CapturedLogs(Logger.getLogger(loggerName), level);
  }

  @Override
  public synchronized void publish(LogRecord r) {
    if (isLoggable(r)) {
      String message = r.getMessage();
      if (r.getParameters() != null) {
        message = java.text.MessageFormat.format(message, r.getParameters());
      }
      records.add(r.getLevel() + " " + r.getLoggerName() + ": " + message
          + (r.getThrown() == null ? "" : " " + r.getThrown()));
    }
  }

  synchronized List<String> records() {
    return List.copyOf(records);
  }

  synchronized void clear() {
    records.clear();
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
    logger.setLevel(previous);
  }
}
