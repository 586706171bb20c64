package dev.loupe.engine.internal.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Raw TCP connections (through the upstream proxy, if any) dialled to answer an intercepted
 * CONNECT only once the origin is known to be reachable ({@code ConnectStrategy.EAGER}). Each waits
 * here until the tunnel's first request dials the same {@code host:port} on the same event loop,
 * which then uses it instead of dialling again (TLS and the codec go on top): eager connecting costs
 * no second TCP handshake. One not taken within {@link #TTL_SECONDS} s is closed; one the origin
 * gave up on meanwhile fails its TLS handshake, and {@link Dialer} then dials afresh.
 *
 * <p>Each event loop has its own map; every method runs on the connection's loop.
 */
final class PredialedConnections {
  static final long TTL_SECONDS = 30;
  private static final String GUARD = "predialed-guard";

  private final Map<EventLoop, Map<String, ArrayDeque<Channel>>> byLoop = new ConcurrentHashMap<>();

  private Map<String, ArrayDeque<Channel>> map(EventLoop loop) {
    return byLoop.computeIfAbsent(loop, l -> new HashMap<>());
  }

  private static String key(String host, int port) {
    return host + ":" + port;
  }

  /** Parks {@code ch}, connected to {@code host:port}. Runs on its event loop. */
  void park(Channel ch, String host, int port) {
    ArrayDeque<Channel> q = map(ch.eventLoop()).computeIfAbsent(key(host, port), k -> new ArrayDeque<>());
    q.addLast(ch);
    ch.pipeline().addLast(GUARD, new ChannelInboundHandlerAdapter() {
      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        drop(ctx);
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        drop(ctx);
      }

      private void drop(ChannelHandlerContext ctx) {
        q.remove(ch);
        ctx.close();
      }
    });
    ch.eventLoop().schedule(() -> {
      if (q.remove(ch)) {
        ch.close();
      }
    }, TTL_SECONDS, TimeUnit.SECONDS);
    // No read while parked: a server that speaks first (SMTP, SSH banners) keeps its bytes in the
    // socket for whoever takes the connection (the sniffer's opaque tunnel).
  }

  /** A parked connection to {@code host:port} on {@code loop}, unparked, or null. Runs on {@code loop}. */
  Channel take(EventLoop loop, String host, int port) {
    Map<String, ArrayDeque<Channel>> m = byLoop.get(loop);
    ArrayDeque<Channel> q = m == null ? null : m.get(key(host, port));
    while (q != null && !q.isEmpty()) {
      Channel ch = q.pollFirst();
      if (ch.isActive()) {
        ch.pipeline().remove(GUARD);
        return ch;
      }
    }
    return null;
  }

  /** How many connections are parked (all loops). */
  int size() {
    int n = 0;
    for (Map<String, ArrayDeque<Channel>> m : byLoop.values()) {
      for (ArrayDeque<Channel> q : m.values()) {
        n += q.size();
      }
    }
    return n;
  }

  void closeAll() {
    for (Map.Entry<EventLoop, Map<String, ArrayDeque<Channel>>> e : byLoop.entrySet()) {
      e.getKey().execute(() -> {
        for (ArrayDeque<Channel> q : e.getValue().values()) {
          for (Channel ch : q) {
            ch.close();
          }
          q.clear();
        }
      });
    }
  }
}
