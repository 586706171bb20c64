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
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http3.DefaultHttp3GoAwayFrame;
import io.netty.handler.codec.http3.Http3;
import io.netty.handler.codec.http3.Http3ErrorCode;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * <p>{@link #close()} tells every connection GOAWAY (on its control stream) and closes it with
 * H3_NO_ERROR, then closes the socket.
 */
public final class Http3Listener implements AutoCloseable {
  static final int MAX_STREAMS = 256;
  static final long CONNECTION_WINDOW = 16L << 20;
  static final long STREAM_WINDOW = 2L << 20;
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
  private static final AttributeKey<Long> LAST_STREAM = AttributeKey.valueOf("loupe.h3.lastStream");

  private final Channel udp;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

  private Http3Listener(Channel udp) {
    this.udp = udp;
  }

  /**
   * Binds UDP {@code address} on one loop of {@code group}; {@code connectionHandler} is added to
   * every accepted QUIC connection (it installs HTTP/3).
   */
  public static Http3Listener bind(EventLoopGroup group, InetSocketAddress address, QuicServerContexts tls,
      ChannelInitializer<QuicChannel> connectionHandler) throws IOException {
    Http3Listener[] self = new Http3Listener[1];
    ChannelHandler codec = Http3.newQuicServerCodecBuilder()
        .sslContext(tls.sniContext())
        .maxIdleTimeout(IDLE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .initialMaxData(CONNECTION_WINDOW)
        .initialMaxStreamDataBidirectionalLocal(STREAM_WINDOW)
        .initialMaxStreamDataBidirectionalRemote(STREAM_WINDOW)
        .initialMaxStreamsBidirectional(MAX_STREAMS)
        .tokenHandler(null) // no Retry round trip
        .handler(new ChannelInitializer<QuicChannel>() {
          @Override
          protected void initChannel(QuicChannel quic) {
            self[0].connections.add(quic);
            quic.pipeline().addLast(new StreamTracker());
            quic.pipeline().addLast(connectionHandler);
          }
        })
        .build();
    try {
      Channel ch = new Bootstrap()
          .group(group)
          .channel(Transports.datagramChannel())
          .option(ChannelOption.SO_RCVBUF, 4 << 20)
          .option(ChannelOption.SO_SNDBUF, 4 << 20)
          .handler(codec)
          .bind(address)
          .sync()
          .channel();
      self[0] = new Http3Listener(ch);
      return self[0];
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IOException("cannot listen for QUIC on UDP " + address + ": " + e.getMessage(), e);
    }
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) udp.localAddress();
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
    udp.close().syncUninterruptibly();
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
