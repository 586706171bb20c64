package dev.loupe.engine.internal.protocol.http2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** HTTP/2 header blocks ⇄ neutral heads, both ways, without the HTTP/1 object adapter. */
class Http2MessagesTest {
  private static List<String> lines(Http2Headers h) {
    List<String> out = new ArrayList<>();
    h.forEach(e -> out.add(e.getKey() + ": " + e.getValue()));
    return out;
  }

  @Test
  void aRequestToAnOriginHasItsPseudoFieldsAndOnlyEndToEndFields() {
    AsciiString accept = AsciiString.of("accept");
    Headers fields = Headers.wrap(new CharSequence[] {accept, "*/*", "Host", "ignored", "TE", "trailers",
        "Connection", "x-hop", "x-hop", "1", "keep-alive", "5", "Transfer-Encoding", "chunked", "X-Up", "A"}, 8);
    RequestHead head = new RequestHead("POST", "https", "o.test", 8443, "/p?q", "HTTP/2", fields);
    Http2Headers out = Http2Messages.requestHeaders(head, "o.test:8443", true);
    assertThat(lines(out)).containsExactly(":method: POST", ":scheme: https", ":authority: o.test:8443",
        ":path: /p?q", "accept: */*", "te: trailers", "x-up: A");
    List<CharSequence> names = new ArrayList<>();
    out.forEach(e -> names.add(e.getKey()));
    assertThat(names.get(4)).as("a wrapped name goes out as it came").isSameAs(accept);
    assertThat(lines(Http2Messages.requestHeaders(new RequestHead("GET", "http", "o", 80, "/", "HTTP/1.1",
        Headers.of("te", "gzip")), "o", false))).containsExactly(":method: GET", ":scheme: http", ":authority: o",
        ":path: /");
  }

  @Test
  void aResponseHeadFromAnOriginKeepsItsFieldsAndItsStatusIsChecked() {
    Http2Headers in = new DefaultHttp2Headers().status("200").add("content-type", "text/plain")
        .add("x-http2-stream-id", "3").add("set-cookie", "a=1").add("set-cookie", "b=2").add("trailer", "x");
    assertThat(Http2Messages.status(in)).isEqualTo(200);
    assertThat(Http2Messages.fields(in)).isEqualTo(Headers.of("content-type", "text/plain", "set-cookie", "a=1",
        "set-cookie", "b=2"));
    assertThat(Http2Messages.status(new DefaultHttp2Headers(false).status("20x"))).isEqualTo(-1);
    assertThat(Http2Messages.status(new DefaultHttp2Headers(false).status("2000"))).isEqualTo(-1);
    assertThat(Http2Messages.status(new DefaultHttp2Headers().add("a", "b"))).isEqualTo(-1);
    assertThat(Http2Messages.status(new DefaultHttp2Headers().status("103"))).isEqualTo(103);
  }

  @Test
  void aResponseToAClientIsLowerCasedWithoutHopByHopFields() {
    ResponseHead head = new ResponseHead(404, "Not Found", "HTTP/1.1", Headers.of("Content-Type", "a/b",
        "Connection", "close", "Upgrade", "h2c", "Alt-Svc", "h3=\":1\"", "set-cookie", "x=1",
        "X-Http2-Stream-Id", "3", "Host", "o"));
    assertThat(lines(Http2Messages.responseHeaders(head, null))).containsExactly(":status: 404",
        "content-type: a/b", "alt-svc: h3=\":1\"", "set-cookie: x=1");
    assertThat(lines(Http2Messages.responseHeaders(head, "h3=\":443\""))).containsExactly(":status: 404",
        "content-type: a/b", "set-cookie: x=1", "alt-svc: h3=\":443\"");
    assertThat(lines(Http2Messages.trailers(Headers.of("Grpc-Status", "0", "Connection", "x")))).containsExactly(
        "grpc-status: 0");
  }

  @Test
  void malformedRequestsAreNamed() {
    assertThat(Http2Messages.malformed(new DefaultHttp2Headers().method("GET").path("/"))).isNull();
    assertThat(Http2Messages.malformed(new DefaultHttp2Headers().method("CONNECT").authority("o:443"))).isNull();
    assertThat(Http2Messages.malformed(new DefaultHttp2Headers().path("/"))).isEqualTo("no :method");
    assertThat(Http2Messages.malformed(new DefaultHttp2Headers().method("GET"))).isEqualTo("no :path");
    assertThat(Http2Messages.malformed(new DefaultHttp2Headers().method("CONNECT"))).isEqualTo(
        "CONNECT without :authority");
    assertThat(Http2Messages.target(new DefaultHttp2Headers().method("CONNECT").authority("o:443"))).isEqualTo(
        "o:443");
  }
}
