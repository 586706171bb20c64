package dev.loupe.engine.internal.upstream;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.transport.FlushCoalescer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The HTTP/2 side of the server-leg pool: multiplexed connections per origin and event loop, each
 * exchange a new stream. A connection takes streams up to the origin's
 * SETTINGS_MAX_CONCURRENT_STREAMS. Acquires that find no free slot wait in the origin's queue;
 * another connection is dialled only when more are waiting than the connects in progress will
 * take, and never more than {@link #MAX_CONNECTIONS_PER_ORIGIN} per loop, so a cold burst of
 * hundreds of streams opens a handful of connections, not one per stream. A connection that
 * received GOAWAY takes no new streams (its streams finish) and leaves the pool; so does a closed
 * one. Stream ids are allocated and HEADERS written by Netty's codec under the connection's event
 * loop, in order.
 *
 * <h3>Resets</h3>
 * Every exchange that ends before its response did (the client vanished, the response timed out)
 * resets its stream, on a connection other clients' exchanges share. Origins defend against rapid
 * reset (CVE-2023-44487) by closing a connection that sends them too many RST_STREAMs, and every
 * stream still open on it dies with it: Netty's HTTP/2 server sends GOAWAY ENHANCE_YOUR_CALM after
 * more than 200 in 30 s. So Loupe counts the RST_STREAMs it writes on each connection
 * ({@link OriginFrameTap}, over the connection's whole life, which is stricter than any window) and
 * keeps the resets sent plus the streams open (each of which may yet be reset) under
 * {@link #RESET_BUDGET}: a connection takes a new stream only below it, so no origin sees more
 * resets on one connection from Loupe's streams than that. A connection that has sent
 * {@link #RESETS_BEFORE_RETIRING} is retired: it takes no new streams, the ones on it finish, and
 * then Loupe closes it (GOAWAY NO_ERROR); new streams go to another connection. A connection that
 * received GOAWAY is closed the same way once its streams have ended.
 *
 * <p>A connection that fails while another to the origin stands or is being dialled (the origin
 * refused one more, or dropped it in its handshake) fails no request: the acquire that asked for it
 * waits, first in line, for a stream on the others, and no further connection is dialled for
 * {@link #DIAL_HOLD_NANOS} while any stands or is being dialled. Only a dial that was the origin's
 * last hope fails its acquire (with the dial's error).
 *
 * <p>Event-loop confined per loop, like the HTTP/1.1 pool; {@link UpstreamConnector} drives it.
 */
final class Http2Upstreams {
  static final int MAX_CONNECTIONS_PER_ORIGIN = 4;
  /** After an extra connection failed: how long the origin's standing connections carry it alone. */
  static final long DIAL_HOLD_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
  private static final int DEFAULT_STREAM_LIMIT = 100;
  /**
   * The most RST_STREAMs Loupe's streams may cost one connection: resets sent plus streams open
   * stay below it. Three quarters of Netty's server limit (200 in 30 s); nginx, Envoy and others
   * weigh resets against the streams they let finish, which this stays well clear of.
   */
  static final int RESET_BUDGET = 150;
  /** RST_STREAMs sent after which a connection takes no new streams and closes once its streams have ended. */
  static final int RESETS_BEFORE_RETIRING = 100;
  private static final Logger LOG = Logger.getLogger(Http2Upstreams.class.getName());
  private static final int CONNECTION_WINDOW = 16 << 20;

  /** One multiplexed origin connection. */
  static final class Parent {
    final Channel channel;
    final ConnectionInfo info;
    int active;
    /** Streams opened so far: the first one is on a fresh connection, the rest on a reused one. */
    int opened;
    /**
     * Until the origin's first SETTINGS arrive, only the stream of the exchange that dialled the
     * connection goes on it: the origin's MAX_CONCURRENT_STREAMS is not known yet.
     */
    int streamLimit = 1;
    boolean goingAway;
    /** RST_STREAM frames written on this connection so far. */
    int resetsSent;
    /** Sent {@link #RESETS_BEFORE_RETIRING} resets: takes no new streams, closed once its streams have ended. */
    boolean retired;
    /**
     * Streams whose channel closed while Netty's codec still counted them active (the origin's
     * END_STREAM still being dispatched, or our RST_STREAM not yet written). Their slots free when
     * the codec closes them: a stream opened before that would be one over the origin's
     * MAX_CONCURRENT_STREAMS, and Netty would fail its HEADERS.
     */
    final Set<Integer> closing = new HashSet<>();
    /** Opens its streams (made once: a bootstrap per stream is two maps and their iterators). */
    private Http2StreamChannelBootstrap streams;
    /** {@link #info} marked reused, as every stream after the first records it (made once). */
    private ConnectionInfo reusedInfo;

    Parent(Channel channel, ConnectionInfo info) {
      this.channel = channel;
      this.info = info;
    }

    boolean usable() {
      return !goingAway && !retired && channel.isActive();
    }

    /**
     * Streams it may take now: below the origin's limit, and below {@link #RESET_BUDGET} even if
     * every stream open on it were reset.
     */
    int freeSlots() {
      return Math.min(streamLimit - active, RESET_BUDGET - resetsSent - active);
    }
  }

  /**
   * The HTTP/2 connections of one event loop to one origin, the connects in progress for them and
   * the acquires waiting for a stream slot. Confined to its event loop.
   */
  static final class Origin {
    final List<Parent> parents = new ArrayList<>();
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    int connecting;
    /** The origin's MAX_CONCURRENT_STREAMS as last announced (a guess until then). */
    int knownStreamLimit = DEFAULT_STREAM_LIMIT;
    /** Run when a stream ends or SETTINGS arrive while acquires wait (slots may be free); set once. */
    Runnable onSlotFreed;
    /** {@link System#nanoTime()} until which no connection is dialled while another stands or is dialled; 0: none. */
    long dialsHeldUntil;

    /** Whether a usable connection to the origin stands or is being dialled. */
    boolean connectedOrConnecting() {
      parents.removeIf(p -> !p.usable());
      return !parents.isEmpty() || connecting > 0;
    }

    /** A connection failed while {@link #connectedOrConnecting()}: the others carry the load for a while. */
    void holdDials() {
      dialsHeldUntil = System.nanoTime() + DIAL_HOLD_NANOS;
    }

    /** The usable connection with the most free stream slots, or null when all are full. */
    Parent withFreeSlot() {
      parents.removeIf(p -> !p.usable());
      Parent best = null;
      for (Parent p : parents) {
        if (p.freeSlots() > 0 && (best == null || p.active < best.active)) {
          best = p;
        }
      }
      return best;
    }

    /**
     * Whether the waiting acquires justify another connection: under the per-origin cap, and more
     * waiting than the connects in progress will take (each is expected to take as many streams
     * as this origin last allowed, or {@value #DEFAULT_STREAM_LIMIT}).
     */
    boolean shouldDial() {
      if (parents.size() + connecting >= MAX_CONNECTIONS_PER_ORIGIN) {
        return false;
      }
      boolean held = dialsHeldUntil != 0 && System.nanoTime() - dialsHeldUntil < 0;
      if (held && (!parents.isEmpty() || connecting > 0)) {
        return false;
      }
      return (long) connecting * knownStreamLimit < waiters.size();
    }
  }

  /** An HTTP/2-capable acquire waiting for a stream slot or a connection. */
  record Waiter(String scheme, String host, int port, RecordedFlow flow, UpstreamConnector.Want want,
      Promise<UpstreamConnector.Result> promise) {}

  private final Map<EventLoop, Map<String, Origin>> origins = new ConcurrentHashMap<>();

  /** The state for {@code key} on {@code loop}; call on that loop. */
  Origin origin(EventLoop loop, String key) {
    return origins.computeIfAbsent(loop, l -> new HashMap<>()).computeIfAbsent(key, k -> new Origin());
  }

  /** Whether {@code loop} holds an open HTTP/2 connection to {@code key}. Runs on {@code loop}. */
  boolean hasConnection(EventLoop loop, String key) {
    Map<String, Origin> m = origins.get(loop);
    Origin o = m == null ? null : m.get(key);
    return o != null && o.parents.stream().anyMatch(p -> p.channel.isActive());
  }

  /** Turns a fresh connection that negotiated h2 into a pooled parent. */
  Parent register(Origin origin, Channel ch, ConnectionInfo info, Supplier<Http2FrameCodec> codec) {
    Parent parent = new Parent(ch, info);
    FlushCoalescer.install(ch); // request frames of all streams leave in batched writes
    Http2FrameCodec h2 = codec.get();
    h2.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        if (parent.closing.remove(stream.id())) {
          slotFreed(origin, parent);
        }
      }
    });
    ch.attr(OriginFrameTap.RESET_SENT).set(() -> resetSent(origin, parent));
    ch.pipeline().addLast("h2", h2);
    ch.pipeline().addLast("h2-watch", new Watcher(origin, parent));
    ch.pipeline().addLast("h2-multiplex", new Http2MultiplexHandler(new ChannelInboundHandlerAdapter() {
      // Server push is disabled in our SETTINGS; a pushed stream is a protocol violation: drop it.
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        ctx.channel().close();
      }
    }));
    ch.config().setOption(ChannelOption.AUTO_READ, true);
    ch.writeAndFlush(new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - 65_535));
    origin.parents.add(parent);
    ch.closeFuture().addListener(f -> origin.parents.remove(parent));
    return parent;
  }

  /**
   * Opens a stream on {@code parent}. Its pipeline is empty: the stream carries HTTP/2 frames (the
   * server leg reads and writes them; a user that wants HTTP objects adds Netty's adapter).
   * Completes on its loop.
   */
  Future<UpstreamConnection> openStream(Origin origin, Parent parent, String key) {
    boolean reused = parent.opened++ > 0;
    Promise<UpstreamConnection> promise = parent.channel.eventLoop().newPromise();
    parent.active++;
    if (parent.streams == null) {
      parent.streams = new Http2StreamChannelBootstrap(parent.channel).option(ChannelOption.AUTO_READ, false);
    }
    parent.streams.open()
        .addListener(f -> {
          if (!f.isSuccess()) {
            parent.active--;
            closeIfDrained(parent);
            promise.tryFailure(f.cause());
            return;
          }
          Http2StreamChannel stream = (Http2StreamChannel) f.getNow();
          stream.closeFuture().addListener(c -> {
            Http2Stream.State state = stream.stream().state();
            if (state == Http2Stream.State.IDLE || state == Http2Stream.State.CLOSED) {
              slotFreed(origin, parent); // the codec no longer counts it (or never did: no HEADERS written)
            } else {
              parent.closing.add(stream.stream().id()); // freed by the codec's onStreamClosed
            }
          });
          ConnectionInfo i = parent.info;
          ConnectionInfo info = i;
          if (reused) {
            if (parent.reusedInfo == null) {
              parent.reusedInfo = new ConnectionInfo(i.id(), i.remoteAddress(), i.localAddress(), i.tls(), true);
            }
            info = parent.reusedInfo;
          } else if (i.reused()) {
            info = new ConnectionInfo(i.id(), i.remoteAddress(), i.localAddress(), i.tls(), false);
          }
          promise.trySuccess(new UpstreamConnection(stream, key, info, "HTTP/2", true));
        });
    return promise;
  }

  /** A stream of {@code parent} no longer counts against the origin's limit: waiting acquires may go. */
  private static void slotFreed(Origin origin, Parent parent) {
    parent.active--;
    closeIfDrained(parent);
    if (!origin.waiters.isEmpty()) {
      origin.onSlotFreed.run();
    }
  }

  /**
   * Loupe wrote a RST_STREAM on {@code parent} (called inside the codec's write): at
   * {@link #RESETS_BEFORE_RETIRING}, the connection is retired (see "Resets" above) and the
   * waiting acquires, if any, are served again, on another connection.
   */
  private static void resetSent(Origin origin, Parent parent) {
    if (++parent.resetsSent < RESETS_BEFORE_RETIRING || parent.retired) {
      return;
    }
    parent.retired = true;
    LOG.fine(() -> "retiring HTTP/2 connection " + parent.channel + " after " + parent.resetsSent
        + " RST_STREAMs sent (" + parent.active + " streams still open on it)");
    parent.channel.eventLoop().execute(() -> {
      closeIfDrained(parent);
      if (!origin.waiters.isEmpty() && origin.onSlotFreed != null) {
        origin.onSlotFreed.run();
      }
    });
  }

  /**
   * Closes {@code parent} once it takes no new streams (GOAWAY received, or retired) and its last
   * stream has ended: Netty's codec sends GOAWAY(NO_ERROR) and closes. Deferred, as the last stream
   * may end inside the codec's dispatch.
   */
  private static void closeIfDrained(Parent parent) {
    if ((parent.goingAway || parent.retired) && parent.active == 0 && parent.channel.isActive()) {
      parent.channel.eventLoop().execute(() -> {
        if (parent.active == 0) {
          parent.channel.close();
        }
      });
    }
  }

  int connections() {
    int n = 0;
    for (Map<String, Origin> m : origins.values()) {
      for (Origin o : m.values()) {
        n += o.parents.size();
      }
    }
    return n;
  }

  void closeAll() {
    for (Map.Entry<EventLoop, Map<String, Origin>> e : origins.entrySet()) {
      e.getKey().execute(() -> {
        for (Origin o : e.getValue().values()) {
          for (Parent p : new ArrayList<>(o.parents)) {
            p.channel.close();
          }
          o.parents.clear();
        }
      });
    }
  }

  /** Tracks the origin's stream limit and GOAWAY on the connection. */
  @ChannelHandler.Sharable
  private static final class Watcher extends ChannelInboundHandlerAdapter {
    private final Origin origin;
    private final Parent parent;
    private boolean settled;

    Watcher(Origin origin, Parent parent) {
      this.origin = origin;
      this.parent = parent;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2SettingsFrame s) {
        Long max = s.settings().maxConcurrentStreams();
        if (max != null || !settled) {
          parent.streamLimit = max == null ? DEFAULT_STREAM_LIMIT : (int) Math.min(Math.max(max, 1), 1000);
          origin.knownStreamLimit = parent.streamLimit;
        }
        settled = true;
        if (!origin.waiters.isEmpty() && origin.onSlotFreed != null) {
          origin.onSlotFreed.run(); // the waiting acquires may fit now
        }
      } else if (msg instanceof Http2GoAwayFrame) {
        parent.goingAway = true; // streams in flight finish; new ones go to another connection
        closeIfDrained(parent);
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
