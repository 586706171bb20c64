package dev.loupe.engine.internal.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameLogger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What the server leg's frame "logger" sees: inbound ALTSVC frames, outbound RST_STREAMs; it logs nothing. */
class OriginFrameTapTest {
  /** Only inbound ALTSVC frames reach the connection's sink; other unknown frames do not. */
  @Test
  void inboundAltSvcFramesGoToTheSink() {
    List<String> got = new ArrayList<>();
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    try {
      ch.attr(AltSvcFrames.SINK).set((origin, value) -> got.add(origin + " " + value));
      ChannelHandlerContext ctx = ch.pipeline().firstContext();
      OriginFrameTap frames = new OriginFrameTap();
      assertThat(frames.isEnabled()).as("logs nothing").isFalse();
      byte[] o = "https://example.com".getBytes(StandardCharsets.US_ASCII);
      ByteBuf b = Unpooled.buffer().writeShort(o.length).writeBytes(o)
          .writeBytes("h3=\":443\"".getBytes(StandardCharsets.US_ASCII));
      frames.logUnknownFrame(Http2FrameLogger.Direction.INBOUND, ctx, (byte) 0xa, 0, new Http2Flags(), b);
      frames.logUnknownFrame(Http2FrameLogger.Direction.OUTBOUND, ctx, (byte) 0xa, 0, new Http2Flags(), b);
      frames.logUnknownFrame(Http2FrameLogger.Direction.INBOUND, ctx, (byte) 0xb, 0, new Http2Flags(), b);
      assertThat(b.readableBytes()).as("the payload is only read").isEqualTo(2 + o.length + 9);
      b.release();
      assertThat(got).containsExactly("https://example.com h3=\":443\"");
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  /** Every RST_STREAM written goes to the connection's hook; those received do not. */
  @Test
  void outboundResetsAreCounted() {
    AtomicInteger sent = new AtomicInteger();
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    try {
      ChannelHandlerContext ctx = ch.pipeline().firstContext();
      OriginFrameTap frames = new OriginFrameTap();
      frames.logRstStream(Http2FrameLogger.Direction.OUTBOUND, ctx, 1, 8); // no hook yet: ignored
      ch.attr(OriginFrameTap.RESET_SENT).set(sent::incrementAndGet);
      frames.logRstStream(Http2FrameLogger.Direction.OUTBOUND, ctx, 3, 8);
      frames.logRstStream(Http2FrameLogger.Direction.OUTBOUND, ctx, 5, 5);
      frames.logRstStream(Http2FrameLogger.Direction.INBOUND, ctx, 7, 8);
      assertThat(sent).hasValue(2);
    } finally {
      ch.finishAndReleaseAll();
    }
  }
}
