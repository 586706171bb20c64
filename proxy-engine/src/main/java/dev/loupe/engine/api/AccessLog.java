package dev.loupe.engine.api;

import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Clients the proxy refused because they failed proxy authentication: the newest
 * {@value #CAPACITY} are kept, and listeners hear of each one as it happens.
 *
 * <h3>Threads</h3>
 * Event loops call {@link #refused}; any thread reads. Recording takes a short lock and never blocks
 * otherwise; listeners run on the calling event loop, so they must be quick (queue, print).
 */
public final class AccessLog {
  /** How many refusals are kept. */
  public static final int CAPACITY = 200;

  /**
   * One refused attempt.
   *
   * @param client   the client's address
   * @param protocol {@code HTTP} (407) or {@code SOCKS5}
   * @param reason   what was wrong ("no credentials", "wrong user name or password", ...)
   * @param username the user name the client offered, or null
   */
  public record Refusal(Instant time, InetSocketAddress client, String protocol, String reason, String username) {
    public Refusal {
      Objects.requireNonNull(time, "time");
      Objects.requireNonNull(protocol, "protocol");
      Objects.requireNonNull(reason, "reason");
    }

    /** {@code 192.0.2.7 (HTTP): wrong user name or password (user "x")}. */
    @Override
    public String toString() {
      return (client == null ? "?" : client.getAddress().getHostAddress()) + " (" + protocol + "): " + reason
          + (username == null ? "" : " (user \"" + username + "\")");
    }
  }

  private final ArrayDeque<Refusal> recent = new ArrayDeque<>();
  private final AtomicLong total = new AtomicLong();
  private final List<Consumer<Refusal>> listeners = new CopyOnWriteArrayList<>();

  /** Records a refusal and tells the listeners. */
  public void refused(InetSocketAddress client, String protocol, String reason, String username) {
    Refusal r = new Refusal(Instant.now(), client, protocol, reason, username);
    synchronized (recent) {
      if (recent.size() == CAPACITY) {
        recent.removeFirst();
      }
      recent.addLast(r);
    }
    total.incrementAndGet();
    for (Consumer<Refusal> l : listeners) {
      try {
        l.accept(r);
      } catch (RuntimeException e) {
        // a listener's failure is its own; the proxy carries on
      }
    }
  }

  /** The newest refusals, oldest first. */
  public List<Refusal> recent() {
    synchronized (recent) {
      return new ArrayList<>(recent);
    }
  }

  /** Refusals since the proxy started (including those no longer in {@link #recent()}). */
  public long total() {
    return total.get();
  }

  /** Calls {@code listener} for every refusal from now on (on the event loop; keep it short). */
  public AutoCloseable subscribe(Consumer<Refusal> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return () -> listeners.remove(listener);
  }
}
