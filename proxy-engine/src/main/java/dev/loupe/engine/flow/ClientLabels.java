package dev.loupe.engine.flow;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which listener addresses belong to a client Loupe launched (a browser or terminal started from
 * Loupe, each given a loopback listener of its own), so every flow arriving there is tagged with
 * that client's label ({@link Flow#client()}) the moment its client connection is recorded —
 * before rules, breakpoints or the store see it.
 *
 * <p>Process-wide, as the addresses are: a bound address belongs to one listener at a time. A
 * label stays on flows already tagged after {@link #remove}. Thread-safe; a lookup costs one
 * {@link ConcurrentHashMap#get}, none while no client was launched.
 */
public final class ClientLabels {
  private static final Map<InetSocketAddress, String> LABELS = new ConcurrentHashMap<>();

  private ClientLabels() {}

  /** Flows whose client connection arrives at {@code listener} from now on are tagged {@code label}. */
  public static void put(InetSocketAddress listener, String label) {
    LABELS.put(listener, label);
  }

  /** Stops tagging flows arriving at {@code listener} (its listener closed). */
  public static void remove(InetSocketAddress listener) {
    LABELS.remove(listener);
  }

  /** The label of {@code local} (a client connection's local address), or null. */
  public static String of(InetSocketAddress local) {
    return local == null || LABELS.isEmpty() ? null : LABELS.get(local);
  }
}
