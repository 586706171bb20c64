package dev.loupe.app;

import dev.loupe.engine.api.ProxyEngine;
import dev.loupe.engine.api.session.Session;
import dev.loupe.engine.api.session.model.SessionException;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Protocols;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.har.HarWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A running headless session: prints a line per completed flow (like mitmdump) and, on SIGINT or
 * SIGTERM, stops the proxy, closes the session file ({@code --session}) and writes the HAR file
 * atomically before the JVM exits.
 */
final class HeadlessSession {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

  private final Supplier<ProxyEngine> engine;
  private final FlowStore store;
  /** The session file flows are recorded into, or null (flows only in memory). */
  private volatile Session session;
  private final Path har;
  private final PrintStream out;
  private final FlowStore.Subscription printer;
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
    this.printer = out == null ? null : store.subscribe(this::print);
    Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "loupe-shutdown"));
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
      if (printer != null) {
        printer.awaitIdle(2, TimeUnit.SECONDS);
        printer.close();
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
      session.close();
      System.err.println("Loupe: session saved to " + session.file() + " (" + n + (n == 1 ? " flow)" : " flows)"));
    } catch (SessionException e) {
      System.err.println("Loupe: " + e.getMessage());
    }
  }

  private void print(FlowEvent e) {
    if (e.type() != FlowEvent.Type.COMPLETED) {
      return;
    }
    out.println(line(e.flow()));
    out.flush();
  }

  /** One line per flow: time, method, URL, status, size, duration, protocol per side, tier. */
  static String line(Flow f) {
    RequestHead req = f.request();
    ResponseHead res = f.response();
    StringBuilder sb = new StringBuilder(160);
    sb.append(TIME.format(f.startedAt())).append(' ');
    sb.append(req == null ? "?" : req.method()).append(' ');
    sb.append(req == null ? "?" : f.tier() == FlowTier.TUNNEL ? req.authority() : req.url());
    sb.append(' ');
    if (f.error() != null) {
      sb.append("ERROR ").append(f.error().kind().name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .append(": ").append(f.error().message());
    } else if (f.tier() == FlowTier.TUNNEL) {
      sb.append("up ").append(Sizes.human(f.tunnelBytesClientToServer()))
          .append(" down ").append(Sizes.human(f.tunnelBytesServerToClient()));
    } else if (res != null) {
      sb.append(res.status());
      sb.append(' ').append(Sizes.human(f.responseBody().size()));
    }
    double ms = f.timings().totalMs();
    sb.append(' ').append(ms < 0 ? "-" : ms < 1000 ? String.format(Locale.ROOT, "%.0fms", ms)
        : String.format(Locale.ROOT, "%.2fs", ms / 1000));
    sb.append(' ').append(Protocols.shortName(f.clientProtocol())).append('/').append(Protocols.shortName(f.serverProtocol()));
    sb.append(' ').append(f.tier().name().toLowerCase(Locale.ROOT));
    if (f.isWebSocket()) {
      sb.append(" websocket ").append(f.webSocketMessages().size()).append(" messages");
      if (f.webSocketCloseCode() >= 0) {
        sb.append(" close ").append(f.webSocketCloseCode());
      }
    }
    return sb.toString();
  }
}
