package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.flow.ConnectionInfo;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/1.1 side of the server-leg pool: idle keep-alive connections per event loop and origin,
 * each touched only from its loop. A parked connection keeps a read pending, so a close by the
 * origin (or a byte it sends unasked) drops it at once; one not reused within the idle timeout is
 * closed by its loop's sweep. Reuse takes the newest.
 */
final class Http1Pool {
  /** When the connection was last parked ({@code System.nanoTime()}): one holder per connection, not a Long per park. */
  private static final AttributeKey<long[]> IDLE_SINCE = AttributeKey.valueOf("loupe.idle-since");

  private final Duration idleTimeout;
  private final int maxIdlePerOrigin;
  private final Map<EventLoop, Map<String, ArrayDeque<UpstreamConnection>>> pools = new ConcurrentHashMap<>();
  /** Event loops whose idle sweep is scheduled. */
  private final Set<EventLoop> sweeping = ConcurrentHashMap.newKeySet();

  Http1Pool(Duration idleTimeout, int maxIdlePerOrigin) {
    this.idleTimeout = idleTimeout;
    this.maxIdlePerOrigin = maxIdlePerOrigin;
  }

  /** An idle connection to {@code key} on {@code loop}, marked reused, or null. Call on {@code loop}. */
  UpstreamConnection take(EventLoop loop, String key) {
    ArrayDeque<UpstreamConnection> idle = pool(loop).get(key);
    while (idle != null && !idle.isEmpty()) {
      UpstreamConnection c = idle.pollLast();
      if (c.channel().isActive()) {
        ConnectionInfo i = c.info();
        if (i.reused()) {
          return c; // marked on its first reuse: the same record from then on
        }
        return new UpstreamConnection(c.channel(), key,
            new ConnectionInfo(i.id(), i.remoteAddress(), i.localAddress(), i.tls(), true));
      }
    }
    return null;
  }

  /** Whether {@code loop} holds an idle connection to {@code key}. */
  boolean hasIdle(EventLoop loop, String key) {
    ArrayDeque<UpstreamConnection> idle = pool(loop).get(key);
    return idle != null && !idle.isEmpty();
  }

  /**
   * Parks {@code c} after a complete exchange, or closes it when its origin has as many idle as
   * allowed. Call on its event loop, with its leg handler gone from the slot.
   */
  void park(UpstreamConnection c) {
    Channel ch = c.channel();
    EventLoop loop = ch.eventLoop();
    ArrayDeque<UpstreamConnection> idle = pool(loop).computeIfAbsent(c.key(), k -> new ArrayDeque<>());
    if (idle.size() >= maxIdlePerOrigin) {
      ch.close();
      return;
    }
    idle.addLast(c);
    LegSlot.attach(ch, new IdleHandler(idle, c));
    long[] since = ch.attr(IDLE_SINCE).get();
    if (since == null) {
      since = new long[1];
      ch.attr(IDLE_SINCE).set(since);
    }
    since[0] = System.nanoTime();
    if (sweeping.add(loop)) {
      loop.schedule(() -> sweepIdle(loop), sweepPeriodNanos(), TimeUnit.NANOSECONDS);
    }
    ch.read();
  }

  /**
   * Closes pooled connections idle for longer than the idle timeout. One sweep task per event loop
   * while its pool holds connections, instead of a timer scheduled and cancelled per request; a
   * connection closes between idleTimeout and idleTimeout + {@link #sweepPeriodNanos()} after
   * its last use. The oldest are at the head of each queue (reuse takes the newest).
   */
  private void sweepIdle(EventLoop loop) {
    long now = System.nanoTime();
    long limit = idleTimeout.toNanos();
    boolean any = false;
    for (ArrayDeque<UpstreamConnection> q : pool(loop).values()) {
      while (!q.isEmpty()) {
        long[] since = q.peekFirst().channel().attr(IDLE_SINCE).get();
        if (since != null && now - since[0] < limit) {
          break;
        }
        q.pollFirst().channel().close();
      }
      any |= !q.isEmpty();
    }
    if (any) {
      loop.schedule(() -> sweepIdle(loop), sweepPeriodNanos(), TimeUnit.NANOSECONDS);
    } else {
      sweeping.remove(loop);
    }
  }

  private long sweepPeriodNanos() {
    return Math.min(Math.max(idleTimeout.toNanos() / 4, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.SECONDS.toNanos(5));
  }

  /** Number of idle pooled connections (all loops). */
  int idleCount() {
    int n = 0;
    for (Map<String, ArrayDeque<UpstreamConnection>> p : pools.values()) {
      for (ArrayDeque<UpstreamConnection> q : p.values()) {
        n += q.size();
      }
    }
    return n;
  }

  /** Closes every idle connection, each on its loop. */
  void closeAll() {
    for (Map.Entry<EventLoop, Map<String, ArrayDeque<UpstreamConnection>>> e : pools.entrySet()) {
      e.getKey().execute(() -> {
        for (ArrayDeque<UpstreamConnection> q : e.getValue().values()) {
          for (UpstreamConnection c : q) {
            c.channel().close();
          }
          q.clear();
        }
      });
    }
  }

  private Map<String, ArrayDeque<UpstreamConnection>> pool(EventLoop loop) {
    return pools.computeIfAbsent(loop, l -> new HashMap<>());
  }

  /** Sits on a parked connection: an origin that closes or speaks unasked is dropped from the pool. */
  private static final class IdleHandler extends ChannelInboundHandlerAdapter {
    private final ArrayDeque<UpstreamConnection> idle;
    private final UpstreamConnection connection;

    IdleHandler(ArrayDeque<UpstreamConnection> idle, UpstreamConnection connection) {
      this.idle = idle;
      this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
      drop(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      drop(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      drop(ctx);
    }

    private void drop(ChannelHandlerContext ctx) {
      idle.remove(connection);
      ctx.close();
    }
  }
}
