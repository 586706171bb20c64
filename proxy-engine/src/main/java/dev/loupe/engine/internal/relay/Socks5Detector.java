package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.AccessLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;

/**
 * The first handler of an explicit-proxy connection: its first byte tells SOCKS from HTTP.
 * {@code 0x05} (a SOCKS5 greeting) replaces the HTTP handlers with a {@link Socks5Handler};
 * {@code 0x04} (SOCKS4, which Loupe does not speak) gets SOCKS4's "request rejected" and a close;
 * anything else (an HTTP request line starts with a letter) leaves the HTTP pipeline as it was.
 * Either way this handler removes itself at the first byte and passes it on.
 *
 * <p>One instance per connection, confined to its event loop.
 */
final class Socks5Detector extends ChannelInboundHandlerAdapter {
  static final String NAME = "socks-detector";
  private static final int SOCKS4 = 0x04;

  private final EngineContext engine;
  private final AccessLog log;
  private final boolean launchedClient;
  /** True on a listener that speaks only SOCKS5 ({@code --socks}): anything else is closed. */
  private final boolean socksOnly;

  Socks5Detector(EngineContext engine, AccessLog log, boolean launchedClient, boolean socksOnly) {
    this.engine = engine;
    this.log = log;
    this.launchedClient = launchedClient;
    this.socksOnly = socksOnly;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (socksOnly && ctx.channel().isActive()) {
      ctx.read(); // no HTTP leg behind this one to start reading
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    if (socksOnly) {
      ctx.read();
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf) || !buf.isReadable()) {
      ctx.fireChannelRead(msg);
      return;
    }
    int first = buf.getUnsignedByte(buf.readerIndex());
    ChannelPipeline p = ctx.pipeline();
    if (first == Socks5Handler.VERSION) {
      for (String http : new String[] {Pipelines.CLIENT_LEG, ProxyGate.NAME, Pipelines.HTTP_SERVER_CODEC}) {
        if (p.get(http) != null) {
          p.remove(http);
        }
      }
      p.addAfter(ctx.name(), Socks5Handler.NAME, new Socks5Handler(engine, log, launchedClient));
    } else if (first == SOCKS4 || socksOnly) {
      buf.release();
      // SOCKS4 reply: VN=0, CD=91 (request rejected or failed).
      byte[] reply = first == SOCKS4 ? new byte[] {0, 91, 0, 0, 0, 0, 0, 0} : new byte[0];
      ctx.writeAndFlush(Unpooled.wrappedBuffer(reply)).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    p.remove(this);
    p.fireChannelRead(buf);
  }
}
