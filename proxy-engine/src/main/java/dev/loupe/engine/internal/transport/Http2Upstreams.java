package dev.loupe.engine.internal.transport;

import dev.loupe.engine.flow.ConnectionInfo;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The HTTP/2 side of the server-leg pool: multiplexed connections per origin and event loop, each
 * exchange a new stream. A connection takes streams up to the origin's
 * SETTINGS_MAX_CONCURRENT_STREAMS; under more pressure another connection is opened (up to
 * {@link #MAX_CONNECTIONS_PER_ORIGIN}, after which Netty's buffering encoder queues streams). A
 * connection that received GOAWAY takes no new streams (its streams finish) and leaves the pool;
 * so does a closed one. Stream ids are allocated and HEADERS written by Netty's codec under the
 * connection's event loop, in order.
 *
 * <p>Event-loop confined per loop, like the HTTP/1.1 pool.
 */
final class Http2Upstreams {
  static final int MAX_CONNECTIONS_PER_ORIGIN = 4;
  private static final int DEFAULT_STREAM_LIMIT = 100;
  private static final int CONNECTION_WINDOW = 16 << 20;

  /** One multiplexed origin connection. */
  static final class Parent {
    final Channel channel;
    final ConnectionInfo info;
    int active;
    int streamLimit = DEFAULT_STREAM_LIMIT;
    boolean goingAway;

    Parent(Channel channel, ConnectionInfo info) {
      this.channel = channel;
      this.info = info;
    }

    boolean usable() {
      return !goingAway && channel.isActive();
    }
  }

  private final Map<EventLoop, Map<String, List<Parent>>> pools = new ConcurrentHashMap<>();
  /** HTTP/2-capable connects in progress: later acquires wait for them instead of dialling too. */
  private final Map<EventLoop, Map<String, Promise<Parent>>> pending = new ConcurrentHashMap<>();

  /** Whether {@code loop} has no HTTP/2 connection at all to {@code key} (a cold pool). */
  boolean cold(EventLoop loop, String key) {
    List<Parent> parents = pool(loop).get(key);
    return parents == null || parents.isEmpty();
  }

  /** The connect in progress to {@code key} on {@code loop} that may yield an h2 connection, or null. */
  Promise<Parent> pending(EventLoop loop, String key) {
    return pending.computeIfAbsent(loop, l -> new HashMap<>()).get(key);
  }

  /** Marks a connect in progress; it must be completed with {@link #connected}. */
  void connecting(EventLoop loop, String key) {
    pending.computeIfAbsent(loop, l -> new HashMap<>()).put(key, loop.newPromise());
  }

  /** The connect ended: with an h2 parent, or null (HTTP/1.1 or failure). Waiters proceed. */
  void connected(EventLoop loop, String key, Parent parent) {
    Promise<Parent> p = pending.computeIfAbsent(loop, l -> new HashMap<>()).remove(key);
    if (p != null) {
      p.trySuccess(parent);
    }
  }

  private Map<String, List<Parent>> pool(EventLoop loop) {
    return pools.computeIfAbsent(loop, l -> new HashMap<>());
  }

  /** A connection with a free stream slot, or null when a new connection should be opened. */
  Parent pick(EventLoop loop, String key) {
    List<Parent> parents = pool(loop).get(key);
    if (parents == null) {
      return null;
    }
    parents.removeIf(p -> !p.usable());
    Parent best = null;
    for (Parent p : parents) {
      if (p.active < p.streamLimit && (best == null || p.active < best.active)) {
        best = p;
      }
    }
    if (best == null && parents.size() >= MAX_CONNECTIONS_PER_ORIGIN) {
      for (Parent p : parents) {
        if (best == null || p.active < best.active) {
          best = p;
        }
      }
    }
    return best;
  }

  /** Turns a fresh connection that negotiated h2 into a pooled parent. */
  Parent register(EventLoop loop, String key, Channel ch, ConnectionInfo info, Supplier<Http2FrameCodec> codec) {
    Parent parent = new Parent(ch, info);
    ch.pipeline().addLast("h2", codec.get());
    ch.pipeline().addLast("h2-watch", new Watcher(parent));
    ch.pipeline().addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter() {
      // Server push is disabled in our SETTINGS; a pushed stream is a protocol violation: drop it.
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().close();
      }
    }));
    ch.config().setOption(ChannelOption.AUTO_READ, true);
    ch.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - 65_535));
    List<Parent> parents = pool(loop).computeIfAbsent(key, k -> new ArrayList<>());
    parents.add(parent);
    ch.closeFuture().addListener(f -> parents.remove(parent));
    return parent;
  }

  /** Opens a stream on {@code parent}, ready to carry HTTP messages. Completes on its loop. */
  Future<UpstreamConnection> openStream(Parent parent, String key, boolean reused) {
    Promise<UpstreamConnection> promise = parent.channel.eventLoop().newPromise();
    parent.active++;
    new Http2StreamChannelBootstrap(parent.channel)
        .option(ChannelOption.AUTO_READ, false)
        .handler(new ChannelInitializer<Http2StreamChannel>() {
          @Override
          protected void initChannel(Http2StreamChannel stream) {
            stream.pipeline().addLast(UpstreamConnector.CODEC, new Http2StreamFrameToHttpObjectCodec(false));
          }
        })
        .open()
        .addListener(f -> {
          if (!f.isSuccess()) {
            parent.active--;
            promise.tryFailure(f.cause());
            return;
          }
          Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
          stream.closeFuture().addListener(c -> parent.active--);
          ConnectionInfo i = parent.info;
          promise.trySuccess(new UpstreamConnection(stream, key,
              new ConnectionInfo(i.id(), i.remoteAddress(), i.localAddress(), i.tls(), reused), "HTTP/2", true));
        });
    return promise;
  }

  int connections() {
    int n = 0;
    for (Map<String, List<Parent>> p : pools.values()) {
      for (List<Parent> l : p.values()) {
        n += l.size();
      }
    }
    return n;
  }

  void closeAll() {
    for (Map.Entry<EventLoop, Map<String, List<Parent>>> e : pools.entrySet()) {
      e.getKey().execute(() -> {
        for (List<Parent> l : e.getValue().values()) {
          for (Parent p : new ArrayList<>(l)) {
            p.channel.close();
          }
          l.clear();
        }
      });
    }
  }

  /** Tracks the origin's stream limit and GOAWAY on the connection. */
  @ChannelHandler.Sharable
  private static final class Watcher extends ChannelInboundHandlerAdapter {
    private final Parent parent;

    Watcher(Parent parent) {
      this.parent = parent;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2SettingsFrame s) {
        Long max = s.settings().maxConcurrentStreams();
        if (max != null) {
          parent.streamLimit = (int) Math.min(Math.max(max, 1), 1000);
        }
      } else if (msg instanceof Http2GoAwayFrame) {
        parent.goingAway = true; // streams in flight finish; new ones go to another connection
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      parent.goingAway = true;
      ctx.close();
    }
  }
}
