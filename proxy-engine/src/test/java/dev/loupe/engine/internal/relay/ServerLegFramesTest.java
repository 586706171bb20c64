package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.exchange.ExchangeEvent;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.upstream.LegSlot;
import dev.loupe.engine.internal.upstream.UpstreamConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ServerLeg} on an HTTP/2 origin stream (an embedded channel standing in for it): the exact
 * frames a request goes out as, and the events the origin's frames become. No adapter, no sockets.
 */
class ServerLegFramesTest {
  private final EmbeddedChannel ch = new EmbeddedChannel();
  private final List<ExchangeEvent> events = new ArrayList<>();
  private final List<FlowError> broken = new ArrayList<>();
  private final RecordedFlow flow = new RecordedFlow(1, Instant.now(), CapturePolicy.defaults());
  private ServerLeg leg;

  private ServerLeg leg(boolean tls) {
    RequestHead head = new RequestHead("POST", tls ? "https" : "http", "o.test", 8443, "/up?x=1", "HTTP/2",
        Headers.of("content-type", "text/plain", "te", "trailers"));
    flow.request(head);
    ConnectionInfo info = new ConnectionInfo(1, null, null, null, false);
    leg = new ServerLeg(new ServerLeg.Owner() {
      @Override
      public void serverEvent(ExchangeEvent e) {
        events.add(e);
      }

      @Override
      public void serverBroken(FlowError error, boolean retryable) {
        broken.add(error);
      }

      @Override
      public void serverReadComplete() {}

      @Override
      public void serverWritabilityChanged() {}
    }, flow, new UpstreamConnection(ch, "https://o.test:8443", info, "HTTP/2", true), null);
    LegSlot.attach(ch, leg);
    return leg;
  }

  private static ClientRequest request(boolean ended) {
    return new ClientRequest("POST", "/up?x=1", "HTTP/2", false, Headers.EMPTY, ended, !ended, true, false,
        false, false, 0, null);
  }

  @AfterEach
  void close() {
    events.forEach(e -> {
      if (e instanceof ExchangeEvent.ResponseDataReceived d) {
        ReferenceCountUtil.release(d.payload());
      }
    });
    assertThat(ch.finishAndReleaseAll()).as("nothing left unread").isFalse();
  }

  @Test
  void aRequestWithoutBodyIsOneHeadersFrameWithEndStream() {
    ServerLeg l = leg(false);
    l.writeHead(flow.request(), request(true));
    assertThat((Object) ch.readOutbound()).as("held for the end").isNull();
    l.end(Headers.EMPTY);
    Http2HeadersFrame h = ch.readOutbound();
    assertThat(h.isEndStream()).isTrue();
    assertThat(h.headers().method().toString()).isEqualTo("POST");
    assertThat(h.headers().scheme().toString()).isEqualTo("http");
    assertThat(h.headers().authority().toString()).isEqualTo("o.test:8443");
    assertThat(h.headers().path().toString()).isEqualTo("/up?x=1");
    assertThat(h.headers().get("te").toString()).isEqualTo("trailers");
    assertThat((Object) ch.readOutbound()).isNull();
  }

  @Test
  void aStreamedRequestIsHeadersDataAndTrailers() {
    ServerLeg l = leg(true);
    l.writeHead(flow.request(), request(false));
    ByteBuf body = Unpooled.copiedBuffer("abc", StandardCharsets.US_ASCII);
    l.write(new DefaultHttpContent(body));
    l.end(Headers.of("X-Checksum", "1"));
    Http2HeadersFrame h = ch.readOutbound();
    assertThat(h.isEndStream()).isFalse();
    Http2DataFrame d = ch.readOutbound();
    assertThat(d.content()).isSameAs(body);
    assertThat(d.isEndStream()).isFalse();
    d.release();
    Http2HeadersFrame t = ch.readOutbound();
    assertThat(t.isEndStream()).isTrue();
    assertThat(t.headers().get("x-checksum").toString()).isEqualTo("1");
  }

  @Test
  void aHeldHeadGoesAloneWhenTheExchangeStartsWithoutTheEnd() {
    ServerLeg l = leg(true);
    l.writeHead(flow.request(), request(true));
    l.start(false);
    assertThat(((Http2HeadersFrame) ch.readOutbound()).isEndStream()).isFalse();
    l.end(Headers.EMPTY);
    Http2DataFrame end = ch.readOutbound();
    assertThat(List.of(end.content().readableBytes(), end.isEndStream())).containsExactly(0, true);
  }

  @Test
  void aStartDuringAClientReadLeavesTheFlushToThatReadAndNothingIsFlushedTwice() {
    int[] flushes = {0};
    ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
      @Override
      public void flush(ChannelHandlerContext ctx) {
        flushes[0]++;
        ctx.flush();
      }
    });
    ServerLeg l = leg(true);
    l.writeHead(flow.request(), request(false));
    l.start(true);
    assertThat((Object) ch.readOutbound()).isNull();
    assertThat(flushes[0]).isZero();
    l.flushWritten(); // the client read's end
    assertThat(((Http2HeadersFrame) ch.readOutbound()).isEndStream()).isFalse();
    l.flushWritten();
    assertThat(flushes[0]).isEqualTo(1);
    l.end(Headers.EMPTY);
    l.flushWritten();
    assertThat(flushes[0]).isEqualTo(2);
    Http2DataFrame end = ch.readOutbound();
    assertThat(end.isEndStream()).isTrue();
  }

  @Test
  void responseFramesBecomeEvents() {
    leg(true);
    ch.writeInbound(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("103").add("link", "</a>"), false));
    ch.writeInbound(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200")
        .add("content-type", "application/grpc"), false));
    ByteBuf body = Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII);
    ch.writeInbound(new DefaultHttp2DataFrame(body, false));
    ch.writeInbound(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, false));
    ch.writeInbound(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().add("grpc-status", "0"), true));
    assertThat(events).hasSize(4);
    assertThat(((ExchangeEvent.ResponseHeadersReceived) events.get(0)).head().status()).isEqualTo(103);
    ExchangeEvent.ResponseHeadersReceived head = (ExchangeEvent.ResponseHeadersReceived) events.get(1);
    assertThat(List.of(head.head().status(), head.head().httpVersion())).containsExactly(200, "HTTP/2");
    assertThat(head.head().headers()).isEqualTo(Headers.of("content-type", "application/grpc"));
    ExchangeEvent.ResponseDataReceived data = (ExchangeEvent.ResponseDataReceived) events.get(2);
    assertThat(((HttpContent) data.payload()).content()).isSameAs(body);
    assertThat(data.length()).isEqualTo(5);
    assertThat(((ExchangeEvent.ResponseEnded) events.get(3)).trailers()).isEqualTo(Headers.of("grpc-status", "0"));
    assertThat(flow.responseBody().size()).isEqualTo(5);
    assertThat(broken).isEmpty();
  }

  @Test
  void aTrailersOnlyResponseIsAHeadAndItsEnd() {
    leg(true);
    ch.writeInbound(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200").add("grpc-status", "5"),
        true));
    assertThat(events).hasSize(2);
    assertThat(((ExchangeEvent.ResponseEnded) events.get(1)).trailers()).isEqualTo(Headers.EMPTY);
  }

  @Test
  void aResponseWithoutAValidStatusBreaksTheExchange() {
    leg(true);
    ch.writeInbound(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers(false).status("2x0"), false));
    assertThat(events).isEmpty();
    assertThat(broken).extracting(FlowError::kind).containsExactly(FlowError.Kind.SERVER_PROTOCOL);
    assertThat(broken.get(0).message()).contains(":status '2x0'");
  }
}
