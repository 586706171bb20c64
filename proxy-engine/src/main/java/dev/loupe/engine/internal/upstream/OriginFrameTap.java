package dev.loupe.engine.internal.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameLogger;
import io.netty.handler.logging.LogLevel;
import io.netty.util.AttributeKey;

/**
 * The frame logger of the server leg's HTTP/2 codecs, which logs nothing: it sees the frames of an
 * origin connection that Netty's codec does not surface. Inbound ALTSVC frames go to
 * {@link AltSvcFrames}; every RST_STREAM frame Loupe writes (a stream it cancels, and those the
 * codec writes by itself, e.g. for frames on a stream already reset) is reported to the
 * connection's {@link #RESET_SENT} hook, so that {@link Http2Upstreams} can retire a connection
 * before the origin's rapid-reset defence closes it.
 *
 * <p>Netty's {@code Http2OutboundFrameLogger} calls {@link #logRstStream} for every RST_STREAM it
 * writes, whatever {@link #isEnabled()} says. Event-loop confined (called by the connection's codec).
 */
public final class OriginFrameTap extends Http2FrameLogger {
  /** Run for each RST_STREAM frame written on the connection. */
  static final AttributeKey<Runnable> RESET_SENT = AttributeKey.valueOf("loupe.h2.reset-sent");

  public OriginFrameTap() {
    super(LogLevel.TRACE, OriginFrameTap.class);
  }

  @Override
  public boolean isEnabled() {
    return false; // no frame logging: every other log call returns at once
  }

  @Override
  public void logRstStream(Direction direction, ChannelHandlerContext ctx, int streamId, long errorCode) {
    if (direction == Direction.OUTBOUND) {
      Runnable hook = ctx.channel().attr(RESET_SENT).get();
      if (hook != null) {
        hook.run();
      }
    }
  }

  @Override
  public void logUnknownFrame(Direction direction, ChannelHandlerContext ctx, byte frameType, int streamId,
      Http2Flags flags, ByteBuf data) {
    if (direction == Direction.INBOUND && frameType == AltSvcFrames.TYPE) {
      AltSvcFrames.received(ctx.channel(), streamId, data);
    }
  }
}
