package dev.loupe.engine.internal.http3;

import dev.loupe.engine.internal.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http3.DefaultHttp3GoAwayFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicCodecDispatcher;
import io.netty.handler.codec.quic.QuicConnectionIdGenerator;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A UDP socket speaking QUIC with HTTP/3 on top: the reverse-mode listener's second half, on the
 * same port number as its TCP side.
 *
 * <p>Transport settings: 16 MiB connection and 2 MiB stream flow-control windows (credit returns
 * as the legs consume, so a slow origin bounds what a client can push), 256 concurrent request
 * streams (as for HTTP/2), a 30 s idle timeout — which is also how a client that vanished without
 * CONNECTION_CLOSE is cleaned up — and no Retry round trip (a debugging proxy, not an
 * amplification target on the open internet).
 *
 * <h3>One socket, or several</h3>
 * A UDP socket is one channel on one event loop, and every QUIC connection of that socket, its
 * request streams and (through them) the origin connections of its requests run on that loop: all
 * of HTTP/3 on one thread. With {@code -Dloupe.h3.sockets=N} (epoll only) the listener binds N
 * sockets on the same port ({@code SO_REUSEPORT}), one per event loop up to the group's size; the
 * kernel spreads clients over them by address and port, so a connection, its streams and its origin
 * legs live on one socket's loop. The connection ids Loupe issues carry their socket's index (the
 * first two bytes), and {@link QuicCodecDispatcher} hands a packet that lands on another socket (a
 * client whose address changed) to the codec that owns its connection. The default is one socket:
 * on the 2-core box, with the load generator and the origin beside it, two sockets cost ~50 % more
 * event-loop CPU per request and gave fewer requests per second (docs/PERFORMANCE.md, "HTTP/3 at
 * c=64"): one loop's read batch covers many connections and leaves in one flush, several split it.
 * (A client behind a NAT that rebinds did not keep its connection with one socket either: through a
 * relay that changed its source port the next request timed out; tried 2026-12-03, cause not
 * investigated.)
 *
 * <p>With several sockets, {@code SO_REUSEPORT} lets another process of the same user bind the same UDP port and take a
 * share of new clients; Loupe's TCP listener on that port number (bound first, without it) keeps
 * a second Loupe away.
 *
 * <p>{@link #close()} tells every connection GOAWAY (on its control stream) and closes it with
 * H3_NO_ERROR, then closes the sockets.
 */
public final class Http3Listener implements AutoCloseable {
  static final int MAX_STREAMS = 256;
  static final long CONNECTION_WINDOW = 16L << 20;
  static final long STREAM_WINDOW = 2L << 20;
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
  /** How many UDP sockets to bind (epoll only, at most one per event loop); default 1. */
  public static final String SOCKETS_PROPERTY = "loupe.h3.sockets";
  private static final AttributeKey<Long> LAST_STREAM = AttributeKey.valueOf("loupe.h3.lastStream");

  private final List<Channel> sockets = new ArrayList<>();
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  private Http3Listener() {}

  /**
   * Binds UDP {@code address}: one socket on one loop of {@code group}, or as many as {@value
   * #SOCKETS_PROPERTY} says on as many loops (epoll); {@code connectionHandler} is added to every
   * accepted QUIC connection (it installs HTTP/3).
   */
  public static Http3Listener bind(EventLoopGroup group, InetSocketAddress address, QuicServerContexts tls,
      ChannelInitializer<QuicChannel> connectionHandler) throws IOException {
    Http3Listener self = new Http3Listener();
    ChannelInitializer<QuicChannel> accepted = new ChannelInitializer<>() {
      @Override
      protected void initChannel(QuicChannel quic) {
        self.connections.add(quic);
        quic.pipeline().addLast(new StreamTracker());
        quic.pipeline().addLast(connectionHandler);
      }
    };
    List<EventLoop> loops = new ArrayList<>();
    int wanted = Integer.getInteger(SOCKETS_PROPERTY, 1);
    if (wanted > 1 && Transports.datagramReusePort()) {
      for (EventExecutor e : group) {
        if (loops.size() < wanted) {
          loops.add((EventLoop) e);
        }
      }
    } else {
      loops.add(group.next());
    }
    // One socket: its codec alone, with QUIC's own connection ids (the several-socket mode measured
    // slower on two cores, so the default path is left exactly as it was). Several: a dispatcher
    // shared by all numbers them and routes a packet to the codec of its connection.
    ChannelHandler handler = loops.size() == 1 ? codec(tls, accepted, 0, null) : new QuicCodecDispatcher() {
      @Override
      protected void initChannel(Channel udp, int connectionIdLength, QuicConnectionIdGenerator ids) {
        udp.pipeline().addLast(codec(tls, accepted, connectionIdLength, ids));
      }
    };
    InetSocketAddress bindTo = address;
    try {
      for (EventLoop loop : loops) {
        Bootstrap b = new Bootstrap()
            .group(loop)
            .channel(Transports.datagramChannel())
            .option(ChannelOption.SO_RCVBUF, 4 << 20)
            .option(ChannelOption.SO_SNDBUF, 4 << 20)
            .handler(handler);
        if (loops.size() > 1) {
          Transports.reusePort(b);
        }
        Channel ch = b.bind(bindTo).sync().channel();
        self.sockets.add(ch);
        bindTo = (InetSocketAddress) ch.localAddress(); // the port the first got, when 0 was asked for
      }
      return self;
    } catch (Exception e) {
      for (Channel ch : self.sockets) {
        ch.close().syncUninterruptibly();
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IOException("cannot listen for QUIC on UDP " + address + ": " + e.getMessage(), e);
    }
  }

  /**
   * The QUIC server codec of one socket (each socket has its own: a codec keeps its connections);
   * {@code ids} null: QUIC's default connection ids (the only socket).
   */
  private static ChannelHandler codec(QuicServerContexts tls, ChannelInitializer<QuicChannel> accepted,
      int connectionIdLength, QuicConnectionIdGenerator ids) {
    var builder = Http3.newQuicServerCodecBuilder();
    if (ids != null) {
      builder.localConnectionIdLength(connectionIdLength).connectionIdAddressGenerator(ids);
    }
    return builder
        .sslContext(tls.sniContext())
        .maxIdleTimeout(IDLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .initialMaxData(CONNECTION_WINDOW)
        .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
        .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
        .initialMaxStreamsBidirectional(MAX_STREAMS)
        .tokenHandler(null) // no Retry round trip
        .handler(accepted)
        .build();
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) sockets.get(0).localAddress();
  }

  /** Open QUIC connections, for tests and diagnostics. */
  public int connections() {
    return connections.size();
  }

  @Override
  public void close() {
    for (Channel c : connections) {
      QuicChannel quic = (QuicChannel) c;
      quic.eventLoop().execute(() -> goAwayAndClose(quic));
    }
    connections.newCloseFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
    for (Channel ch : sockets) {
      ch.close().syncUninterruptibly();
    }
  }

  private static void goAwayAndClose(QuicChannel quic) {
    QuicStreamChannel control = Http3.getLocalControlStream(quic);
    Long last = quic.attr(LAST_STREAM).get();
    Runnable close = () -> quic.close(true, Http3ErrorCode.H3_NO_ERROR.code(),
        Unpooled.copiedBuffer("Loupe is shutting down", StandardCharsets.US_ASCII));
    if (control == null || !control.isActive()) {
      close.run();
      return;
    }
    // The id of the first request stream that will not be processed: the one after the last seen.
    long next = last == null ? 0 : last + 4;
    control.writeAndFlush(new DefaultHttp3GoAwayFrame(next)).addListener(f -> close.run());
  }

  /** Remembers the highest request stream id on a connection, for the GOAWAY frame. */
  private static final class StreamTracker extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof QuicStreamChannel s && s.type() == io.netty.handler.codec.quic.QuicStreamType.BIDIRECTIONAL && !s.isLocalCreated()) {
        Long last = ctx.channel().attr(LAST_STREAM).get();
        if (last == null || s.streamId() > last) {
          ctx.channel().attr(LAST_STREAM).set(s.streamId());
        }
      }
      ctx.fireChannelRead(msg);
    }

    @Override
    public boolean isSharable() {
      return true;
    }
  }
}
