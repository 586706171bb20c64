package dev.loupe.engine.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlushCoalescerTest {
  /** Counts flushes reaching the socket end of the pipeline. */
  private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
    int flushes;

    @Override
    public void flush(ChannelHandlerContext ctx) {
      flushes++;
      ctx.flush();
    }
  }

  @Test
  void flushesOfManyStreamsInOneBatchBecomeOneConnectionFlush() {
    FlushCounter counter = new FlushCounter();
    EmbeddedChannel connection = new EmbeddedChannel(counter,
        Http2FrameCodecBuilder.forClient().build(),
        new Http2MultiplexHandler(new ChannelInboundHandlerAdapter()));
    FlushCoalescer coalescer = FlushCoalescer.install(connection);
    List<Http2StreamChannel> streams = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Http2StreamChannel s = new Http2StreamChannelBootstrap(connection).open().syncUninterruptibly().getNow();
      s.writeAndFlush(new DefaultHttp2HeadersFrame(
          new DefaultHttp2Headers().method("POST").path("/").scheme("https").authority("example.com"), false));
      streams.add(s);
    }
    connection.runPendingTasks();
    int before = counter.flushes;

    for (Http2StreamChannel s : streams) {
      s.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(new byte[100]), true));
      FlushCoalescer.flush(s);
    }
    assertThat(counter.flushes).as("no flush before the batch ends").isEqualTo(before);

    connection.runPendingTasks();
    assertThat(counter.flushes - before).as("one connection flush for 50 streams").isEqualTo(1);
    assertThat(coalescer.requests()).isEqualTo(50);
    assertThat(coalescer.flushes()).isEqualTo(1);
    // Every stream's HEADERS reached the wire (plus the preface/SETTINGS written at start).
    int frames = 0;
    Object out;
    while ((out = connection.readOutbound()) != null) {
      frames++;
      io.netty.util.ReferenceCountUtil.release(out);
    }
    assertThat(frames).isPositive();
    assertThat(connection.finishAndReleaseAll()).isTrue();
  }

  @Test
  void aChannelWithoutACoalescerIsFlushedAtOnce() {
    FlushCounter counter = new FlushCounter();
    EmbeddedChannel ch = new EmbeddedChannel(counter);
    ch.write(Unpooled.wrappedBuffer(new byte[] {1}));
    FlushCoalescer.flush(ch);
    assertThat(counter.flushes).isEqualTo(1);
    assertThat(ch.finishAndReleaseAll()).isTrue();
  }
}
