package dev.loupe.engine.internal.relay;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/** The pipeline of a newly accepted client connection in regular (explicit proxy) mode. */
public final class ClientInitializer extends ChannelInitializer<SocketChannel> {
  private final EngineContext engine;

  public ClientInitializer(EngineContext engine) {
    this.engine = engine;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ch.pipeline()
        .addLast(Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(engine.config().limits()))
        .addLast(Pipelines.CLIENT_LEG, new Http1ClientLeg(engine, ClientSide.explicitProxy()));
  }
}
