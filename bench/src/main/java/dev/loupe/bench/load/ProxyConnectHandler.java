package dev.loupe.bench.load;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Opens a tunnel through an explicit proxy: sends {@code CONNECT authority HTTP/1.1} when the
 * channel becomes active, reads the proxy's answer head, and on 2xx removes itself and lets
 * {@code onTunnel} install what runs inside (TLS, then HTTP/1.1 or HTTP/2). Bytes that arrive
 * right behind the head are passed on. Anything but 2xx is a {@code PROXY} error and a close.
 */
final class ProxyConnectHandler extends ChannelInboundHandlerAdapter {
  private static final int MAX_HEAD = 16 * 1024;

  private final String authority;
  private final LoadStats stats;
  private final Consumer<ChannelPipeline> onTunnel;
  private ByteBuf head;

  ProxyConnectHandler(String authority, LoadStats stats, Consumer<ChannelPipeline> onTunnel) {
    this.authority = authority;
    this.stats = stats;
    this.onTunnel = onTunnel;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    String req = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n";
    ctx.writeAndFlush(Unpooled.copiedBuffer(req, StandardCharsets.US_ASCII));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    if (head == null) {
      head = ctx.alloc().buffer(256);
    }
    head.writeBytes(in);
    in.release();
    int end = ByteBufUtil.indexOf(CRLFCRLF, head);
    if (end < 0) {
      if (head.readableBytes() > MAX_HEAD) {
        fail(ctx);
      }
      return;
    }
    String statusLine = head.toString(head.readerIndex(), Math.min(end, 64), StandardCharsets.US_ASCII);
    int sp = statusLine.indexOf(' ');
    boolean ok = sp > 0 && statusLine.length() > sp + 1 && statusLine.charAt(sp + 1) == '2';
    if (!ok) {
      fail(ctx);
      return;
    }
    head.readerIndex(end + CRLFCRLF.readableBytes());
    ByteBuf rest = head;
    head = null;
    ChannelPipeline p = ctx.pipeline();
    p.remove(this);
    onTunnel.accept(p);
    if (rest.isReadable()) {
      p.fireChannelRead(rest);
      p.fireChannelReadComplete();
    } else {
      rest.release();
    }
  }

  private void fail(ChannelHandlerContext ctx) {
    stats.error(LoadStats.ErrorKind.PROXY);
    ctx.close();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (head != null) {
      head.release();
      head = null;
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    stats.error(LoadStats.ErrorKind.OTHER);
    ctx.close();
  }

  private static final ByteBuf CRLFCRLF =
      Unpooled.unreleasableBuffer(Unpooled.copiedBuffer("\r\n\r\n", StandardCharsets.US_ASCII));
}
