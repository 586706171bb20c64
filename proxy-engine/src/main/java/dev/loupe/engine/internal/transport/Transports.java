package dev.loupe.engine.internal.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/** Picks the native epoll transport on Linux when it loads, NIO elsewhere. */
public final class Transports {
  private static final boolean EPOLL = !Boolean.getBoolean("loupe.nio") && Epoll.isAvailable();

  private Transports() {}

  public static EventLoopGroup newGroup(int threads, String name) {
    DefaultThreadFactory tf = new DefaultThreadFactory(name, true);
    return EPOLL
        ? new MultiThreadIoEventLoopGroup(threads, tf, EpollIoHandler.newFactory())
        : new MultiThreadIoEventLoopGroup(threads, tf, NioIoHandler.newFactory());
  }

  public static Class<? extends ServerChannel> serverChannel() {
    return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  public static Class<? extends SocketChannel> socketChannel() {
    return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /** UDP (QUIC) channels for groups made by {@link #newGroup}. */
  public static Class<? extends io.netty.channel.socket.DatagramChannel> datagramChannel() {
    return EPOLL ? io.netty.channel.epoll.EpollDatagramChannel.class
        : io.netty.channel.socket.nio.NioDatagramChannel.class;
  }

  /**
   * Whether several UDP sockets can share one port ({@code SO_REUSEPORT}, epoll only), so that
   * QUIC connections are spread over the event loops; see {@code Http3Listener}.
   */
  public static boolean datagramReusePort() {
    return EPOLL;
  }

  /** Sets {@code SO_REUSEPORT} on a UDP bootstrap (only when {@link #datagramReusePort()}). */
  public static void reusePort(io.netty.bootstrap.Bootstrap b) {
    b.option(io.netty.channel.epoll.EpollChannelOption.SO_REUSEPORT, true);
  }

  public static String name() {
    return EPOLL ? "epoll" : "nio";
  }
}
