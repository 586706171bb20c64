package dev.loupe.engine.internal.protocol.http1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/1 head conversions and checks, field by field: hop-by-hop removal (RFC 9110 §7.6.1,
 * names matched in any case), the framing checks that keep requests from being smuggled
 * (RFC 9112 §6), and the framing a response gets for HTTP/1.1 and HTTP/1.0 clients.
 */
class Http1MessagesTest {
  private static HttpRequest request(HttpVersion v, String... nameValues) {
    HttpHeaders h = new DefaultHttpHeaders(false);
    for (int i = 0; i < nameValues.length; i += 2) {
      h.add(nameValues[i], nameValues[i + 1]);
    }
    return new DefaultHttpRequest(v, HttpMethod.POST, "/x", h);
  }

  private static String problem(String... nameValues) {
    return Http1Messages.framingProblem(request(HttpVersion.HTTP_1_1, nameValues));
  }

  private static Headers headers(String... nameValues) {
    List<Headers.Field> f = new ArrayList<>();
    for (int i = 0; i < nameValues.length; i += 2) {
      f.add(new Headers.Field(nameValues[i], nameValues[i + 1]));
    }
    return Headers.of(f);
  }

  private static List<String> lines(HttpHeaders h) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, String> e : h) {
      out.add(e.getKey() + ": " + e.getValue());
    }
    return out;
  }

  @Test
  void wellFramedRequestsPass() {
    assertThat(problem("Host", "a")).isNull();
    assertThat(problem("host", "a", "Content-Length", "12")).isNull();
    assertThat(problem("Host", "a", "Transfer-Encoding", "chunked")).isNull();
    assertThat(problem("Host", "a", "transfer-encoding", "gzip, CHUNKED")).isNull();
    assertThat(problem("Host", "a", "Transfer-Encoding", "gzip", "Transfer-Encoding", " chunked ")).isNull();
    assertThat(problem("Host", "a", "Connection", "keep-alive, Upgrade", "Upgrade", "websocket")).isNull();
    assertThat(problem("Host", "a", "X-Empty", "")).isNull();
    assertThat(Http1Messages.framingProblem(request(HttpVersion.HTTP_1_0))).isNull();
  }

  @Test
  void ambiguousFramingIsNamed() {
    assertThat(problem("Host", "a", "Content-Length", "1", "Transfer-Encoding", "chunked"))
        .isEqualTo("both Content-Length and Transfer-Encoding are present");
    assertThat(Http1Messages.framingProblem(request(HttpVersion.HTTP_1_0, "Transfer-Encoding", "chunked")))
        .isEqualTo("Transfer-Encoding in an HTTP/1.0 request");
    assertThat(problem("Host", "a", "Transfer-Encoding", "chunked, gzip"))
        .isEqualTo("Transfer-Encoding does not end with chunked: chunked, gzip");
    assertThat(problem("Host", "a", "Transfer-Encoding", "gzip", "Transfer-Encoding", "identity"))
        .isEqualTo("Transfer-Encoding does not end with chunked: gzip, identity");
    assertThat(problem("Host", "a", "Transfer-Encoding", "chunked, Chunked"))
        .isEqualTo("chunked applied more than once");
    assertThat(problem("Host", "a", "Content-Length", "1", "content-length", "1"))
        .isEqualTo("more than one Content-Length");
    assertThat(problem("Host", "a", "Content-Length", "1x")).isEqualTo("invalid Content-Length: 1x");
    assertThat(problem("Host", "a", "Content-Length", " ")).isEqualTo("invalid Content-Length:  ");
    assertThat(problem("Host", "a", "Content-Length", "-1")).isEqualTo("invalid Content-Length: -1");
    assertThat(problem("Host", "a", "Content-Length", "1234567890123456789"))
        .isEqualTo("invalid Content-Length: 1234567890123456789");
    assertThat(problem("Host", "a", "Content-Length", " 42 ")).isNull();
    assertThat(problem("Host", "a", "Connection", "close, Content-Length"))
        .isEqualTo("the Connection header names content-length, which a proxy must not remove");
    assertThat(problem("Host", "a", "Connection", "keep-alive", "Connection", " HOST"))
        .isEqualTo("the Connection header names host, which a proxy must not remove");
    assertThat(problem("Host", "a", "HOST", "b")).isEqualTo("more than one Host header");
    assertThat(problem("X", "y")).isEqualTo("HTTP/1.1 request without a Host header");
    assertThat(problem("Host", "a", "Bad Name", "v")).isEqualTo("invalid header name: Bad Name");
    assertThat(problem("Host", "a", "Bad:Name", "v")).isEqualTo("invalid header name: Bad:Name");
    assertThat(problem("Host", "a", "Bäd", "v")).isEqualTo("invalid header name: Bäd");
    assertThat(problem("Host", "a", "", "v")).isEqualTo("invalid header name: ");
    assertThat(problem("Host", "a", "X", "a\rb")).isEqualTo("bare CR, LF or NUL in the value of X");
    assertThat(problem("Host", "a", "X", "a\nb")).isEqualTo("bare CR, LF or NUL in the value of X");
    assertThat(problem("Host", "a", "X", "a\0b")).isEqualTo("bare CR, LF or NUL in the value of X");
    // the checks run in a fixed order: framing before names
    assertThat(problem("Bad Name", "v", "Content-Length", "1", "Transfer-Encoding", "chunked"))
        .isEqualTo("both Content-Length and Transfer-Encoding are present");
  }

  @Test
  void theOriginRequestLosesHopByHopFieldsInAnyCase() {
    RequestHead head = new RequestHead("GET", "https", "example.com", 8443, "/p", "HTTP/1.1", headers(
        "HOST", "wrong", "Host", "second", "Connection", "keep-alive, X-Secret, close", "KEEP-ALIVE", "timeout=5",
        "x-secret", "1", "X-SECRET", "2", "Proxy-Authorization", "Basic x", "Proxy-Connection", "keep-alive",
        "TE", "trailers", "te", "gzip", "Upgrade", "h2c", "Accept", "*/*", "Content-Type", "text/plain"));
    HttpRequest out = Http1Messages.toOriginRequest(head, false, false);
    assertThat(lines(out.headers())).containsExactly(
        "host: example.com:8443", "TE: trailers", "Accept: */*", "Content-Type: text/plain");
    assertThat(out.uri()).isEqualTo("/p");
    assertThat(out.method().name()).isEqualTo("GET");
  }

  @Test
  void theFixedHopByHopFieldsGoWithoutAConnectionHeaderAndCloseGoesWhenListed() {
    RequestHead head = new RequestHead("GET", "http", "h", 80, "/", "HTTP/1.1", headers("Host", "h",
        "Keep-Alive", "timeout=5", "CONNECTION", "close", "Proxy-Connection", "x", "Proxy-Authenticate", "x",
        "proxy-authorization", "x", "Te", "gzip", "UPGRADE", "h2c", "Close", "1", "Teapot", "kept",
        "Connection-Id", "kept"));
    assertThat(lines(Http1Messages.toOriginRequest(head, false, false).headers()))
        .containsExactly("host: h", "Teapot: kept", "Connection-Id: kept");
    RequestHead noConnection = new RequestHead("GET", "http", "h", 80, "/", "HTTP/1.1", headers(
        "Host", "h", "Close", "kept", "keep-alive", "1", "Keep-Alives", "kept"));
    assertThat(lines(Http1Messages.toOriginRequest(noConnection, false, false).headers()))
        .containsExactly("host: h", "Close: kept", "Keep-Alives: kept");
  }

  @Test
  void theOriginRequestOfAStreamedBodyIsChunkedAndAWebSocketKeepsItsUpgrade() {
    RequestHead head = new RequestHead("POST", "https", "h", 443, "/u", "HTTP/2", headers("content-type", "a/b"));
    assertThat(lines(Http1Messages.toOriginRequest(head, false, true).headers()))
        .containsExactly("content-type: a/b", "host: h", "transfer-encoding: chunked");
    RequestHead ws = new RequestHead("GET", "http", "h", 80, "/ws", "HTTP/1.1", headers("Host", "h",
        "Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Key", "k",
        "Sec-WebSocket-Extensions", "permessage-deflate"));
    assertThat(lines(Http1Messages.toOriginRequest(ws, true, false).headers())).containsExactly(
        "host: h", "Sec-WebSocket-Key: k", "connection: upgrade", "upgrade: websocket");
  }

  @Test
  void theClientResponseIsFramedForItsVersion() {
    ResponseHead head = new ResponseHead(200, "", "HTTP/1.1", headers("Content-Type", "text/plain",
        "Connection", "keep-alive, X-Hop", "Keep-Alive", "timeout=5", "x-hop", "1", "Server", "nginx"));
    HttpResponse r11 = Http1Messages.toClientResponse(head, HttpVersion.HTTP_1_1, true, true);
    assertThat(r11.status().code()).isEqualTo(200);
    assertThat(r11.status().reasonPhrase()).isEqualTo("OK");
    assertThat(r11.protocolVersion()).isEqualTo(HttpVersion.HTTP_1_1);
    assertThat(lines(r11.headers())).containsExactly(
        "Content-Type: text/plain", "Server: nginx", "transfer-encoding: chunked");
    HttpResponse r10 = Http1Messages.toClientResponse(head, HttpVersion.HTTP_1_0, true, true);
    assertThat(lines(r10.headers())).containsExactly("Content-Type: text/plain", "Server: nginx", "connection: close");
    ResponseHead sized = new ResponseHead(404, "Gone Fishing", "HTTP/1.1", headers("Content-Length", "3"));
    HttpResponse r = Http1Messages.toClientResponse(sized, HttpVersion.HTTP_1_0, true, true);
    assertThat(r.status().reasonPhrase()).isEqualTo("Gone Fishing");
    assertThat(lines(r.headers())).containsExactly("Content-Length: 3", "connection: keep-alive");
    ResponseHead chunked = new ResponseHead(200, "OK", "HTTP/1.1", headers("Transfer-Encoding", "Chunked"));
    assertThat(lines(Http1Messages.toClientResponse(chunked, HttpVersion.HTTP_1_0, true, true).headers()))
        .containsExactly("connection: close");
    assertThat(lines(Http1Messages.toClientResponse(chunked, HttpVersion.HTTP_1_1, true, false).headers()))
        .containsExactly("Transfer-Encoding: Chunked", "connection: close");
    ResponseHead switching = new ResponseHead(101, "Switching Protocols", "HTTP/1.1", headers(
        "Upgrade", "websocket", "Connection", "Upgrade", "Sec-WebSocket-Accept", "a"));
    assertThat(lines(Http1Messages.toClientResponse(switching, HttpVersion.HTTP_1_1, false, true).headers()))
        .containsExactly("Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: a");
    ResponseHead noBody = new ResponseHead(204, "No Content", "HTTP/1.1", headers("X", "y"));
    assertThat(lines(Http1Messages.toClientResponse(noBody, HttpVersion.HTTP_1_1, false, true).headers()))
        .containsExactly("X: y");
  }

  @Test
  void chunkedIsFoundInAnyCaseAndAmongOtherCodings() {
    assertThat(Http1Messages.isChunked(new DefaultHttpHeaders().add("Transfer-Encoding", "gzip, Chunked"))).isTrue();
    assertThat(Http1Messages.isChunked(new DefaultHttpHeaders().add("transfer-encoding", "gzip")
        .add("Transfer-Encoding", "chunked"))).isTrue();
    assertThat(Http1Messages.isChunked(new DefaultHttpHeaders().add("Transfer-Encoding", "chunkedx"))).isFalse();
    assertThat(Http1Messages.isChunked(new DefaultHttpHeaders())).isFalse();
  }
}
