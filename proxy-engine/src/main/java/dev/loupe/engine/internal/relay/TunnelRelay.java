package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.transport.UpstreamConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.time.Instant;

/**
 * The TUNNEL tier: opaque bytes both ways, nothing decrypted. The same buffer read from one leg is
 * written to the other (no copy); each side reads again only while the other side is writable.
 * The flow records the target, the bytes each way and the duration.
 */
final class TunnelRelay extends ChannelInboundHandlerAdapter {
  private final EngineContext engine;
  private final Flow flow;
  private final Channel peer;
  private final boolean fromClient;
  private TunnelRelay peerRelay;
  private boolean closed;

  private TunnelRelay(EngineContext engine, Flow flow, Channel peer, boolean fromClient) {
    this.engine = engine;
    this.flow = flow;
    this.peer = peer;
    this.fromClient = fromClient;
  }

  static Flow newTunnelFlow(EngineContext engine, String host, int port, ConnectionInfo client) {
    Flow flow = new Flow(engine.store().nextId(), Instant.now(), engine.config().capture());
    flow.tier(FlowTier.TUNNEL);
    flow.clientProtocol("HTTP/1.1");
    flow.clientConnection(client);
    flow.timings().requestStart(System.nanoTime());
    String authority = Http1ClientLeg.authority(host, port);
    flow.request(new RequestHead("CONNECT", "https", host, port, authority, "HTTP/1.1", Headers.EMPTY));
    engine.store().add(flow);
    return flow;
  }

  /**
   * Relays between {@code client} and the server connection, starting with {@code first} (bytes
   * the client already sent, or null). The caller removes its own handlers afterwards.
   */
  static void start(EngineContext engine, Flow flow, Channel client, UpstreamConnection server, ByteBuf first) {
    Channel s = server.channel();
    flow.serverConnection(server.info());
    flow.timings().sendStart(System.nanoTime());
    TunnelRelay c2s = new TunnelRelay(engine, flow, s, true);
    TunnelRelay s2c = new TunnelRelay(engine, flow, client, false);
    c2s.peerRelay = s2c;
    s2c.peerRelay = c2s;
    client.pipeline().addLast("tunnel", c2s);
    s.pipeline().addLast("tunnel", s2c);
    engine.store().updated(flow);
    if (first != null) {
      flow.addTunnelBytes(first.readableBytes(), 0);
      s.writeAndFlush(first);
    }
    client.read();
    s.read();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    int n = buf.readableBytes();
    if (fromClient) {
      flow.addTunnelBytes(n, 0);
    } else {
      flow.addTunnelBytes(0, n);
    }
    peer.write(buf, peer.voidPromise());
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    peer.flush();
    if (peer.isWritable()) {
      ctx.read();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // Our channel drained: the peer may read again.
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
      flow.timings().responseEnd(System.nanoTime());
      flow.complete();
      engine.store().completed(flow);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
