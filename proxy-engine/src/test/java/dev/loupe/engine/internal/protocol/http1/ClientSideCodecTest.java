package dev.loupe.engine.internal.protocol.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessageDecoderResult;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientSideCodec} decodes and encodes what {@link HttpServerCodec} (configured as Loupe's
 * client legs configure it) does, object for object and byte for byte: plain requests (read by
 * {@link FastHead}) and their edges, bodies, pipelining and its depth limit, HEAD and CONNECT
 * responses, the close after a request with both Transfer-Encoding and Content-Length, malformed
 * and smuggling requests, the limits, and random request streams cut at random points, from heap
 * and direct buffers.
 */
class ClientSideCodecTest {
  private static HttpDecoderConfig config() {
    return new HttpDecoderConfig()
        .setMaxInitialLineLength(4096)
        .setMaxHeaderSize(8192)
        .setMaxChunkSize(8192)
        .setAllowDuplicateContentLengths(false)
        .setAllowPartialChunks(true)
        .setStrictLineParsing(true)
        .setUseRfc9112TransferEncoding(true)
        .setHeadersFactory(CompactHttpHeaders.HEADERS)
        .setTrailersFactory(CompactHttpHeaders.TRAILERS);
  }

  private static final Supplier<ChannelHandler> NETTY = () -> new HttpServerCodec(config());
  private static final Supplier<ChannelHandler> LOUPE = () -> new ClientSideCodec(config());

  /**
   * Feeds {@code wire} cut at {@code cuts}, answers every request decoded (a response chosen by its
   * position: fixed length, chunked, 204, a 2xx to whatever came), closes when {@code close}, and
   * describes every object decoded, every failure raised, the bytes written and whether the channel
   * stayed open.
   */
  private static List<String> run(Supplier<ChannelHandler> codec, String wire, int[] cuts, boolean close,
      boolean direct) {
    EmbeddedChannel ch = new EmbeddedChannel(codec.get());
    List<String> out = new ArrayList<>();
    int[] answered = {0};
    byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
    int from = 0;
    for (int cut : cuts) {
      if (cut > from && cut < bytes.length) {
        feed(ch, buffer(bytes, from, cut - from, direct), out);
        from = cut;
        drain(ch, out, answered);
      }
    }
    if (from < bytes.length) {
      feed(ch, buffer(bytes, from, bytes.length - from, direct), out);
    }
    drain(ch, out, answered);
    if (close) {
      try {
        ch.finish();
      } catch (RuntimeException e) {
        out.add("EXCEPTION " + e);
      }
      drain(ch, out, answered);
    }
    out.add("OPEN " + ch.isOpen());
    ch.finishAndReleaseAll();
    return out;
  }

  private static void feed(EmbeddedChannel ch, ByteBuf b, List<String> out) {
    try {
      ch.writeInbound(b);
    } catch (RuntimeException e) {
      out.add("EXCEPTION " + e);
    }
  }

  private static ByteBuf buffer(byte[] bytes, int from, int length, boolean direct) {
    if (!direct) {
      return Unpooled.wrappedBuffer(bytes, from, length);
    }
    return Unpooled.directBuffer(length).writeBytes(bytes, from, length);
  }

  private static void drain(EmbeddedChannel ch, List<String> out, int[] answered) {
    for (Object o; (o = ch.readInbound()) != null; ) {
      try {
        out.add(describe(o));
        if (o instanceof LastHttpContent && ch.isOpen()) {
          respond(ch, answered[0]++);
        }
      } finally {
        ReferenceCountUtil.release(o);
      }
    }
    StringBuilder written = new StringBuilder();
    for (Object o; (o = ch.readOutbound()) != null; ) {
      written.append(((ByteBuf) o).toString(StandardCharsets.ISO_8859_1));
      ReferenceCountUtil.release(o);
    }
    if (written.length() > 0) {
      out.add("WROTE " + written);
    }
  }

  /** A 204 written and what went out, or the failure to write it (the channel closed). */
  private static void answer(EmbeddedChannel ch, List<String> out) {
    try {
      respond(ch, 2);
    } catch (Exception e) { // the closed channel's ClosedChannelException, thrown unchecked
      out.add("EXCEPTION " + e);
    }
    for (Object o; (o = ch.readOutbound()) != null; ReferenceCountUtil.release(o)) {
      out.add("WROTE " + ((ByteBuf) o).toString(StandardCharsets.ISO_8859_1));
    }
  }

  private static void respond(EmbeddedChannel ch, int n) {
    switch (n % 4) {
      case 0 -> {
        DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
            Unpooled.copiedBuffer("body", StandardCharsets.US_ASCII));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, 4);
        ch.writeOutbound(r);
      }
      case 1 -> {
        DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
        ch.write(r);
        ch.writeOutbound(new DefaultLastHttpContent(Unpooled.copiedBuffer("chunk", StandardCharsets.US_ASCII)));
      }
      case 2 -> ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NO_CONTENT));
      default -> {
        DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CREATED);
        r.headers().set(HttpHeaderNames.TRANSFER_ENCODING, "chunked");
        ch.write(r);
        ch.writeOutbound(new DefaultLastHttpContent(Unpooled.copiedBuffer("x", StandardCharsets.US_ASCII)));
      }
    }
  }

  private static String describe(Object o) {
    StringBuilder s = new StringBuilder();
    if (o instanceof HttpRequest r) {
      s.append("REQ ").append(r.method()).append(' ').append(r.uri()).append(' ').append(r.protocolVersion())
          .append(' ').append(fields(r.headers().iteratorCharSequence()));
    }
    if (o instanceof HttpContent c) {
      s.append(o instanceof LastHttpContent ? "LAST " : "CONTENT ")
          .append(c.content().toString(StandardCharsets.ISO_8859_1));
      if (o instanceof LastHttpContent l) {
        s.append(' ').append(fields(l.trailingHeaders().iteratorCharSequence()));
      }
    }
    if (o instanceof DecoderResultProvider p) {
      if (!p.decoderResult().isSuccess()) {
        s.append(" FAILED ").append(p.decoderResult().cause());
      }
      if (p.decoderResult() instanceof HttpMessageDecoderResult r) {
        s.append(" sizes ").append(r.initialLineLength()).append('/').append(r.headerSize());
      }
    }
    if (o instanceof ByteBuf b) {
      s.append("BYTES ").append(b.toString(StandardCharsets.ISO_8859_1));
    }
    return s.append(" #").append(o.getClass().getSimpleName()).toString();
  }

  private static String fields(java.util.Iterator<Map.Entry<CharSequence, CharSequence>> it) {
    StringBuilder s = new StringBuilder("{");
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      s.append(e.getKey()).append('=').append(e.getValue()).append(';');
    }
    return s.append('}').toString();
  }

  /** Both codecs, whole and cut at every point, heap and direct, give the same; returns it. */
  private static List<String> same(String wire, boolean close) {
    List<String> expected = run(NETTY, wire, new int[0], close, false);
    assertThat(run(LOUPE, wire, new int[0], close, false)).isEqualTo(expected);
    assertThat(run(LOUPE, wire, new int[0], close, true)).isEqualTo(expected);
    for (int cut = 1; cut < wire.length(); cut++) {
      int[] cuts = {cut};
      List<String> netty = run(NETTY, wire, cuts, close, false);
      assertThat(run(LOUPE, wire, cuts, close, false)).as("cut at %d", cut).isEqualTo(netty);
      assertThat(run(LOUPE, wire, cuts, close, true)).as("direct, cut at %d", cut).isEqualTo(netty);
    }
    return expected;
  }

  @Test
  void plainRequestsAndTheirEdges() {
    String[] wires = {
        "GET /small HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nUser-Agent: h2load nghttp2/1.59.0\r\nAccept: */*\r\n\r\n",
        "GET /a?b=c HTTP/1.1\r\nhost: x\r\n\r\nGET /a?b=c HTTP/1.1\r\nhost: x\r\n\r\nHEAD /a HTTP/1.0\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
        "PUT /p HTTP/1.1\r\nContent-Length: 05\r\n\r\nhello",
        "GET / HTTP/1.1\r\nX-A:\r\nX-B: \t \r\nX-C:\t a \t b \t\r\nX-D:v\r\n\r\n",
        "GET http://example.com/x HTTP/1.1\r\nHost: example.com\r\n\r\n",
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\u0016\u0003\u0001",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        "get / HTTP/1.1\r\n\r\n",
        "M-SEARCH * HTTP/1.1\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.2\r\n\r\n",
        "GET / HTTP/1.1 \r\n\r\n",
        "GET /caf\u00e9 HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nX-Obs: caf\u00e9\r\n\r\n",
        "GET / HTTP/1.1\nHost: x\n\n",
        "GET / HTTP/1.1\r\nHost: x\n\r\n",
        "\r\nGET / HTTP/1.1\r\n\r\n",
        " GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\n Host: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
        "GET / HTTP/1.1\r\nHo st: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\u0001b\r\n\r\n",
        "GET / HTTP/1.1\r\nX: a\u007fb\r\n\r\n",
        "GET / HTTP/1.1\r\nX\u0001: a\r\n\r\n",
        "GET / HTTP/1.1\r\n: a\r\n\r\n",
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: abc\r\n\r\n",
        "GET / HTTP/1.1\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key1: 1\r\n"
            + "Sec-WebSocket-Key2: 2\r\n\r\n12345678",
        "POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok",
        "HEAD /1 HTTP/1.1\r\n\r\nHEAD /2 HTTP/1.1\r\n\r\nGET /3 HTTP/1.1\r\n\r\nCONNECT h:443 HTTP/1.1\r\n\r\n",
        "GET /1 HTTP/1.1\r\n\r\nCONNECT h:443 HTTP/1.1\r\n\r\nGET /3 HTTP/1.1\r\n\r\nCONNECT h:443 HTTP/1.1\r\n\r\n",
    };
    for (String wire : wires) {
      same(wire, false);
      same(wire, true);
    }
  }

  @Test
  void smugglingAndFramingFailOrCloseAlike() {
    String[] wires = {
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "GET /after HTTP/1.1\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, identity\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: t\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc",
        "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort",
        "GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\n\r\n",
    };
    for (String wire : wires) {
      same(wire, false);
      same(wire, true);
    }
  }

  @Test
  void limitsHold() {
    String target = "/" + "t".repeat(4096 - "GET / HTTP/1.1".length());
    String field = "X-Big: " + "v".repeat(8192 - "X-Big: ".length());
    for (String wire : new String[] {
        "GET " + target + " HTTP/1.1\r\n\r\n",
        "GET " + target + "t HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\n" + field + "\r\n\r\n",
        "GET / HTTP/1.1\r\n" + field + "v\r\n\r\n",
        "GET / HTTP/1.1\r\n" + "X-N: 1\r\n".repeat(80) + "\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 20000\r\n\r\n" + "b".repeat(20000)}) {
      for (boolean direct : new boolean[] {false, true}) {
        for (int[] cuts : new int[][] {{}, {9}, {wire.length() / 2}, {wire.length() - 3}, {100, 9000, 9100}}) {
          assertThat(run(LOUPE, wire, cuts, true, direct)).isEqualTo(run(NETTY, wire, cuts, true, false));
        }
      }
    }
  }

  @Test
  void pipelineDepthLimitFailsAlike() {
    String wire = "GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\nHEAD /3 HTTP/1.1\r\n\r\nGET /4 HTTP/1.1\r\n\r\n";
    for (int depth = 1; depth <= 4; depth++) {
      int d = depth;
      Supplier<ChannelHandler> netty = () -> new HttpServerCodec(config(), d);
      Supplier<ChannelHandler> loupe = () -> new ClientSideCodec(config(), d);
      for (boolean direct : new boolean[] {false, true}) {
        // nothing answered before all arrive: run() answers each on its end, so feed at once
        EmbeddedChannel a = new EmbeddedChannel(netty.get());
        EmbeddedChannel b = new EmbeddedChannel(loupe.get());
        List<String> outA = new ArrayList<>();
        List<String> outB = new ArrayList<>();
        byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
        feed(a, buffer(bytes, 0, bytes.length, false), outA);
        feed(b, buffer(bytes, 0, bytes.length, direct), outB);
        for (Object o; (o = a.readInbound()) != null; ReferenceCountUtil.release(o)) {
          outA.add(describe(o));
        }
        for (Object o; (o = b.readInbound()) != null; ReferenceCountUtil.release(o)) {
          outB.add(describe(o));
        }
        for (int i = 0; i < 4; i++) {
          answer(a, outA);
          answer(b, outB);
        }
        outA.add("OPEN " + a.isOpen());
        outB.add("OPEN " + b.isOpen());
        assertThat(outB).as("depth %d", d).isEqualTo(outA);
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
      }
    }
  }

  @Test
  void randomRequestStreams() {
    String[] lines = {"GET / HTTP/1.1", "GET /small HTTP/1.1", "HEAD /h HTTP/1.1", "POST /p HTTP/1.1",
        "GET / HTTP/1.0", "CONNECT h:443 HTTP/1.1", "OPTIONS * HTTP/1.1", "get / HTTP/1.1", "GET  / HTTP/1.1",
        "DELETE /d?x=1 HTTP/1.1", "GET / HTTP/1.1 "};
    String[] fields = {"Host: 127.0.0.1:8443", "host: example.com", "User-Agent: h2load nghttp2/1.59.0",
        "Accept: */*", "Accept-Encoding: gzip, deflate, br", "Cookie: a=b; c=d", "Connection: keep-alive",
        "Connection: close", "Content-Length: 2", "Content-Length: 0", "content-length: 2", "Content-Length: 02",
        "Transfer-Encoding: chunked", "Content-Length: 2, 2", "X-Sp: a b  ", "X-Tab:\tv\t", "X-Empty:",
        "X-Obs: caf\u00e9", "Sec-Fetch-Mode: navigate", "Expect: 100-continue", "Upgrade: h2c"};
    Random random = new Random(23);
    for (int round = 0; round < 400; round++) {
      StringBuilder wire = new StringBuilder();
      for (int i = 1 + random.nextInt(4); i > 0; i--) {
        wire.append(lines[random.nextInt(lines.length)]).append("\r\n");
        boolean chunked = false;
        for (int f = random.nextInt(6); f > 0; f--) {
          String field = fields[random.nextInt(fields.length)];
          chunked |= field.startsWith("Transfer-Encoding");
          wire.append(field).append("\r\n");
        }
        wire.append("\r\n").append(chunked ? "2\r\nok\r\n0\r\n\r\n" : "ok");
      }
      String w = wire.toString();
      int[] cuts = random.ints(random.nextInt(4), 1, w.length()).sorted().toArray();
      boolean close = random.nextBoolean();
      assertThat(run(LOUPE, w, cuts, close, round % 2 == 0)).as("%s", w)
          .isEqualTo(run(NETTY, w, cuts, close, false));
    }
  }

  /** A value or target equal to the previous request's is that previous String; the head is read here. */
  @Test
  void repeatedValuesAndTargetsAreShared() {
    EmbeddedChannel ch = new EmbeddedChannel(LOUPE.get());
    List<HttpRequest> heads = new ArrayList<>();
    for (String ua : new String[] {"agent/1", "agent/1", "agent/2"}) {
      ch.writeInbound(Unpooled.copiedBuffer("GET /small HTTP/1.1\r\nHost: 127.0.0.1:8443\r\nUser-Agent: " + ua
          + "\r\n\r\n", StandardCharsets.US_ASCII));
      heads.add(ch.readInbound());
      assertThat((Object) ch.readInbound()).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
      respond(ch, 2);
      ReferenceCountUtil.release(ch.readOutbound());
    }
    assertThat(heads.get(1).uri()).isEqualTo("/small").isSameAs(heads.get(0).uri());
    assertThat(heads.get(2).headers().get("Host")).isEqualTo("127.0.0.1:8443")
        .isSameAs(heads.get(0).headers().get("Host"));
    assertThat(heads.get(1).headers().get("User-Agent")).isSameAs(heads.get(0).headers().get("User-Agent"));
    assertThat(heads.get(2).headers().get("User-Agent")).isEqualTo("agent/2");
    assertThat(heads.get(0).decoderResult()).isInstanceOf(HttpMessageDecoderResult.class);
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }
}
