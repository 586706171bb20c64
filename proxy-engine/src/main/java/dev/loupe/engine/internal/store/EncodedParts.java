package dev.loupe.engine.internal.store;

/**
 * The encoded bytes of the parts of a detail blob that many flows share: a connection's TLS facts
 * (with its certificate chain, hashed and stored once) and its addresses. The legs hand every flow
 * of a connection the same {@code TlsInfo} and {@code InetSocketAddress} objects, which are
 * immutable, so a part is encoded once per connection instead of once per flow. Keyed by identity
 * in a small direct-mapped table (a colliding part replaces the older one): bounded, no clearing.
 *
 * <p>Confined to the session's writer thread. {@link #clear} after a rolled-back batch: the
 * certificates a cached TLS part names may not be in the file any more.
 */
final class EncodedParts {
  private static final int SLOTS = 256;
  private final Object[] keys = new Object[SLOTS];
  private final byte[][] values = new byte[SLOTS][];

  /** The bytes {@code key} was encoded to, or null. */
  byte[] get(Object key) {
    int slot = slot(key);
    return keys[slot] == key ? values[slot] : null;
  }

  void put(Object key, byte[] encoded) {
    int slot = slot(key);
    keys[slot] = key;
    values[slot] = encoded;
  }

  void clear() {
    java.util.Arrays.fill(keys, null);
    java.util.Arrays.fill(values, null);
  }

  private static int slot(Object key) {
    int h = System.identityHashCode(key);
    return (h ^ (h >>> 16)) & (SLOTS - 1);
  }
}
