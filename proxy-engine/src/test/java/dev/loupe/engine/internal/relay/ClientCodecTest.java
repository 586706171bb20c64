package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client codecs on an embedded channel: what each HTTP version makes of a request head (the
 * neutral {@link ClientRequest}) and how a response goes out on it. No sockets.
 */
class ClientCodecTest {
  private final List<EmbeddedChannel> channels = new ArrayList<>();

  @AfterEach
  void close() {
    channels.forEach(EmbeddedChannel::finishAndReleaseAll);
  }

  private ClientCodec codec(ClientSide side) {
    EmbeddedChannel ch = new WithAddresses();
    ch.pipeline().addLast("probe", new ChannelInboundHandlerAdapter());
    channels.add(ch);
    ChannelHandlerContext ctx = ch.pipeline().context("probe");
    return ClientCodec.of(side, ctx);
  }

  private static final ClientSide HTTP1 = ClientSide.explicitProxy();
  private static final ClientSide HTTP2 = new ClientSide("https", "o.test", 443, null, "HTTP/2", true);
  private static final ClientSide HTTP3 = new ClientSide("https", "o.test", 443, null, "HTTP/3", true);

  private static HttpRequest get(HttpVersion version, String... headers) {
    HttpRequest r = new DefaultHttpRequest(version, HttpMethod.GET, "http://a.test/");
    for (int i = 0; i < headers.length; i += 2) {
      r.headers().add(headers[i], headers[i + 1]);
    }
    return r;
  }

  @Test
  void eachVersionHasItsCodec() {
    assertThat(codec(HTTP1)).isInstanceOf(Http1ClientCodec.class);
    assertThat(codec(HTTP2)).isExactlyInstanceOf(Http2ClientCodec.class);
    assertThat(codec(HTTP3)).isInstanceOf(Http3ClientCodec.class);
  }

  @Test
  void anHttp1RequestIsReadWithItsVersionsRules() {
    ClientCodec c = codec(HTTP1);
    ClientRequest r = c.request(get(HttpVersion.HTTP_1_1, "Host", "a.test", "Expect", "100-continue"));
    assertThat(r.refusal()).isZero();
    assertThat(r.protocol()).isEqualTo("HTTP/1.1");
    assertThat(r.keepAlive()).isTrue();
    assertThat(r.expectsContinue()).isTrue();
    assertThat(r.streamsBody()).isFalse();
    assertThat(r.headers()).isEqualTo(Headers.of("Host", "a.test", "Expect", "100-continue"));

    ClientRequest old = c.request(get(HttpVersion.HTTP_1_0));
    assertThat(old.http10()).isTrue();
    assertThat(old.keepAlive()).isFalse();
    assertThat(old.protocol()).isEqualTo("HTTP/1.0");
  }

  @Test
  void http1RefusesOtherVersionsAndAmbiguousFraming() {
    ClientCodec c = codec(HTTP1);
    assertThat(c.request(get(HttpVersion.valueOf("HTTP/2.0"), "Host", "a.test")).refusal()).isEqualTo(505);
    assertThat(c.request(get(HttpVersion.valueOf("HTTP/1.2"), "Host", "a.test")).refusal()).isEqualTo(400);
    ClientRequest smuggled = c.request(get(HttpVersion.HTTP_1_1, "Host", "a.test", "Content-Length", "3",
        "Transfer-Encoding", "chunked"));
    assertThat(smuggled.refusal()).isEqualTo(400);
    assertThat(smuggled.problem()).contains("both Content-Length and Transfer-Encoding");
    HttpRequest broken = get(HttpVersion.HTTP_1_1);
    broken.setDecoderResult(DecoderResult.failure(new IllegalArgumentException("bad header")));
    ClientRequest malformed = c.request(broken);
    assertThat(List.of(malformed.malformed(), malformed.refusal(), malformed.problem()))
        .containsExactly(true, 400, "bad header");
  }

  @Test
  void aWebSocketUpgradeIsSeenAndHttp1HoldsTheBytesBehindIt() {
    ClientCodec c = codec(HTTP1);
    HttpRequest upgrade = get(HttpVersion.HTTP_1_1, "Host", "a.test", "Connection", "Upgrade", "Upgrade", "websocket");
    assertThat(c.request(upgrade).webSocket()).isTrue();
    assertThat(c.holding()).isFalse();
    c.queued(upgrade);
    assertThat(c.holding()).isTrue();
    ByteBuf early = Unpooled.copiedBuffer(new byte[] {(byte) 0x81, 0});
    assertThat(c.hold(early)).isTrue();
    ByteBuf taken = c.takeHeld();
    assertThat(taken).isSameAs(early);
    assertThat(c.holding()).isFalse();
    taken.release();
    assertThat(codec(HTTP2).hold(Unpooled.EMPTY_BUFFER)).isFalse();
  }

  @Test
  void anHttp2RequestIsReadFromItsHeadersFrame() {
    ClientCodec c = codec(HTTP2);
    Http2HeadersFrame streamed = new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().method("GET").path("/")
        .scheme("https").authority("o.test").add("x-http2-stream-id", "3").add("accept", "*/*"), false);
    assertThat(c.readable(streamed)).isTrue();
    ClientRequest r = c.request(streamed);
    assertThat(r.protocol()).isEqualTo("HTTP/2");
    assertThat(r.headers()).isEqualTo(Headers.of("accept", "*/*"));
    assertThat(r.streamsBody()).isTrue();
    ClientCodec other = codec(HTTP2);
    Http2HeadersFrame whole = new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().method("GET").path("/")
        .scheme("https").authority("o.test"), true);
    ClientRequest ended = other.request(whole);
    assertThat(List.of(ended.ended(), ended.streamsBody())).containsExactly(true, false);
  }

  @Test
  void http1WritesInterimResponsesOnlyToHttp11Clients() {
    ClientCodec c = codec(HTTP1);
    EmbeddedChannel ch = channels.get(0);
    c.begin(c.request(get(HttpVersion.HTTP_1_0)));
    c.respond(new ResponseHead(103, "Early Hints", "HTTP/1.1", Headers.EMPTY), null);
    assertThat((Object) ch.readOutbound()).isNull();
    c.finish();
    c.begin(c.request(get(HttpVersion.HTTP_1_1, "Host", "a.test")));
    c.respond(new ResponseHead(103, "Early Hints", "HTTP/1.1", Headers.EMPTY), null);
    assertThat((Object) ch.readOutbound()).isInstanceOfSatisfying(HttpResponse.class,
        h -> assertThat(h.status().code()).isEqualTo(103));
    assertThat((Object) ch.readOutbound()).isInstanceOf(LastHttpContent.class);
  }

  @Test
  void aFinalHeadSaysCloseWhenTheClientDoesNotKeepAlive() {
    ClientCodec c = codec(HTTP1);
    EmbeddedChannel ch = channels.get(0);
    c.begin(c.request(get(HttpVersion.HTTP_1_1, "Host", "a.test", "Connection", "close")));
    c.respond(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Length", "0")), "h3=\":443\"");
    ch.flush(); // HTTP/1.1 writes the head at once; the leg flushes at the end of the read
    HttpResponse head = ch.readOutbound();
    assertThat(head.headers().get("connection")).isEqualTo("close");
    assertThat(head.headers().get("alt-svc")).isEqualTo("h3=\":443\"");
    assertThat(c.headSent()).isTrue();
    assertThat(c.goesOn()).isFalse();
  }

  @Test
  void noBodyGoesOutForAHeadRequest() {
    ClientCodec c = codec(HTTP1);
    EmbeddedChannel ch = channels.get(0);
    HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.HEAD, "http://a.test/");
    head.headers().set("Host", "a.test");
    c.begin(c.request(head));
    c.respond(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Length", "5")), null);
    ByteBuf body = Unpooled.copiedBuffer(new byte[5]);
    c.responseBody(new DefaultHttpContent(body));
    assertThat(body.refCnt()).isZero();
    ch.flush();
    assertThat((Object) ch.readOutbound()).isInstanceOf(HttpResponse.class);
    assertThat((Object) ch.readOutbound()).isNull();
  }

  @Test
  void http2SendsABodilessResponseAsOneHeadersFrameAndHttp3DropsAltSvc() {
    ClientCodec h2 = codec(HTTP2);
    EmbeddedChannel ch2 = channels.get(channels.size() - 1);
    h2.begin(h2.request(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().method("GET").path("/")
        .scheme("https").authority("o.test"), true)));
    h2.respond(new ResponseHead(204, "", "HTTP/2", Headers.of("alt-svc", "h3=\":1\"")), "h3=\":443\"");
    assertThat((Object) ch2.readOutbound()).as("held until the end").isNull();
    h2.end(Headers.EMPTY);
    Http2HeadersFrame only = ch2.readOutbound();
    assertThat(only.isEndStream()).isTrue();
    assertThat(only.headers().status().toString()).isEqualTo("204");
    assertThat(only.headers().getAll("alt-svc")).extracting(Object::toString).containsExactly("h3=\":443\"");
    assertThat(h2.finish()).isNotNull();

    ClientCodec c = codec(HTTP3);
    EmbeddedChannel ch = channels.get(channels.size() - 1);
    c.begin(c.request(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/")));
    c.respond(new ResponseHead(204, "", HTTP3.protocol(), Headers.of("alt-svc", "h3=\":1\"")), "h3=\":443\"");
    assertThat((Object) ch.readOutbound()).as("held until the end").isNull();
    c.end(Headers.EMPTY);
    FullHttpResponse whole = ch.readOutbound();
    assertThat(whole.status().code()).isEqualTo(204);
    assertThat(whole.headers().get("alt-svc")).isNull();
    whole.release();
    assertThat(c.finish()).isNotNull();
  }

  /** An embedded channel with the socket addresses the codec records. */
  private static final class WithAddresses extends EmbeddedChannel {
    @Override
    protected SocketAddress localAddress0() {
      return new InetSocketAddress("127.0.0.1", 8080);
    }

    @Override
    protected SocketAddress remoteAddress0() {
      return new InetSocketAddress("127.0.0.1", 50000);
    }
  }
}
