package dev.loupe.app;

import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.har.HarWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A running headless session: prints a line per completed flow (like mitmdump) and, on SIGINT or
 * SIGTERM, stops the proxy, closes the session file ({@code --session}) and writes the HAR file
 * atomically before the JVM exits.
 */
final class HeadlessSession {
  private final Supplier<ProxyEngine> engine;
  private final FlowStore store;
  /** The session file flows are recorded into, or null (flows only in memory). */
  private volatile Session session;
  private final Path har;
  private final PrintStream out;
  /** Lines not yet written that may wait before new ones are dropped (and counted). */
  private static final int LINE_QUEUE = 65_536;

  private volatile FlowStore.Subscription printer;
  /** Writes the per-flow lines in batches off the listener thread; null with {@code -q} and while the window shows the flows. */
  private volatile LinePrinter lines;
  private final FlowLine lineFormat = new FlowLine(ZoneId.systemDefault());
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AutoCloseable plugins;

  /**
   * {@code engine} gives the proxy running at shutdown (the settings may have restarted it);
   * {@code session} (may be null) is the session file flows are recorded into; {@code plugins} (may
   * be null) is closed after the plugins' {@code done} hooks ran.
   */
  HeadlessSession(Supplier<ProxyEngine> engine, FlowStore store, Session session, Path har, PrintStream out,
      AutoCloseable plugins) {
    this.plugins = plugins;
    this.engine = engine;
    this.store = store;
    this.session = session;
    this.har = har;
    this.out = out;
    Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "loupe-shutdown"));
  }

  /**
   * Prints a line per completed flow on the output given at construction from now on (nothing if it was null: -q).
   * Headless runs call it at once; the window does not (its flow table shows them; the lines cost the relay ~a
   * quarter of its throughput), unless it cannot open and Loupe goes on headless.
   */
  synchronized void printFlowLines() {
    if (out != null && printer == null) {
      lines = new LinePrinter(out, LINE_QUEUE, "loupe-flow-lines");
      // COMPLETED only: a flow's ADDED and UPDATED events are then not queued at all (three of its
      // four events, each a queue node and atomics on the event loop that finished the flow).
      printer = store.subscribe(this::print, 10_000, EnumSet.of(FlowEvent.Type.COMPLETED));
    }
  }

  /** Records into {@code s} from now on (the window could not open; null: none); closed at shutdown. */
  void record(Session s) {
    session = s;
  }

  /** Blocks until the JVM is shutting down and the session has been saved. */
  void runUntilShutdown() throws InterruptedException {
    stopped.await();
  }

  private void shutdown() {
    try {
      engine.get().intercept().releaseAll(); // nothing stays paused while the proxy shuts down
      engine.get().close();
      // After the engine: the observing hooks got every flow; done() runs (bounded by the hook timeout).
      engine.get().intercept().plugins().close();
      if (plugins != null) {
        try {
          plugins.close();
        } catch (Exception e) {
          System.err.println("Loupe: closing the plugins: " + e.getMessage());
        }
      }
      FlowStore.Subscription printer;
      synchronized (this) {
        printer = this.printer;
      }
      if (printer != null) {
        printer.awaitIdle(2, TimeUnit.SECONDS);
        printer.close();
        lines.close(2_000);
        if (lines.dropped() > 0) {
          System.err.println("Loupe: " + lines.dropped() + " flow lines were not printed (the output was too slow)");
        }
      }
      Session s = session;
      if (s != null) {
        closeSession(s);
      } else if (har != null) {
        List<Flow> flows = store.snapshot();
        try {
          HarWriter.writeAtomically(flows, har);
          System.err.println("Loupe: wrote " + flows.size() + " flows to " + har.toAbsolutePath());
        } catch (IOException | RuntimeException e) {
          System.err.println("Loupe: could not write HAR to " + har + ": " + e.getMessage());
        }
      }
    } finally {
      stopped.countDown();
    }
  }

  /** Writes what is left, the HAR if asked for (from the file: every flow), and closes the file. */
  private void closeSession(Session session) {
    try {
      session.flush();
      if (har != null) {
        long n = session.exportHar(har, Filter.ALL);
        System.err.println("Loupe: wrote " + n + " flows to " + har.toAbsolutePath());
      }
    } catch (SessionException e) {
      System.err.println("Loupe: " + e.getMessage());
    }
    try {
      long n = session.count();
      if (!session.indexed()) { // recorded without them: closing builds them (seconds per million flows)
        System.err.println("Loupe: indexing " + n + (n == 1 ? " flow" : " flows") + " for filters");
      }
      session.close();
      System.err.println("Loupe: session saved to " + session.file() + " (" + n + (n == 1 ? " flow)" : " flows)"));
    } catch (SessionException e) {
      System.err.println("Loupe: " + e.getMessage());
    }
  }

  private void print(FlowEvent e) {
    if (e.type() == FlowEvent.Type.COMPLETED) {
      lines.print(lineFormat.format(e.flow()));
    }
  }
}
