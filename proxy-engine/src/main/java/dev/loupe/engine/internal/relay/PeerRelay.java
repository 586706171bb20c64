package dev.loupe.engine.internal.relay;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * One direction of a relay between two channels on the same event loop: what is read here is
 * written to {@code peer}. Reads again only while the peer is writable, and lets the peer read
 * again when this channel drains; a close on either side closes the other after a flush. Subclasses
 * decide what to forward and what to record.
 */
abstract class PeerRelay extends ChannelInboundHandlerAdapter {
  protected final Channel peer;
  private PeerRelay peerRelay;
  private boolean closed;

  PeerRelay(Channel peer) {
    this.peer = peer;
  }

  static void pair(PeerRelay a, PeerRelay b) {
    a.peerRelay = b;
    b.peerRelay = a;
  }

  /** Both directions have closed: the relay is over. Called once, on the event loop. */
  protected abstract void bothClosed();

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    peer.flush();
    if (peer.isWritable()) {
      ctx.read();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // This channel drained: the peer may read again.
    if (ctx.channel().isWritable() && peer.isActive()) {
      peer.read();
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closed = true;
    if (peer.isActive()) {
      peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
    if (peerRelay.closed) {
      bothClosed();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
