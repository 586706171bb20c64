package dev.loupe.engine.internal.http3;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.util.ReferenceCountUtil;

/**
 * In front of Netty's {@code Http3FrameToHttpObjectCodec} on a request stream (either leg): the
 * adapter swallows QUIC exceptions and then, at the input shutdown that follows a reset, reports
 * the message as ended — a reset stream would pass for a complete, shorter body. Once a subclass
 * has seen the failure ({@link #failed}), nothing more goes in: reads are dropped and the input
 * shutdown is not passed on. What a failure means is the subclass's ({@code exceptionCaught}).
 */
public abstract class Http3ResetGuard extends ChannelDuplexHandler {
  /** Set by the subclass when the stream failed (reset, STOP_SENDING, QUIC error). */
  protected boolean failed;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (failed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (failed && evt instanceof ChannelInputShutdownEvent) {
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public abstract void exceptionCaught(ChannelHandlerContext ctx, Throwable cause);
}
