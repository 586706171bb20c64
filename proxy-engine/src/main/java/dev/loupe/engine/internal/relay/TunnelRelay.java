package dev.loupe.engine.internal.relay;

import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;
import java.time.Instant;

/**
 * The TUNNEL tier: opaque bytes both ways, nothing decrypted. The same buffer read from one leg is
 * written to the other (no copy); each side reads again only while the other side is writable.
 * The flow records the target, the bytes each way and the duration.
 */
final class TunnelRelay extends PeerRelay {
  private final EngineContext engine;
  private final RecordedFlow flow;
  private final boolean fromClient;

  private TunnelRelay(EngineContext engine, RecordedFlow flow, Channel peer, boolean fromClient) {
    super(peer);
    this.engine = engine;
    this.flow = flow;
    this.fromClient = fromClient;
  }

  static RecordedFlow newTunnelFlow(EngineContext engine, String host, int port, ConnectionInfo client) {
    return newConnectFlow(engine, host, port, client, FlowTier.TUNNEL);
  }

  /** A flow for a CONNECT request to {@code host:port} itself, added to the store. */
  static RecordedFlow newConnectFlow(EngineContext engine, String host, int port, ConnectionInfo client, FlowTier tier) {
    RecordedFlow flow = new RecordedFlow(engine.store().nextId(), Instant.now(), engine.config().capture());
    flow.tier(tier);
    flow.clientProtocol("HTTP/1.1");
    flow.clientConnection(client);
    flow.timings().requestStart(System.nanoTime());
    String authority = RequestHeads.authority(host, port);
    flow.request(new RequestHead("CONNECT", "https", host, port, authority, "HTTP/1.1", Headers.EMPTY));
    engine.store().add(flow);
    return flow;
  }

  /**
   * Relays between {@code client} and the server connection, starting with {@code first} (bytes
   * the client already sent, or null). The caller removes its own handlers afterwards.
   */
  static void start(EngineContext engine, RecordedFlow flow, Channel client, UpstreamConnection server, ByteBuf first) {
    Channel s = server.channel();
    flow.serverConnection(server.info());
    flow.timings().sendStart(System.nanoTime());
    TunnelRelay c2s = new TunnelRelay(engine, flow, s, true);
    TunnelRelay s2c = new TunnelRelay(engine, flow, client, false);
    pair(c2s, s2c);
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
  protected void bothClosed() {
    flow.timings().responseEnd(System.nanoTime());
    flow.complete();
    engine.store().completed(flow);
  }
}
