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
import org.junit.jupiter.api.Test;

/** ALTSVC frame payloads (RFC 7838 §4) as the server leg reads them, and the origin check. */
class AltSvcFramesTest {
  private static ByteBuf payload(String origin, String value) {
    byte[] o = origin.getBytes(StandardCharsets.US_ASCII);
    ByteBuf b = Unpooled.buffer();
    b.writeShort(o.length).writeBytes(o).writeBytes(value.getBytes(StandardCharsets.US_ASCII));
    return b;
  }

  @Test
  void parsesBothForms() {
    ByteBuf zero = payload("https://example.com", "h3=\":443\"; ma=60");
    ByteBuf onStream = payload("", "h3=\":8443\"");
    try {
      assertThat(AltSvcFrames.parse(0, zero)).isEqualTo(new AltSvcFrames.Frame("https://example.com", "h3=\":443\"; ma=60"));
      assertThat(zero.readerIndex()).as("read, not consumed").isZero();
      assertThat(AltSvcFrames.parse(3, onStream)).isEqualTo(new AltSvcFrames.Frame(null, "h3=\":8443\""));
    } finally {
      zero.release();
      onStream.release();
    }
  }

  @Test
  void malformedFramesAreIgnored() {
    ByteBuf[] bad = {
        payload("", "h3=\":443\""),                    // stream 0 without an origin
        Unpooled.wrappedBuffer(new byte[] {0}),         // shorter than the length field
        Unpooled.wrappedBuffer(new byte[] {0, 9, 'h'}), // origin longer than the frame
    };
    for (ByteBuf b : bad) {
      assertThat(AltSvcFrames.parse(0, b)).isNull();
      b.release();
    }
    ByteBuf named = payload("https://example.com", "h3=\":443\"");
    assertThat(AltSvcFrames.parse(1, named)).as("a stream's frame naming an origin").isNull();
    named.release();
  }

  @Test
  void sameOrigin() {
    assertThat(AltSvcFrames.sameOrigin("https://example.com", "example.com", 443)).isTrue();
    assertThat(AltSvcFrames.sameOrigin("https://EXAMPLE.com:8443", "example.com", 8443)).isTrue();
    assertThat(AltSvcFrames.sameOrigin("https://[::1]:8443", "::1", 8443)).isTrue();
    assertThat(AltSvcFrames.sameOrigin("https://example.com", "example.com", 8443)).isFalse();
    assertThat(AltSvcFrames.sameOrigin("http://example.com:443", "example.com", 443)).isFalse();
    assertThat(AltSvcFrames.sameOrigin("https://other.example", "example.com", 443)).isFalse();
    assertThat(AltSvcFrames.sameOrigin("not a uri", "example.com", 443)).isFalse();
  }

  /** Only inbound ALTSVC frames reach the connection's sink; other unknown frames do not. */
  @Test
  void inboundAltSvcFramesGoToTheSink() {
    List<String> got = new ArrayList<>();
    EmbeddedChannel ch = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    try {
      ch.attr(AltSvcFrames.SINK).set((origin, value) -> got.add(origin + " " + value));
      ChannelHandlerContext ctx = ch.pipeline().firstContext();
      AltSvcFrames frames = new AltSvcFrames();
      assertThat(frames.isEnabled()).as("logs nothing").isFalse();
      ByteBuf b = payload("https://example.com", "h3=\":443\"");
      frames.logUnknownFrame(Http2FrameLogger.Direction.INBOUND, ctx, (byte) 0xa, 0, new Http2Flags(), b);
      frames.logUnknownFrame(Http2FrameLogger.Direction.OUTBOUND, ctx, (byte) 0xa, 0, new Http2Flags(), b);
      frames.logUnknownFrame(Http2FrameLogger.Direction.INBOUND, ctx, (byte) 0xb, 0, new Http2Flags(), b);
      b.release();
      assertThat(got).containsExactly("https://example.com h3=\":443\"");
    } finally {
      ch.finishAndReleaseAll();
    }
  }
}
