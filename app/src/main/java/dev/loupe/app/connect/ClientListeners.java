package dev.loupe.app.connect;

import dev.loupe.engine.api.ClientListener;
import dev.loupe.engine.api.ProxyEngine;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The listeners this Loupe opened for clients it launched — browsers and terminals started from the
 * window, and browsers {@code loupe browser} started from another process ({@link LaunchRequests}) —
 * each tagging its flows with its client's label. They outlive proxy restarts: after one,
 * {@link #reopenOn} opens each again on its old port on the new engine, so a running browser stays
 * on a proxy that tags its flows.
 *
 * <p>Thread-safe; opening, closing and reopening are serialized on this object, so a listener closed
 * while the proxy restarts is not reopened.
 */
public final class ClientListeners {
  private final Supplier<ProxyEngine> engine;
  private final List<Entry> open = new CopyOnWriteArrayList<>();

  /** One client's listener, across restarts. Closing it is idempotent. */
  public final class Entry implements AutoCloseable {
    private final String label;
    private final int port;
    /** The listener on the current engine; replaced by {@link #reopenOn}. */
    private volatile ClientListener listener;
    private volatile boolean closed;

    private Entry(ClientListener listener) {
      this.label = listener.label();
      this.port = listener.address().getPort();
      this.listener = listener;
    }

    /** What its flows are tagged with. */
    public String label() {
      return label;
    }

    /** Where the client connects (a loopback address; the port stays the same across restarts). */
    public InetSocketAddress address() {
      return listener.address();
    }

    /** Open until {@link #close()} (it may be down for a moment while the proxy restarts). */
    public boolean isOpen() {
      return !closed && listener.isOpen();
    }

    @Override
    public void close() {
      synchronized (ClientListeners.this) {
        closed = true;
        open.remove(this);
        listener.close();
      }
    }

    @Override
    public String toString() {
      return label + " on " + address();
    }
  }

  /** Listeners on whichever engine {@code engine} returns when one is opened. */
  public ClientListeners(Supplier<ProxyEngine> engine) {
    this.engine = engine;
  }

  /**
   * Opens a loopback listener (any free port) whose flows are tagged {@code label}.
   *
   * @throws IOException when it cannot be bound
   */
  public synchronized Entry open(String label) throws IOException {
    Entry e = new Entry(engine.get().openClientListener(label, 0));
    open.add(e);
    return e;
  }

  /** The listeners open now. */
  public List<Entry> entries() {
    return List.copyOf(open);
  }

  /** Opens every listener again, on its old port, on {@code next} (after the proxy restarted). */
  public synchronized void reopenOn(ProxyEngine next) {
    for (Entry e : open) {
      try {
        e.listener = next.openClientListener(e.label, e.port);
      } catch (IOException | RuntimeException ex) {
        System.err.println("Loupe: cannot reopen the listener of " + e.label + " on port " + e.port + ": "
            + ex.getMessage());
      }
    }
  }
}
