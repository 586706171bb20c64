package dev.loupe.engine.internal.protocol.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link OriginCodec} decodes what {@link HttpClientCodec} (as Loupe configured it) decodes, object
 * for object: the pairing cases (HEAD, CONNECT, 1xx, 204/304, close-delimited, pipelined), the
 * malformed and smuggling cases, and random response streams cut at random points; and it shares
 * the common names instead of copying them, keeping their case.
 */
class OriginCodecTest {
  private static HttpDecoderConfig config() {
    return new HttpDecoderConfig()
        .setMaxInitialLineLength(4096)
        .setMaxHeaderSize(8192)
        .setMaxChunkSize(8192)
        .setHeadersFactory(CompactHttpHeaders.HEADERS)
        .setTrailersFactory(CompactHttpHeaders.TRAILERS);
  }

  private static final Supplier<ChannelHandler> NETTY = () -> new HttpClientCodec(config(), false, false);
  private static final Supplier<ChannelHandler> LOUPE = () -> new OriginCodec(config());

  /**
   * Writes one request per method, feeds {@code wire} cut at {@code cuts}, closes the channel when
   * {@code close}, and describes every object the decoder passed on.
   */
  private static List<String> decode(Supplier<ChannelHandler> codec, List<HttpMethod> methods,
      String wire, int[] cuts, boolean close) {
    return decode(codec, methods, wire, cuts, close, false);
  }

  /** As above; {@code direct}: the bytes come in direct buffers (no array to read a head from). */
  private static List<String> decode(Supplier<ChannelHandler> codec, List<HttpMethod> methods,
      String wire, int[] cuts, boolean close, boolean direct) {
    EmbeddedChannel ch = new EmbeddedChannel(codec.get());
    List<String> out = new ArrayList<>();
    for (HttpMethod m : methods) {
      ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, m, "/x"));
      for (Object o; (o = ch.readOutbound()) != null; ) {
        ReferenceCountUtil.release(o);
      }
    }
    byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
    int from = 0;
    for (int cut : cuts) {
      if (cut > from && cut < bytes.length) {
        ch.writeInbound(buffer(bytes, from, cut - from, direct));
        from = cut;
        drain(ch, out);
      }
    }
    if (from < bytes.length) {
      ch.writeInbound(buffer(bytes, from, bytes.length - from, direct));
    }
    drain(ch, out);
    if (close) {
      ch.finish();
      drain(ch, out);
    } else {
      ch.finishAndReleaseAll();
    }
    return out;
  }

  private static ByteBuf buffer(byte[] bytes, int from, int length, boolean direct) {
    if (!direct) {
      return Unpooled.wrappedBuffer(bytes, from, length);
    }
    ByteBuf b = Unpooled.directBuffer(length);
    return b.writeBytes(bytes, from, length);
  }

  private static void drain(EmbeddedChannel ch, List<String> out) {
    for (Object o; (o = ch.readInbound()) != null; ) {
      try {
        out.add(describe(o));
      } finally {
        ReferenceCountUtil.release(o);
      }
    }
  }

  private static String describe(Object o) {
    StringBuilder s = new StringBuilder();
    if (o instanceof HttpResponse r) {
      s.append("HEAD ").append(r.protocolVersion()).append(' ').append(r.status().code()).append(" [")
          .append(r.status().reasonPhrase()).append("] ").append(fields(r.headers().iteratorCharSequence()));
    }
    if (o instanceof HttpContent c) {
      s.append(o instanceof LastHttpContent ? "LAST " : "CONTENT ")
          .append(c.content().toString(StandardCharsets.ISO_8859_1));
      if (o instanceof LastHttpContent l) {
        s.append(' ').append(fields(l.trailingHeaders().iteratorCharSequence()));
      }
    }
    if (o instanceof io.netty.handler.codec.DecoderResultProvider p && !p.decoderResult().isSuccess()) {
      s.append(" FAILED ").append(p.decoderResult().cause());
    }
    if (o instanceof ByteBuf b) {
      s.append("BYTES ").append(b.toString(StandardCharsets.ISO_8859_1));
    }
    // details compared by same() and the random streams, left out of what same() returns
    s.append(" #").append(o.getClass().getSimpleName());
    if (o instanceof io.netty.handler.codec.DecoderResultProvider p
        && p.decoderResult() instanceof io.netty.handler.codec.http.HttpMessageDecoderResult r) {
      s.append(" sizes ").append(r.initialLineLength()).append('/').append(r.headerSize());
    }
    return s.toString();
  }

  private static String fields(java.util.Iterator<Map.Entry<CharSequence, CharSequence>> it) {
    StringBuilder s = new StringBuilder("{");
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      s.append(e.getKey()).append('=').append(e.getValue()).append(';');
    }
    return s.append('}').toString();
  }

  /** Both codecs, whole and cut at every point, give the same objects; returns them. */
  private static List<String> same(List<HttpMethod> methods, String wire, boolean close) {
    List<String> expected = decode(NETTY, methods, wire, new int[0], close);
    assertThat(decode(LOUPE, methods, wire, new int[0], close)).isEqualTo(expected);
    assertThat(decode(LOUPE, methods, wire, new int[0], close, true)).isEqualTo(expected);
    for (int cut = 1; cut < wire.length(); cut++) {
      int[] cuts = {cut};
      List<String> netty = decode(NETTY, methods, wire, cuts, close);
      assertThat(decode(LOUPE, methods, wire, cuts, close)).as("cut at %d", cut).isEqualTo(netty);
      assertThat(decode(LOUPE, methods, wire, cuts, close, true)).as("direct, cut at %d", cut).isEqualTo(netty);
    }
    return expected.stream().map(d -> d.substring(0, d.lastIndexOf(" #"))).toList();
  }

  private static final HttpMethod GET = HttpMethod.GET;
  private static final HttpMethod HEAD = HttpMethod.HEAD;

  @Test
  void headResponseWithContentLengthHasNoBody() {
    List<String> out = same(List.of(HEAD, GET),
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false);
    assertThat(out).containsExactly(
        "HEAD HTTP/1.1 200 [OK] {Content-Length=5;}", "LAST  {}",
        "HEAD HTTP/1.1 200 [OK] {Content-Length=5;}", "LAST hello {}");
  }

  @Test
  void interimResponsesTakeNoRequest() {
    List<String> out = same(List.of(GET, HEAD),
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            + "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", false);
    assertThat(out).hasSize(10);
    assertThat(out.get(out.size() - 1)).isEqualTo("LAST  {}");
  }

  @Test
  void noContentAndNotModifiedHaveNoBody() {
    List<String> out = same(List.of(GET, GET, GET),
        "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\n"
            + "HTTP/1.1 304 Not Modified\r\nETag: \"a\"\r\nContent-Length: 3\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", false);
    assertThat(out).containsExactly(
        "HEAD HTTP/1.1 204 [No Content] {Content-Length=3;}", "LAST  {}",
        "HEAD HTTP/1.1 304 [Not Modified] {ETag=\"a\";Content-Length=3;}", "LAST  {}",
        "HEAD HTTP/1.1 200 [OK] {Content-Length=3;}", "LAST abc {}");
  }

  @Test
  void connectAnsweredEndsHttp() {
    List<String> out = same(List.of(HttpMethod.CONNECT),
        "HTTP/1.1 200 Connection Established\r\nContent-Length: 9\r\n\r\n\u0016\u0003\u0001 not http", false);
    assertThat(out.get(0)).startsWith("HEAD HTTP/1.1 200");
    assertThat(String.join("", out.subList(2, out.size()))).contains("BYTES").contains("not http");
  }

  @Test
  void connectRefusedKeepsHttp() {
    same(List.of(HttpMethod.CONNECT, GET),
        "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 4\r\n\r\nnope"
            + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false);
  }

  @Test
  void bodyUntilClose() {
    List<String> out = same(List.of(GET), "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it", true);
    assertThat(String.join("|", out)).contains("all of it").endsWith("LAST  {}");
    same(List.of(GET), "HTTP/1.0 200 OK\r\n\r\nold style", true);
    same(List.of(GET), "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", true);
  }

  @Test
  void pipelinedResponses() {
    same(List.of(GET, HEAD, GET, HttpMethod.POST),
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx"
            + "HTTP/1.1 201 Created\r\ncontent-length: 0\r\n\r\n", false);
  }

  @Test
  void switchingProtocols() {
    same(List.of(GET),
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: abc\r\n\r\n\u0081\u0002hi", false);
  }

  @Test
  void malformedAndSmugglingResponsesFailAlike() {
    String[] bad = {
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding : chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nContent-Length: 3\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-Bad\u0001: v\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX-Bad: v\u0000\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Type: a\r\n folded\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTP/1.1 abc OK\r\n\r\n",
        "HTTP/1.9 200 OK\r\n\r\n",
        "HTTP/2.0 200 OK\r\n\r\n",
        "HTTX/1.1 200 OK\r\n\r\n",
        "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 Okay\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 099 Low\r\n\r\n",
        "HTTP/1.1 600 High\r\n\r\n",
        "HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n",
        "HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
        "garbage\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nabc",
    };
    for (String wire : bad) {
      same(List.of(GET, GET), wire, false);
      same(List.of(GET, GET), wire, true);
    }
  }

  @Test
  void randomResponseStreams() {
    String[] statusLines = {"HTTP/1.1 200 OK", "HTTP/1.1 204 No Content", "HTTP/1.1 304 Not Modified",
        "HTTP/1.1 100 Continue", "HTTP/1.1 103 Early Hints", "HTTP/1.0 200 OK", "HTTP/1.1 500 Oops",
        "HTTP/1.1 404 Not Found", "HTTP/1.1 200 ok", "http/1.1 200 OK", "HTTP/1.1 302 Found",
        "HTTP/1.1 200  OK", "HTTP/1.1 200 OK ", "HTTP/1.1 599 Odd Reason Here", "HTTP/1.0 404 Not Found"};
    String[] fields = {"Server: nginx/1.24.0", "Date: Thu, 03 Dec 2026 17:00:00 GMT",
        "Content-Type: text/plain", "content-type: text/html", "CONTENT-TYPE: a/b", "ETag: \"1-2\"",
        "Etag: x", "Last-Modified: Thu, 03 Dec 2026 16:00:00 GMT", "Accept-Ranges: bytes",
        "Connection: keep-alive", "Connection: close", "Vary: Accept-Encoding", "X-Own: 1",
        "Cache-Control: no-cache", "Set-Cookie: a=b", "Content-Length: 2", "Content-Length: 0",
        "Transfer-Encoding: chunked", "Content-Length: 2, 2", "Location: /y", "X-Sp: a b  ",
        "X-Tab:\tv\tw\t", "X-Empty:", "X-Blank:   ", "Content-Length: 02", "X-Obs: caf\u00e9",
        "content-length: 2", "Sec-WebSocket-Location: ws://x/", "Content-Length: 2", "Server: nginx/1.24.0"};
    HttpMethod[] methods = {GET, GET, GET, HEAD, HttpMethod.POST, HttpMethod.CONNECT};
    Random random = new Random(19);
    for (int round = 0; round < 300; round++) {
      List<HttpMethod> sent = new ArrayList<>();
      StringBuilder wire = new StringBuilder();
      int responses = 1 + random.nextInt(4);
      for (int i = 0; i < responses; i++) {
        sent.add(methods[random.nextInt(methods.length)]);
        wire.append(statusLines[random.nextInt(statusLines.length)]).append("\r\n");
        boolean chunked = false;
        for (int f = random.nextInt(5); f > 0; f--) {
          String field = fields[random.nextInt(fields.length)];
          chunked |= field.startsWith("Transfer-Encoding");
          wire.append(field).append("\r\n");
        }
        wire.append("\r\n").append(chunked ? "2\r\nok\r\n0\r\n\r\n" : "ok");
      }
      String w = wire.toString();
      int[] cuts = random.ints(random.nextInt(4), 1, w.length()).sorted().toArray();
      boolean close = random.nextBoolean();
      assertThat(decode(LOUPE, sent, w, cuts, close, round % 2 == 0)).as("%s %s", sent, w)
          .isEqualTo(decode(NETTY, sent, w, cuts, close));
    }
  }

  @Test
  void commonNamesAreSharedAndKeepTheirCase() {
    byte[] wire = "xContent-Typex".getBytes(StandardCharsets.US_ASCII);
    AsciiString a = WireNames.name(wire, 1, 12);
    AsciiString b = WireNames.name("Content-Type".getBytes(StandardCharsets.US_ASCII), 0, 12);
    assertThat((Object) a).isSameAs(b).hasToString("Content-Type");
    assertThat((Object) WireNames.name("content-type".getBytes(StandardCharsets.US_ASCII), 0, 12))
        .isSameAs(HttpHeaderNames.CONTENT_TYPE);
    for (String own : new String[] {"CONTENT-TYPE", "Content-type", "X-Own", "Content-Typ"}) {
      byte[] bytes = own.getBytes(StandardCharsets.US_ASCII);
      AsciiString n = WireNames.name(bytes, 0, bytes.length);
      assertThat((Object) n).hasToString(own);
      assertThat((Object) n).isNotSameAs(WireNames.name(bytes, 0, bytes.length));
    }
    for (String known : new String[] {"Server", "Date", "Last-Modified", "ETag", "Accept-Ranges",
        "Connection", "Content-Length", "Cache-Control", "Vary", "Transfer-Encoding", "Location",
        "Set-Cookie", "User-Agent", "Accept-Encoding", "Sec-WebSocket-Accept", "etag", "server"}) {
      byte[] bytes = known.getBytes(StandardCharsets.US_ASCII);
      assertThat((Object) WireNames.name(bytes, 0, bytes.length)).hasToString(known)
          .isSameAs(WireNames.name(bytes.clone(), 0, bytes.length));
    }

    EmbeddedChannel ch = new EmbeddedChannel(LOUPE.get());
    ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, GET, "/"));
    ReferenceCountUtil.release(ch.readOutbound());
    ch.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nServer: nginx\r\nserver: x\r\n"
        + "Content-Length: 0\r\n\r\n", StandardCharsets.US_ASCII));
    HttpResponse r = ch.readInbound();
    List<CharSequence> names = new ArrayList<>();
    r.headers().iteratorCharSequence().forEachRemaining(e -> names.add(e.getKey()));
    assertThat((Object) names.get(0)).isSameAs(WireNames.name("Server".getBytes(StandardCharsets.US_ASCII), 0, 6));
    assertThat(names).extracting(CharSequence::toString).containsExactly("Server", "server", "Content-Length");
    assertThat(r.protocolVersion()).isSameAs(HttpVersion.HTTP_1_1);
    assertThat(r.status()).isSameAs(io.netty.handler.codec.http.HttpResponseStatus.OK);
    ReferenceCountUtil.release(ch.readInbound());
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  /**
   * Heads at the edge of what the decoder reads itself (the rest goes to Netty's decoder): every
   * one decodes as {@code HttpClientCodec} decodes it, whole, cut anywhere, from heap and direct
   * buffers.
   */
  @Test
  void plainHeadsAndTheirEdges() {
    String[] wires = {
        "HTTP/1.1 200 OK\r\nServer: nginx/1.24.0\r\nDate: Thu, 03 Dec 2026 20:00:00 GMT\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: 13\r\n"
            + "Last-Modified: Thu, 03 Dec 2026 19:00:00 GMT\r\nConnection: keep-alive\r\n"
            + "ETag: \"1-d\"\r\nAccept-Ranges: bytes\r\n\r\nhello, world\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 200 OK\r\ncontent-length:5\r\nX-A:\r\nX-B: \t \r\nX-C:\t a \t b \t\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 007\r\n\r\nhello, ",
        "HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\nab",
        "HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999999\r\n\r\nab",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Obs: caf\u00e9\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Bad: a\u007fb\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Bad: a\nb\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\nX-Lf: a\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX\rY: a\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\n\r\nuntil close",
        "\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\ntransfer-encoding: identity\r\n\r\nok",
        "HTTP/1.1 204 No Content\r\nContent-Length: 2\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 Connection established\r\nContent-Length: 2\r\n\r\nokrest",
        "HTTP/1.1 200 OK\r\nContent-Length: 20000\r\n\r\n" + "x".repeat(20000),
    };
    for (String wire : wires) {
      for (List<HttpMethod> methods : List.of(List.of(GET, GET), List.of(HEAD, GET), List.of(HttpMethod.CONNECT))) {
        if (wire.length() < 1000) {
          same(methods, wire, false);
          same(methods, wire, true);
        } else {
          for (boolean direct : new boolean[] {false, true}) {
            int[] cuts = {100, 8000, 8200, 19000};
            assertThat(decode(LOUPE, methods, wire, cuts, true, direct))
                .isEqualTo(decode(NETTY, methods, wire, cuts, true));
          }
        }
      }
    }
  }

  /** The line and header limits: at the limit the head is read, one byte over it fails, as in Netty. */
  @Test
  void limitsHoldOnPlainHeads() {
    String reason = "R".repeat(4096 - "HTTP/1.1 200 ".length());
    String field = "X-Big: " + "v".repeat(8192 - "X-Big: ".length() - "Content-Length: 2".length());
    for (String wire : new String[] {
        "HTTP/1.1 200 " + reason + "\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 " + reason + "R\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\n" + field + "\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\n" + field + "v\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\n" + "X-N: 1\r\n".repeat(70) + "Content-Length: 2\r\n\r\nok"}) {
      for (boolean direct : new boolean[] {false, true}) {
        for (int[] cuts : new int[][] {{}, {17}, {wire.length() - 3}}) {
          assertThat(decode(LOUPE, List.of(GET), wire, cuts, false, direct))
              .isEqualTo(decode(NETTY, List.of(GET), wire, cuts, false));
        }
      }
    }
  }

  /** A value equal to the previous response's at the same position is that previous String. */
  @Test
  void repeatedValuesAreShared() {
    EmbeddedChannel ch = new EmbeddedChannel(LOUPE.get());
    List<HttpResponse> heads = new ArrayList<>();
    for (String date : new String[] {"Thu, 03 Dec 2026 20:00:00 GMT", "Thu, 03 Dec 2026 20:00:01 GMT"}) {
      ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, GET, "/"));
      ReferenceCountUtil.release(ch.readOutbound());
      ch.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nServer: nginx/1.24.0\r\nDate: " + date
          + "\r\nContent-Length: 2\r\n\r\nok", StandardCharsets.US_ASCII));
      heads.add(ch.readInbound());
      LastHttpContent last = ch.readInbound();
      assertThat(last.content().toString(StandardCharsets.US_ASCII)).isEqualTo("ok");
      last.release();
    }
    assertThat(heads.get(1).headers().get("Server")).isEqualTo("nginx/1.24.0")
        .isSameAs(heads.get(0).headers().get("Server"));
    assertThat(heads.get(1).headers().get("Content-Length")).isSameAs(heads.get(0).headers().get("Content-Length"));
    assertThat(heads.get(1).headers().get("Date")).isEqualTo("Thu, 03 Dec 2026 20:00:01 GMT");
    assertThat(heads.get(0).headers().get("Date")).isEqualTo("Thu, 03 Dec 2026 20:00:00 GMT");
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void statusWordsAreSharedOnlyWhenExact() {
    byte[] b = "HTTP/1.1 200 OK Not Modified 599 HTTP/1.2 1x0".getBytes(StandardCharsets.US_ASCII);
    assertThat(WireNames.version(b, 0, 8)).isEqualTo("HTTP/1.1");
    assertThat(WireNames.version(b, 33, 8)).isNull();
    assertThat(WireNames.code(b, 9, 3)).isEqualTo("200").isSameAs(WireNames.code(b, 9, 3));
    assertThat(WireNames.code(b, 29, 3)).isEqualTo("599");
    assertThat(WireNames.code(b, 42, 3)).isNull();
    assertThat(WireNames.code(b, 9, 2)).isNull();
    assertThat(WireNames.reason(b, 13, 2)).isEqualTo("OK");
    assertThat(WireNames.reason(b, 16, 12)).isEqualTo("Not Modified");
    assertThat(WireNames.reason(b, 16, 11)).isNull();
    assertThat(WireNames.reason(b, 13, 0)).isNull();
  }
}
