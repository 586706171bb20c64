package dev.loupe.engine.api;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A loopback listener the proxy opened for one client Loupe launched (a browser, a terminal): the
 * same explicit proxy (HTTP and SOCKS5) as the main listener, without proxy authentication, and
 * every flow arriving on it carries the client's label ({@link dev.loupe.engine.flow.Flow#client()}).
 * Closing it stops listening; connections already open carry on until they end.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class ClientListener implements AutoCloseable {
  private final String label;
  private final InetSocketAddress address;
  private final Runnable closer;
  private volatile boolean closed;

  ClientListener(String label, InetSocketAddress address, Runnable closer) {
    this.label = Objects.requireNonNull(label, "label");
    this.address = Objects.requireNonNull(address, "address");
    this.closer = closer;
  }

  /** What flows from this client are tagged with, e.g. {@code Chromium}. */
  public String label() {
    return label;
  }

  /** Where it listens (a loopback address). */
  public InetSocketAddress address() {
    return address;
  }

  public boolean isOpen() {
    return !closed;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      closer.run();
    }
  }

  @Override
  public String toString() {
    return "ClientListener[" + label + " on " + ListenAddress.format(address) + "]";
  }
}
