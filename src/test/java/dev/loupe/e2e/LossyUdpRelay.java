package dev.loupe.e2e;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A UDP relay on 127.0.0.1 that drops a fixed share of datagrams each way, for loss tests of
 * QUIC. Peers send to {@link #address()}; each peer address gets its own socket towards the
 * target (like a NAT), so the target's answers go back to the peer that asked, from the address
 * it sent to. Which datagrams are dropped is decided by one seeded {@link Random} per direction,
 * so a run with the same traffic drops the same datagrams (by their order in that direction).
 */
final class LossyUdpRelay implements AutoCloseable {
  /** Datagrams relayed and dropped in one direction. */
  record Counts(long forwarded, long dropped) {
    double lossRate() {
      long total = forwarded + dropped;
      return total == 0 ? 0 : (double) dropped / total;
    }

    @Override
    public String toString() {
      return forwarded + " forwarded, " + dropped + " dropped (" + String.format("%.1f%%", 100 * lossRate()) + ")";
    }
  }

  private final InetSocketAddress target;
  private final double lossRate;
  private final DatagramChannel front;
  private final Map<SocketAddress, DatagramChannel> upstreams = new ConcurrentHashMap<>();
  private final Random towardsTarget;
  private final Random towardsPeers;
  private final AtomicLong upForwarded = new AtomicLong();
  private final AtomicLong upDropped = new AtomicLong();
  private final AtomicLong downForwarded = new AtomicLong();
  private final AtomicLong downDropped = new AtomicLong();
  private volatile boolean closed;
  /** While set, every datagram towards the target is dropped (UDP blocked), counted as dropped. */
  private volatile boolean blocked;

  LossyUdpRelay(InetSocketAddress target, double lossRate, long seed) throws IOException {
    this.target = target;
    this.lossRate = lossRate;
    this.towardsTarget = new Random(seed);
    this.towardsPeers = new Random(seed * 31 + 17);
    front = DatagramChannel.open();
    front.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
    front.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
    front.bind(new InetSocketAddress("127.0.0.1", 0));
    start("lossy-udp-relay-front", this::frontLoop);
  }

  InetSocketAddress address() {
    try {
      return (InetSocketAddress) front.getLocalAddress();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  int port() {
    return address().getPort();
  }

  /** Blocks (drops) or lets through every datagram towards the target from now on. */
  void blocked(boolean b) {
    blocked = b;
  }

  /** Peer to target. */
  Counts towardsTarget() {
    return new Counts(upForwarded.get(), upDropped.get());
  }

  /** Target to peers. */
  Counts towardsPeers() {
    return new Counts(downForwarded.get(), downDropped.get());
  }

  @Override
  public String toString() {
    return "towards the target: " + towardsTarget() + "; towards the peers: " + towardsPeers();
  }

  private static void start(String name, Runnable loop) {
    Thread t = new Thread(loop, name);
    t.setDaemon(true);
    t.start();
  }

  private void frontLoop() {
    ByteBuffer buf = ByteBuffer.allocateDirect(65_536);
    while (!closed) {
      try {
        buf.clear();
        SocketAddress peer = front.receive(buf);
        buf.flip();
        DatagramChannel up = upstreams.computeIfAbsent(peer, this::openUpstream);
        if (blocked || towardsTarget.nextDouble() < lossRate) {
          upDropped.incrementAndGet();
        } else {
          up.write(buf);
          upForwarded.incrementAndGet();
        }
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (closed) {
          return;
        }
        // e.g. ICMP port unreachable reported on a connected socket: UDP carries on
      }
    }
  }

  private DatagramChannel openUpstream(SocketAddress peer) {
    try {
      DatagramChannel up = DatagramChannel.open();
      up.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
      up.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
      up.bind(new InetSocketAddress("127.0.0.1", 0));
      up.connect(target);
      start("lossy-udp-relay-upstream-" + peer, () -> upstreamLoop(up, peer));
      return up;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private void upstreamLoop(DatagramChannel up, SocketAddress peer) {
    ByteBuffer buf = ByteBuffer.allocateDirect(65_536);
    while (!closed) {
      try {
        buf.clear();
        up.receive(buf);
        buf.flip();
        boolean drop;
        synchronized (towardsPeers) {
          drop = towardsPeers.nextDouble() < lossRate;
        }
        if (drop) {
          downDropped.incrementAndGet();
        } else {
          front.send(buf, peer);
          downForwarded.incrementAndGet();
        }
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      front.close();
    } catch (IOException ignored) {
      // closing
    }
    for (DatagramChannel up : upstreams.values()) {
      try {
        up.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
