package dev.loupe.engine.internal.protocol.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * {@link CompactHttpHeaders} behaves as Netty's {@code DefaultHttpHeaders}: every operation runs on
 * both and the results (wire order, values, exceptions and their messages) are compared; the
 * decoders built with it refuse and accept the same requests as with Netty's default headers.
 */
class CompactHttpHeadersTest {
  /** The fields in wire order, as "name: value" lines. */
  private static List<String> wire(HttpHeaders h) {
    List<String> out = new ArrayList<>();
    var it = h.iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      out.add(e.getKey() + ": " + e.getValue());
    }
    return out;
  }

  /** getTimeMillis, or the exception it throws (Netty's ParseException for a value that is no date). */
  private static String timeMillis(HttpHeaders h, String name) {
    try {
      return String.valueOf(h.getTimeMillis(name));
    } catch (Exception e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  /** Runs {@code ops} on a DefaultHttpHeaders and a CompactHttpHeaders and compares everything readable. */
  private static void same(Consumer<HttpHeaders> ops) {
    HttpHeaders d = new DefaultHttpHeaders();
    HttpHeaders c = new CompactHttpHeaders();
    ops.accept(d);
    ops.accept(c);
    assertThat(wire(c)).isEqualTo(wire(d));
    assertThat(c.size()).isEqualTo(d.size());
    assertThat(c.isEmpty()).isEqualTo(d.isEmpty());
    assertThat(c.names()).containsExactlyInAnyOrderElementsOf(d.names());
    assertThat(c.entries()).isEqualTo(d.entries());
    for (String n : d.names()) {
      for (String name : List.of(n, n.toUpperCase(), n.toLowerCase())) {
        assertThat(c.get(name)).isEqualTo(d.get(name));
        assertThat(c.getAll(name)).isEqualTo(d.getAll(name));
        assertThat(c.contains(name)).isEqualTo(d.contains(name));
        assertThat(c.getInt(name)).isEqualTo(d.getInt(name));
        assertThat(timeMillis(c, name)).isEqualTo(timeMillis(d, name));
        for (String v : d.getAll(n)) {
          assertThat(c.contains(name, v.toUpperCase(), true)).isEqualTo(d.contains(name, v.toUpperCase(), true));
          assertThat(c.contains(name, v.toUpperCase(), false)).isEqualTo(d.contains(name, v.toUpperCase(), false));
          assertThat(c.containsValue(name, "chunked", true)).isEqualTo(d.containsValue(name, "chunked", true));
          List<String> probes = new ArrayList<>(List.of("close", "keep-alive", "Upgrade", "", " ", v));
          for (String element : v.split(",", -1)) {
            probes.add(element);
            probes.add(element.trim());
            probes.add(element.trim().toUpperCase());
          }
          for (String probe : probes) {
            for (boolean ignoreCase : new boolean[] {true, false}) {
              assertThat(c.containsValue(name, probe, ignoreCase)).as("%s: %s ~ '%s' %s", name, v, probe, ignoreCase)
                  .isEqualTo(d.containsValue(name, probe, ignoreCase));
              assertThat(c.containsValue(name, new AsciiString(probe), ignoreCase))
                  .isEqualTo(d.containsValue(name, new AsciiString(probe), ignoreCase));
            }
          }
        }
      }
    }
    assertThat(c.get("absent")).isNull();
    assertThat(c.getAll("absent")).isEmpty();
    assertThat(wire(c.copy())).isEqualTo(wire(d));
  }

  @Test
  void addSetRemoveKeepDefaultHttpHeadersOrderAndValues() {
    same(h -> h.add("Host", "a").add("Accept", "*/*").add("accept", "text/html"));
    same(h -> h.add("Host", "a").add("Accept", "*/*").set("HOST", "b")); // set: removed, appended last
    same(h -> h.add("A", "1").add("B", "2").add("a", "3").remove("A"));
    same(h -> h.add("A", "1").add("B", "2").clear().add("C", "3"));
    same(h -> h.addInt("Content-Length", 13).setShort("X-S", (short) 7).add("X-N", 42));
    same(h -> h.add("Date", new Date(0)).add("Transfer-Encoding", "gzip, Chunked"));
    same(h -> h.add("X", List.of("1", "2")).set("Y", List.of("3", "4")).set("X", List.of("5")));
    same(h -> {
      for (int i = 0; i < 40; i++) { // grows past the first array
        h.add("F" + (i % 7), "v" + i);
      }
      h.remove("f3");
    });
    same(h -> h.add(HttpHeaderNames.CONNECTION, "keep-alive, Upgrade").add("Content-Length", "x1"));
    same(h -> h.add("Connection", "close ,, Keep-Alive,").add("connection", "upgrade").add("X", ",")
        .add("Y", "a ,b\t, c").add("Z", ""));
  }

  private static String failure(HttpHeaders h, Consumer<HttpHeaders> op) {
    try {
      op.accept(h);
      return "no failure";
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  @Test
  void refusesTheSameNamesAndValuesWithTheSameMessages() {
    List<Consumer<HttpHeaders>> ops = List.of(
        h -> h.add("Bad Name", "v"),
        h -> h.add("", "v"),
        h -> h.add("Na\u00efve", "v"),
        h -> h.add("X", "a\r\nInjected: 1"),
        h -> h.add("X", "a\u0000"),
        h -> h.set("X", "a\nb"),
        h -> h.add("X", (Object) null));
    for (Consumer<HttpHeaders> op : ops) {
      String expected = failure(new DefaultHttpHeaders(), op);
      assertThat(expected).isNotEqualTo("no failure");
      assertThat(failure(new CompactHttpHeaders(), op)).isEqualTo(expected);
    }
    HttpHeaders nettyTrailers = DefaultHttpHeadersFactory.trailersFactory().newHeaders();
    HttpHeaders trailers = CompactHttpHeaders.TRAILERS.newHeaders();
    for (String framing : List.of("Content-Length", "transfer-encoding", "Trailer")) {
      String expected = failure(nettyTrailers, h -> h.add(framing, "1"));
      assertThat(expected).contains("prohibited trailing header");
      assertThat(failure(trailers, h -> h.add(framing, "1"))).isEqualTo(expected);
    }
    assertThat(failure(trailers, h -> h.add("X-Checksum", "1"))).isEqualTo("no failure");
  }

  @Test
  void cursorEntriesHoldEachFieldUntilTheNext() {
    HttpHeaders h = new CompactHttpHeaders().add("A", "1").add("B", "2");
    var it = h.iteratorCharSequence();
    Map.Entry<CharSequence, CharSequence> first = it.next();
    assertThat(first.getKey().toString() + first.getValue()).isEqualTo("A1");
    Map.Entry<CharSequence, CharSequence> second = it.next();
    assertThat(second.getKey().toString() + second.getValue()).isEqualTo("B2");
    assertThat(it.hasNext()).isFalse();
    assertThatThrownBy(it::next).isInstanceOf(java.util.NoSuchElementException.class);
    assertThatThrownBy(() -> second.setValue("x")).isInstanceOf(UnsupportedOperationException.class);
  }

  private static String decode(HttpDecoderConfig config, String request) {
    EmbeddedChannel ch = new EmbeddedChannel(new HttpServerCodec(config), new HttpObjectAggregator(1 << 16));
    try {
      ch.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.ISO_8859_1));
      FullHttpRequest req = ch.readInbound();
      if (req == null) {
        return "nothing";
      }
      try {
        return req.decoderResult() + " " + req.method() + " " + req.uri() + " " + wire(req.headers())
            + " body=" + req.content().toString(StandardCharsets.ISO_8859_1)
            + " trailers=" + wire(req.trailingHeaders());
      } finally {
        req.release();
      }
    } finally {
      ch.finishAndReleaseAll();
    }
  }

  @Test
  void decoderAcceptsAndRefusesTheSameRequestsAsWithNettysHeaders() {
    HttpDecoderConfig netty = new HttpDecoderConfig().setStrictLineParsing(true).setUseRfc9112TransferEncoding(true)
        .setAllowDuplicateContentLengths(false);
    HttpDecoderConfig compact = netty.clone().setHeadersFactory(CompactHttpHeaders.HEADERS)
        .setTrailersFactory(CompactHttpHeaders.TRAILERS);
    List<String> requests = List.of(
        "GET /a HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
        "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
        "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-Sum: 1\r\n\r\n",
        "POST /d HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nContent-Length: 5\r\n\r\n",
        "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "POST /f HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /g HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        "POST /h HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
        "POST /i HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc",
        "GET /j HTTP/1.1\r\nHost: x\r\nBad\u0001Name: 1\r\n\r\n",
        "GET /k HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n",
        "GET /l HTTP/1.1\r\nHost: x\r\nX: a\r\n folded\r\n\r\n");
    for (String r : requests) {
      assertThat(decode(compact, r)).as(r).isEqualTo(decode(netty, r));
    }
    assertThat(decode(compact, requests.get(2))).contains("trailers=[X-Sum: 1]");
  }

  @Test
  void toHeadersTakesTheDecodersFieldsInOrder() {
    EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder(new HttpDecoderConfig()
        .setHeadersFactory(CompactHttpHeaders.HEADERS).setTrailersFactory(CompactHttpHeaders.TRAILERS)));
    ByteBuf in = Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\nB: 2\r\nA: 1\r\n\r\n", StandardCharsets.US_ASCII);
    ch.writeInbound(in);
    io.netty.handler.codec.http.HttpRequest req = ch.readInbound();
    assertThat(req.headers()).isInstanceOf(CompactHttpHeaders.class);
    var h = Http1Messages.toHeaders(req.headers());
    assertThat(h.size()).isEqualTo(3);
    assertThat(h.name(1).toString() + h.value(1) + h.name(2) + h.value(2)).isEqualTo("B2A1");
    req.headers().add("C", "3"); // the flow's head is a copy: later edits of the message do not reach it
    assertThat(h.size()).isEqualTo(3);
    Object last = ch.readInbound();
    assertThat(last).isInstanceOf(LastHttpContent.class);
    ch.finishAndReleaseAll();
  }

  /** A shared array (toHeaders' no-copy path) never changes afterwards, whatever changes the headers. */
  @Test
  void sharedArrayIsNeverWrittenAgain() {
    List<Consumer<HttpHeaders>> changes = List.of(
        h -> h.add("X-New", "1"), h -> h.set("Name0", "changed"), h -> h.remove("name3"),
        h -> h.remove("absent"), HttpHeaders::clear, h -> h.set("X-Only", "1"), h -> h.add("name1", "again"));
    for (int fields : new int[] {1, 5, 6, 7, 8, 9, 16}) {
      for (Consumer<HttpHeaders> change : changes) {
        CompactHttpHeaders h = new CompactHttpHeaders();
        for (int i = 0; i < fields; i++) {
          h.add("Name" + i, "value" + i);
        }
        List<String> before = wire(h);
        CharSequence[] shared = h.shareArray();
        assertThat(shared.length).isGreaterThanOrEqualTo(2 * fields);
        assertThat(shared.length - 2 * fields).as("unused slots a flow would keep").isLessThanOrEqualTo(4);
        CharSequence[] snapshot = shared.clone();
        dev.loupe.engine.flow.Headers wrapped = dev.loupe.engine.flow.Headers.wrap(shared, fields);
        change.accept(h);
        change.accept(h);
        assertThat(shared).isEqualTo(snapshot);
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < wrapped.size(); i++) {
          seen.add(wrapped.name(i) + ": " + wrapped.value(i));
        }
        assertThat(seen).isEqualTo(before);
        HttpHeaders d = new DefaultHttpHeaders();
        for (int i = 0; i < fields; i++) {
          d.add("Name" + i, "value" + i);
        }
        change.accept(d);
        change.accept(d);
        assertThat(wire(h)).isEqualTo(wire(d));
      }
    }
    assertThat(Http1Messages.toHeaders(new CompactHttpHeaders()).size()).isZero();
  }
}
