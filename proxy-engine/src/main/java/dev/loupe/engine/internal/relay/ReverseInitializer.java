package dev.loupe.engine.internal.relay;

import dev.loupe.engine.api.EngineConfig;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Reverse mode ({@code --mode reverse:URL}): every request on the listener goes to one origin. One
 * port serves TLS (HTTP/1.1 or HTTP/2 by ALPN, certificate per SNI from the Loupe CA or the user's
 * own), cleartext HTTP/2 with prior knowledge, and cleartext HTTP/1.1 — told apart by the first
 * bytes.
 */
public final class ReverseInitializer extends ChannelInitializer<SocketChannel> {
  private final EngineContext engine;
  private final EngineConfig.Reverse target;

  public ReverseInitializer(EngineContext engine) {
    this.engine = engine;
    this.target = engine.config().reverse();
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ch.pipeline().addLast("reverse-detect", new Detector());
    ch.read();
  }

  /** Waits for enough bytes to tell TLS, h2c and HTTP/1.1 apart, then builds the pipeline. */
  private final class Detector extends ByteToMessageDecoder {

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (!in.isReadable()) {
        return;
      }
      ChannelPipeline p = ctx.pipeline();
      if (in.getUnsignedByte(in.readerIndex()) == 0x16) {
        p.addAfter(ctx.name(), Pipelines.SNI, new LeaveTolerantSniHandler(engine.mitm(), target.certificateHost()));
        p.addAfter(Pipelines.SNI, Pipelines.ALPN,
            new AlpnClientLeg(engine, target.scheme(), target.host(), target.port()));
        p.remove(this);
        return;
      }
      int matched = Pipelines.http2PrefaceMatch(in);
      if (matched >= 0 && matched < Pipelines.HTTP2_PREFACE.length) {
        return; // could still be the HTTP/2 preface: wait for more
      }
      if (matched >= 0) {
        AlpnClientLeg.installHttp2(engine, ctx.channel(),
            new ClientSide(target.scheme(), target.host(), target.port(), null, "HTTP/2", true));
      } else {
        p.addLast(Pipelines.HTTP_SERVER_CODEC, Pipelines.serverCodec(engine.config().limits()));
        p.addLast(Pipelines.CLIENT_LEG, new ClientLeg(engine,
            new ClientSide(target.scheme(), target.host(), target.port(), null, "HTTP/1.1", false)));
      }
      p.remove(this); // hands the bytes read so far to what was just installed
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
      super.channelReadComplete(ctx);
      if (ctx.pipeline().get(Detector.class) != null) {
        ctx.read();
      }
    }
  }
}
