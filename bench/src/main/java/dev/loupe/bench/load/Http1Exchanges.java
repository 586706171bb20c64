package dev.loupe.bench.load;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * HTTP/1.1 driver, after an {@code HttpClientCodec}: one request in flight, the next one sent
 * as soon as the last byte of the previous response arrived (closed-loop, like wrk and h2load
 * --h1). Bodies are counted and dropped, never aggregated. Event-loop confined.
 */
final class Http1Exchanges extends ChannelInboundHandlerAdapter implements Exchanges {
  private final LoadConnection conn;
  private boolean started;
  /** nanoTime of the request in flight, or -1. */
  private long start = -1;

  private int status;
  private long bytes;
  private boolean closeAfter;

  Http1Exchanges(LoadConnection conn) {
    this.conn = conn;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      begin(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    begin(ctx);
    ctx.fireChannelActive();
  }

  private void begin(ChannelHandlerContext ctx) {
    if (!started) {
      started = true;
      sendNext(ctx);
    }
  }

  private void sendNext(ChannelHandlerContext ctx) {
    if (!conn.clock.running()) {
      return;
    }
    status = 0;
    bytes = 0;
    closeAfter = false;
    start = System.nanoTime();
    ctx.writeAndFlush(conn.newHttp1Request(), ctx.voidPromise());
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    try {
      if (msg instanceof HttpResponse r) {
        status = r.status().code();
        closeAfter = !HttpUtil.isKeepAlive(r);
      }
      if (msg instanceof HttpContent c) {
        bytes += c.content().readableBytes();
      }
      if (msg instanceof LastHttpContent && start != -1) {
        long s = start;
        start = -1;
        conn.record(s, status, bytes);
        if (closeAfter) {
          ctx.close();
        } else {
          sendNext(ctx);
        }
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (start != -1 && conn.clock.running()) {
      conn.stats.error(LoadStats.ErrorKind.CLOSED);
    }
    start = -1;
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (conn.clock.running()) {
      conn.stats.error(LoadStats.ErrorKind.OTHER);
      conn.noteError(cause);
    }
    ctx.close();
  }

  @Override
  public int countStartedBefore(long nanoTime) {
    return start != -1 && start - nanoTime < 0 ? 1 : 0;
  }
}
