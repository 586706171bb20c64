package dev.loupe.engine.internal.http3;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * In front of Netty's {@code Http3FrameToHttpObjectCodec} on a request stream (either leg): the
 * adapter swallows QUIC exceptions and then, at the input shutdown that follows a reset, reports
 * the message as ended — a reset stream would pass for a complete, shorter body. Once a subclass
 * has seen the failure ({@link #failed}), nothing more goes in: reads are dropped and the input
 * shutdown is not passed on. What a failure means is the subclass's ({@code exceptionCaught}).
 *
 * <h3>A reset while nobody reads</h3>
 * Netty reports the peer's RESET_STREAM only through a read. A leg that stopped reading for
 * backpressure (the other side cannot take more, or is still connecting) would never hear of it:
 * the exchange would wait for a peer that is gone, until some timeout names the wrong culprit.
 * So while the stream's input is open and no read is asked for after a read completed, the
 * stream is probed once every {@link #PROBE_MILLIS} ms ({@link QuicStreamProbe}, which consumes
 * nothing); a reset found there goes to {@code exceptionCaught} as if a read had reported it.
 * A read asked for and still pending reports a reset itself, so then there is no probing.
 *
 * <p>Event-loop confined.
 */
public abstract class Http3ResetGuard extends ChannelDuplexHandler {
  /** How often a stream nobody reads is asked whether the peer reset it. */
  static final long PROBE_MILLIS = 1000;

  /** Set by the subclass when the stream failed (reset, STOP_SENDING, QUIC error). */
  protected boolean failed;
  /** A read was asked for since the last read completed (it will report a reset itself). */
  private boolean readAsked;
  /** The peer ended its side (FIN): nothing more can be reset. Once set, never cleared. */
  private boolean inputEnded;
  private ScheduledFuture<?> probe;

  @Override
  public void read(ChannelHandlerContext ctx) {
    readAsked = true;
    ctx.read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (failed) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    readAsked = false; // set again if the handlers above ask for more while it completes
    ctx.fireChannelReadComplete();
    scheduleProbe(ctx);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputEnded = true;
      if (failed) {
        return;
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    cancelProbe();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancelProbe();
  }

  @Override
  public abstract void exceptionCaught(ChannelHandlerContext ctx, Throwable cause);

  private void scheduleProbe(ChannelHandlerContext ctx) {
    if (probe == null && !failed && !inputEnded && ctx.channel() instanceof QuicStreamChannel
        && QuicStreamProbe.available()) {
      probe = ctx.executor().schedule(() -> probe(ctx), PROBE_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private void probe(ChannelHandlerContext ctx) {
    probe = null;
    if (failed || inputEnded || readAsked || !ctx.channel().isActive()) {
      return; // ended, or a pending read will report a reset (the next read complete probes again)
    }
    var reset = QuicStreamProbe.resetOf((QuicStreamChannel) ctx.channel());
    if (reset != null) {
      exceptionCaught(ctx, reset);
      return;
    }
    scheduleProbe(ctx);
  }

  private void cancelProbe() {
    if (probe != null) {
      probe.cancel(false);
      probe = null;
    }
  }
}
