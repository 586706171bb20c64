package dev.loupe.engine.internal.http3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.quic.QuicStreamFrame;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link Http3StreamEnd} on an embedded pipeline, with a stand-in for Netty's frame-to-object
 * adapter and frame encoder that turns each message into one buffer per frame, as the real ones
 * do (a last content with data and trailers: two frames).
 */
class Http3StreamEndTest {
  /** Stand-in adapter + encoder: one buffer per frame, written synchronously. */
  static final class Frames extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof DefaultFullHttpResponse r) {
        ctx.write(frame("HEADERS " + r.status().code()), promise);
        r.release();
        return;
      }
      HttpContent c = (HttpContent) msg;
      if (msg instanceof LastHttpContent last && !last.trailingHeaders().isEmpty()) {
        ctx.write(frame("DATA " + c.content().toString(StandardCharsets.US_ASCII)));
        ctx.write(frame("TRAILERS"), promise);
      } else {
        ctx.write(frame("DATA " + c.content().toString(StandardCharsets.US_ASCII)), promise);
      }
      c.release();
    }

    private static ByteBuf frame(String s) {
      return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
  }

  private static EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline().addLast("adapter", new Frames());
    Http3StreamEnd.install(ch.pipeline(), "adapter");
    return ch;
  }

  /** What reached the wire: "text" for a plain buffer, "text+FIN" for a frame with the FIN. */
  private static String next(EmbeddedChannel ch) {
    Object o = ch.readOutbound();
    if (o instanceof QuicStreamFrame f) {
      String s = f.content().toString(StandardCharsets.US_ASCII) + (f.hasFin() ? "+FIN" : "");
      f.release();
      return s;
    }
    ByteBuf b = (ByteBuf) o;
    String s = b.toString(StandardCharsets.US_ASCII);
    b.release();
    return s;
  }

  @Test
  void theLastFrameOfAMessageCarriesTheFin() {
    EmbeddedChannel ch = channel();
    ch.write(new DefaultHttpContent(Unpooled.copiedBuffer("a", StandardCharsets.US_ASCII)));
    ChannelPromise done = ch.newPromise();
    ch.writeAndFlush(new DefaultLastHttpContent(Unpooled.copiedBuffer("b", StandardCharsets.US_ASCII)), done);
    assertThat(next(ch)).isEqualTo("DATA a");
    assertThat(next(ch)).isEqualTo("DATA b+FIN");
    assertThat((Object) ch.readOutbound()).isNull();
    assertThat(done.isSuccess()).isTrue();
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void withTrailersTheFinGoesWithTheTrailers() {
    EmbeddedChannel ch = channel();
    LastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("z", StandardCharsets.US_ASCII));
    last.trailingHeaders().set("x-checksum", "abc");
    ch.writeAndFlush(last);
    assertThat(next(ch)).isEqualTo("DATA z");
    assertThat(next(ch)).isEqualTo("TRAILERS+FIN");
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void aFullResponseEndsWithItsOnlyFrame() {
    EmbeddedChannel ch = channel();
    ch.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT));
    assertThat(next(ch)).isEqualTo("HEADERS 204+FIN");
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void aHundredContinueDoesNotEndTheStream() {
    EmbeddedChannel ch = channel();
    ch.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
    ch.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer("c", StandardCharsets.US_ASCII)));
    assertThat(next(ch)).isEqualTo("HEADERS 100");
    assertThat(next(ch)).isEqualTo("DATA c");
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }
}
