package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Http2ClientCodec} on an embedded channel: the exact frames it reads a request from and the
 * exact frames a response goes out as. No sockets, no HTTP/1 objects.
 */
class Http2ClientCodecTest {
  private static final ClientSide SIDE = new ClientSide("https", "o.test", 443, null, "HTTP/2", true);
  private final List<EmbeddedChannel> channels = new ArrayList<>();
  private EmbeddedChannel ch;

  @AfterEach
  void close() {
    channels.forEach(c -> assertThat(c.finishAndReleaseAll()).as("nothing left unread").isFalse());
  }

  private Http2ClientCodec codec() {
    ch = new EmbeddedChannel();
    ch.pipeline().addLast("probe", new ChannelInboundHandlerAdapter());
    channels.add(ch);
    ChannelHandlerContext ctx = ch.pipeline().context("probe");
    return new Http2ClientCodec(ctx, SIDE);
  }

  private static Http2Headers get(String path) {
    return new DefaultHttp2Headers().method("GET").scheme("https").authority("o.test").path(path);
  }

  /** Opens a request on {@code c} as the leg does, and begins answering it. */
  private static ClientRequest open(Http2ClientCodec c, Http2HeadersFrame frame) {
    assertThat(c.readable(frame)).isTrue();
    assertThat(c.opensRequest(frame)).isTrue();
    ClientRequest r = c.request(frame);
    c.begin(r);
    return r;
  }

  @Test
  void theRequestIsItsHeadersFrameWithTheFieldsWrappedNotCopied() {
    Http2ClientCodec c = codec();
    AsciiString accept = AsciiString.of("accept");
    AsciiString any = AsciiString.of("*/*");
    Http2Headers h = get("/a?b").add(accept, any).add("x-http2-scheme", "http").add("trailer", "grpc-status")
        .add("te", "trailers").add("expect", "100-continue");
    ClientRequest r = open(c, new DefaultHttp2HeadersFrame(h, false));
    assertThat(List.of(r.method(), r.target(), r.protocol())).containsExactly("GET", "/a?b", "HTTP/2");
    assertThat(List.of(r.ended(), r.streamsBody(), r.keepAlive(), r.webSocket(), r.expectsContinue(), r.malformed()))
        .containsExactly(false, true, true, false, true, false);
    assertThat(r.refusal()).isZero();
    assertThat(r.headers()).isEqualTo(Headers.of("accept", "*/*", "te", "trailers", "expect", "100-continue"));
    assertThat(r.headers().name(0)).isSameAs(accept);
    assertThat(r.headers().value(0)).isSameAs(any);
  }

  @Test
  void cookieCrumbsAreJoinedAndAHostWithoutAuthorityIsTheAuthority() {
    Http2ClientCodec c = codec();
    Http2Headers h = new DefaultHttp2Headers().method("GET").scheme("https").path("/").add("host", "o.test")
        .add("cookie", "a=1").add("x", "y").add("cookie", "b=2").add("host", "second");
    ClientRequest r = open(c, new DefaultHttp2HeadersFrame(h, true));
    assertThat(r.refusal()).as("one :authority-or-host plus a second host").isEqualTo(400);
    assertThat(r.problem()).isEqualTo("more than one Host header");
    assertThat(r.headers()).isEqualTo(Headers.of("x", "y", "cookie", "a=1; b=2", "host", "second"));
  }

  @Test
  void framingProblemsAreRefusedWith400() {
    assertThat(codec().request(new DefaultHttp2HeadersFrame(get("/").add("content-length", "1")
        .add("content-length", "1"), false)).problem()).isEqualTo("more than one Content-Length");
    assertThat(codec().request(new DefaultHttp2HeadersFrame(get("/").add("content-length", "x"), false)).problem())
        .isEqualTo("invalid Content-Length: x");
    ClientRequest noAuthority = codec().request(new DefaultHttp2HeadersFrame(
        new DefaultHttp2Headers().method("GET").scheme("https").path("/"), true));
    assertThat(List.of(noAuthority.refusal(), noAuthority.keepAlive())).containsExactly(400, false);
    Http2Headers unchecked = new DefaultHttp2Headers(false).method("GET").scheme("https").authority("o.test")
        .path("/").add("x", "a\nb");
    assertThat(codec().request(new DefaultHttp2HeadersFrame(unchecked, true)).problem())
        .isEqualTo("bare CR, LF or NUL in the value of x");
  }

  @Test
  void aMalformedRequestResetsTheStreamWithProtocolError() {
    for (Http2Headers bad : List.<Http2Headers>of(new DefaultHttp2Headers().path("/").authority("o.test"),
        new DefaultHttp2Headers().method("GET").authority("o.test"),
        new DefaultHttp2Headers().method("G ET").path("/"),
        new DefaultHttp2Headers().method("CONNECT"))) {
      Http2ClientCodec c = codec();
      assertThat(c.readable(new DefaultHttp2HeadersFrame(bad, true))).as("%s", bad).isFalse();
      Http2ResetFrame reset = ch.readOutbound();
      assertThat(reset.errorCode()).isEqualTo(Http2Error.PROTOCOL_ERROR.code());
      assertThat(ch.isOpen()).isFalse();
    }
  }

  @Test
  void dataFramesAreTheBodyOnTheirOwnBuffersAndLaterHeadersAreTrailers() {
    Http2ClientCodec c = codec();
    Http2HeadersFrame head = new DefaultHttp2HeadersFrame(get("/up").method("POST"), false);
    open(c, head);
    assertThat(c.carriesBody(head)).as("HEADERS without END_STREAM carries no body").isFalse();
    ByteBuf part = Unpooled.copiedBuffer("abc", StandardCharsets.US_ASCII);
    Http2DataFrame data = new DefaultHttp2DataFrame(part, false);
    assertThat(List.of(c.readable(data), c.opensRequest(data), c.carriesBody(data)))
        .containsExactly(true, false, true);
    HttpContent body = c.requestBody(data);
    assertThat(body).isNotInstanceOf(LastHttpContent.class);
    assertThat(body.content()).isSameAs(part);
    body.release();
    ByteBuf lastPart = Unpooled.copiedBuffer("d", StandardCharsets.US_ASCII);
    HttpContent end = c.requestBody(new DefaultHttp2DataFrame(lastPart, true));
    assertThat(end).isInstanceOf(LastHttpContent.class);
    assertThat(end.content()).isSameAs(lastPart);
    assertThat(c.trailers((LastHttpContent) end)).isEqualTo(Headers.EMPTY);
    end.release();

    Http2HeadersFrame trailers = new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().add("grpc-status", "0"), true);
    assertThat(List.of(c.readable(trailers), c.opensRequest(trailers), c.carriesBody(trailers)))
        .containsExactly(true, false, true);
    LastHttpContent last = (LastHttpContent) c.requestBody(trailers);
    assertThat(c.trailers(last)).isEqualTo(Headers.of("grpc-status", "0"));
  }

  @Test
  void headersWithEndStreamAreTheWholeRequest() {
    Http2ClientCodec c = codec();
    Http2HeadersFrame whole = new DefaultHttp2HeadersFrame(get("/"), true);
    ClientRequest r = open(c, whole);
    assertThat(List.of(r.ended(), r.streamsBody())).containsExactly(true, false);
    assertThat(c.carriesBody(whole)).isTrue();
    assertThat(c.requestBody(whole)).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
  }

  @Test
  void aResponseIsHeadersDataAndAnEmptyEndingDataFrame() {
    Http2ClientCodec c = codec();
    open(c, new DefaultHttp2HeadersFrame(get("/"), true));
    c.respond(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain", "Connection",
        "close, x-hop", "X-Hop", "1", "Keep-Alive", "timeout=5", "Transfer-Encoding", "chunked", "Host", "o",
        "Alt-Svc", "h3=\":1\"")), "h3=\":443\"");
    assertThat((Object) ch.readOutbound()).as("held").isNull();
    c.responseBody(new DefaultHttpContent(Unpooled.copiedBuffer("hi", StandardCharsets.US_ASCII)));
    c.end(Headers.EMPTY);
    Http2HeadersFrame head = ch.readOutbound();
    assertThat(head.isEndStream()).isFalse();
    assertThat(names(head.headers())).containsExactly(":status", "content-type", "alt-svc");
    assertThat(head.headers().get("content-type").toString()).isEqualTo("text/plain");
    assertThat(head.headers().get("alt-svc").toString()).isEqualTo("h3=\":443\"");
    Http2DataFrame data = ch.readOutbound();
    assertThat(List.of(data.content().toString(StandardCharsets.US_ASCII), data.isEndStream()))
        .containsExactly("hi", false);
    data.release();
    Http2DataFrame end = ch.readOutbound();
    assertThat(List.of(end.content().readableBytes(), end.isEndStream())).containsExactly(0, true);
    assertThat((Object) ch.readOutbound()).isNull();
    assertThat(c.finish()).isNotNull();
  }

  @Test
  void trailersEndTheResponseAsHeadersWithEndStreamAndATrailersOnlyResponseIsOneFrame() {
    Http2ClientCodec c = codec();
    open(c, new DefaultHttp2HeadersFrame(get("/grpc").method("POST"), true));
    c.respond(new ResponseHead(200, "", "HTTP/2", Headers.of("content-type", "application/grpc")), null);
    c.responseBody(new DefaultHttpContent(Unpooled.copiedBuffer(new byte[5])));
    c.end(Headers.of("Grpc-Status", "0", "grpc-message", "ok"));
    assertThat(((Http2HeadersFrame) ch.readOutbound()).isEndStream()).isFalse();
    ((Http2DataFrame) ch.readOutbound()).release();
    Http2HeadersFrame trailers = ch.readOutbound();
    assertThat(trailers.isEndStream()).isTrue();
    assertThat(names(trailers.headers())).containsExactly("grpc-status", "grpc-message");
    c.finish();

    Http2ClientCodec only = codec();
    open(only, new DefaultHttp2HeadersFrame(get("/grpc").method("POST"), true));
    only.respond(new ResponseHead(200, "", "HTTP/2", Headers.of("content-type", "application/grpc",
        "grpc-status", "5")), null);
    only.end(Headers.EMPTY);
    Http2HeadersFrame one = ch.readOutbound();
    assertThat(one.isEndStream()).isTrue();
    assertThat(names(one.headers())).containsExactly(":status", "content-type", "grpc-status");
    assertThat((Object) ch.readOutbound()).isNull();
  }

  @Test
  void interimHeadsGoOutAtOnceWithoutEndStream() {
    Http2ClientCodec c = codec();
    open(c, new DefaultHttp2HeadersFrame(get("/"), true));
    c.respond(new ResponseHead(103, "Early Hints", "HTTP/1.1", Headers.of("Link", "</s.css>; rel=preload")), "x");
    Http2HeadersFrame hints = ch.readOutbound();
    assertThat(hints.isEndStream()).isFalse();
    assertThat(hints.headers().status().toString()).isEqualTo("103");
    assertThat(names(hints.headers())).containsExactly(":status", "link");
    assertThat(c.headSent()).isFalse();
  }

  @Test
  void noBodyGoesOutForAHeadRequest() {
    Http2ClientCodec c = codec();
    open(c, new DefaultHttp2HeadersFrame(get("/").method("HEAD"), true));
    c.respond(new ResponseHead(200, "", "HTTP/2", Headers.of("content-length", "5")), null);
    ByteBuf body = Unpooled.copiedBuffer(new byte[5]);
    c.responseBody(new DefaultHttpContent(body));
    assertThat(body.refCnt()).isZero();
    c.end(Headers.EMPTY);
    assertThat(((Http2HeadersFrame) ch.readOutbound()).isEndStream()).isTrue();
  }

  @Test
  void anErrorPageIsHeadersAndData() {
    Http2ClientCodec c = codec();
    open(c, new DefaultHttp2HeadersFrame(get("/"), true));
    c.error(502, "Bad Gateway", "no origin", FlowError.Kind.CONNECT, false);
    Http2HeadersFrame head = ch.readOutbound();
    assertThat(head.headers().status().toString()).isEqualTo("502");
    assertThat(head.headers().contains("connection")).isFalse();
    assertThat(head.isEndStream()).isFalse();
    Http2DataFrame page = ch.readOutbound();
    assertThat(page.isEndStream()).isTrue();
    assertThat(page.content().toString(StandardCharsets.UTF_8)).contains("no origin");
    page.release();
  }

  @Test
  void abortsAndStreamErrorsResetTheStream() {
    Http2ClientCodec c = codec();
    c.abort(true);
    assertThat(((Http2ResetFrame) ch.readOutbound()).errorCode()).isEqualTo(Http2Error.REFUSED_STREAM.code());
    c.abort(false);
    assertThat(((Http2ResetFrame) ch.readOutbound()).errorCode()).isEqualTo(Http2Error.CANCEL.code());
    c.failed(Http2Exception.streamError(1, Http2Error.FLOW_CONTROL_ERROR, "window"));
    assertThat(((Http2ResetFrame) ch.readOutbound()).errorCode()).isEqualTo(Http2Error.FLOW_CONTROL_ERROR.code());
    assertThat(ch.isOpen()).isFalse();
  }

  private static List<String> names(Http2Headers h) {
    List<String> out = new ArrayList<>();
    h.forEach(e -> out.add(e.getKey().toString()));
    return out;
  }
}
