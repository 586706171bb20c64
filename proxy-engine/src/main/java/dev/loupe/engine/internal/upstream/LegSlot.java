package dev.loupe.engine.internal.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;

/**
 * The place in an origin connection's pipeline ({@link UpstreamConnector#LEG}) where whoever owns
 * the connection right now receives its events: the server leg of the current exchange, or the
 * pool's idle watcher between exchanges. Swapping the owner is a field write, not a pipeline
 * change: a keep-alive connection serving thousands of requests would otherwise add and remove
 * two handlers per request (each a synchronized pipeline update with handlerAdded/Removed calls).
 *
 * <p>The owner sees this slot's context as its own. Confined to the connection's event loop.
 */
public final class LegSlot extends ChannelInboundHandlerAdapter {
  private ChannelInboundHandler owner;

  private LegSlot(ChannelInboundHandler owner) {
    this.owner = owner;
  }

  /** Makes {@code leg} receive {@code ch}'s inbound events from the slot on. */
  public static void attach(Channel ch, ChannelInboundHandler leg) {
    ChannelPipeline p = ch.pipeline();
    ChannelHandler h = p.get(UpstreamConnector.LEG);
    if (h instanceof LegSlot slot) {
      slot.owner = leg;
      return;
    }
    if (h != null) {
      p.remove(UpstreamConnector.LEG);
    }
    p.addLast(UpstreamConnector.LEG, new LegSlot(leg));
  }

  /** Stops delivering {@code ch}'s events to {@code leg} if it still owns the slot. */
  public static void detach(Channel ch, ChannelInboundHandler leg) {
    if (ch.pipeline().get(UpstreamConnector.LEG) instanceof LegSlot slot && slot.owner == leg) {
      slot.owner = null;
    }
  }

  /** The current owner of {@code ch}'s slot, or null. */
  public static ChannelInboundHandler owner(Channel ch) {
    return ch.pipeline().get(UpstreamConnector.LEG) instanceof LegSlot slot ? slot.owner : null;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (owner != null) {
      owner.channelRead(ctx, msg);
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    if (owner != null) {
      owner.channelReadComplete(ctx);
    } else {
      ctx.fireChannelReadComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (owner != null) {
      owner.channelWritabilityChanged(ctx);
    } else {
      ctx.fireChannelWritabilityChanged();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (owner != null) {
      owner.userEventTriggered(ctx, evt);
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    if (owner != null) {
      owner.channelInactive(ctx);
    } else {
      ctx.fireChannelInactive();
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    if (owner != null) {
      owner.exceptionCaught(ctx, cause);
    } else {
      ctx.fireExceptionCaught(cause);
    }
  }
}
