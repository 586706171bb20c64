package dev.loupe.engine.internal.relay;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;

/** The pipeline of a newly accepted client connection in regular (explicit proxy) mode. */
public final class ClientInitializer extends ChannelInitializer<SocketChannel> {
  private final EngineContext engine;
  private final dev.loupe.engine.api.AccessLog accessLog;
  /** A listener Loupe opened for a client it launched: no proxy authentication there. */
  private final boolean launchedClient;
  /** A listener that speaks only SOCKS5 ({@code --socks}). */
  private final boolean socksOnly;

  public ClientInitializer(EngineContext engine, dev.loupe.engine.api.AccessLog accessLog, boolean launchedClient,
      boolean socksOnly) {
    this.engine = engine;
    this.accessLog = accessLog;
    this.launchedClient = launchedClient;
    this.socksOnly = socksOnly;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    // SOCKS5 shares the port: its first byte (0x05) takes the connection away from HTTP.
    ch.pipeline().addLast(Socks5Detector.NAME, new Socks5Detector(engine, accessLog, launchedClient, socksOnly));
    if (socksOnly) {
      return;
    }
    ch.pipeline()
        .addLast(Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(engine.config().limits()))
        .addLast(ProxyGate.NAME, new ProxyGate(engine, accessLog, launchedClient)) // auth, loupe.setup
        .addLast(Pipelines.CLIENT_LEG, new ClientLeg(engine, ClientSide.explicitProxy()));
  }
}
