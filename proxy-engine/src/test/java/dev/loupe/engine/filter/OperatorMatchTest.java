package dev.loupe.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.WebSocketMessage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Each {@code ~} operator and the boolean operators, on flows built through the flow model. */
@Timeout(10)
class OperatorMatchTest {
  /** POST https://api.example.com/v1/orders, JSON both ways, 201. */
  private final Flow post = FlowBuilder.empty()
      .request("POST", "https", "api.example.com", 443, "/v1/orders?draft=1",
          "Content-Type", "application/json; charset=utf-8", "X-Trace", "abc123")
      .requestBody("{\"item\":\"Café\",\"qty\":2}")
      .response(201, "Content-Type", "application/json", "Set-Cookie", "sid=S3CRET; HttpOnly")
      .responseBody("{\"id\":42,\"status\":\"Created\"}")
      .tookMillis(120)
      .complete();

  /** GET http://cdn.example.net:8080/app.js, still waiting for its response. */
  private final Flow pending = FlowBuilder.empty()
      .request("GET", "http", "cdn.example.net", 8080, "/static/app.js", "Accept", "*/*")
      .build();

  private static boolean matches(String filter, Flow flow) {
    return Filter.parse(filter).test(flow);
  }

  @Test
  void domain() {
    assertThat(matches("~d api", post)).isTrue();
    assertThat(matches("~d ^API\\.EXAMPLE\\.com$", post)).as("case-insensitive").isTrue();
    assertThat(matches("~d cdn", post)).isFalse();
    assertThat(matches("~d cdn|api", pending)).isTrue();
    assertThat(matches("~d x", FlowBuilder.empty().build())).as("no request").isFalse();
  }

  @Test
  void url() {
    assertThat(matches("~u https://api\\.example\\.com/v1/orders\\?draft=1$", post)).isTrue();
    assertThat(matches("~u ^http://cdn\\.example\\.net:8080/static/app\\.js$", pending)).as("non-default port")
        .isTrue();
    assertThat(matches("~u :443", post)).as("default port omitted, as RequestHead.url()").isFalse();
    assertThat(matches("/V1/ORDERS", post)).as("bare regex, case-insensitive").isTrue();
    assertThat(matches("\\.js$", post)).isFalse();
    assertThat(matches("\\.js$", pending)).isTrue();
  }

  @Test
  void urlViewSpellsTheUrlAsRequestHeadDoes() {
    List<RequestHead> heads = List.of(
        new RequestHead("GET", "https", "a.example", 443, "/x?y", "HTTP/1.1", Headers.EMPTY),
        new RequestHead("GET", "http", "a.example", 80, "/", "HTTP/1.1", Headers.EMPTY),
        new RequestHead("GET", "http", "a.example", 443, "/", "HTTP/1.1", Headers.EMPTY),
        new RequestHead("GET", "https", "::1", 8443, "/v6", "HTTP/2", Headers.EMPTY),
        new RequestHead("CONNECT", "https", "b.example", 443, "b.example:443", "HTTP/1.1", Headers.EMPTY),
        new RequestHead("CONNECT", "https", "b.example", 8443, "b.example:8443", "HTTP/1.1", Headers.EMPTY));
    StringBuilder scratch = new StringBuilder();
    for (RequestHead h : heads) {
      assertThat(RegexAtom.url(h, scratch).toString()).isEqualTo(h.url());
    }
  }

  @Test
  void method() {
    assertThat(matches("~m POST", post)).isTrue();
    assertThat(matches("~m post", post)).isTrue();
    assertThat(matches("~m ^GET$", post)).isFalse();
    assertThat(matches("~m GET|HEAD", pending)).isTrue();
  }

  @Test
  void statusCode() {
    assertThat(matches("~c 201", post)).isTrue();
    assertThat(matches("~c 200", post)).isFalse();
    assertThat(matches("~c 200", pending)).isFalse();
  }

  @Test
  void headers() {
    assertThat(matches("~h 'x-trace: abc'", post)).as("request side").isTrue();
    assertThat(matches("~h \"set-cookie: sid=\"", post)).as("response side").isTrue();
    assertThat(matches("~hq x-trace", post)).isTrue();
    assertThat(matches("~hq set-cookie", post)).isFalse();
    assertThat(matches("~hs set-cookie", post)).isTrue();
    assertThat(matches("~hs x-trace", post)).isFalse();
    assertThat(matches("~hs accept", pending)).as("no response").isFalse();
    assertThat(matches("~h '^accept: \\*/\\*$'", pending)).as("each line is 'name: value'").isTrue();
    assertThat(matches("~h \"json\\s+set-cookie\"", post)).as("lines are matched one at a time").isFalse();
  }

  @Test
  void contentType() {
    assertThat(matches("~t json", post)).isTrue();
    assertThat(matches("~tq charset=UTF-8", post)).isTrue();
    assertThat(matches("~ts charset", post)).isFalse();
    assertThat(matches("~ts ^application/json$", post)).isTrue();
    assertThat(matches("~t json", pending)).isFalse();
    assertThat(matches("~tq x-trace", post)).as("only the Content-Type field").isFalse();
  }

  @Test
  void bodies() {
    assertThat(matches("~b '\"qty\":2'", post)).isTrue();
    assertThat(matches("~b created", post)).as("case-insensitive").isTrue();
    assertThat(matches("~bq item", post)).isTrue();
    assertThat(matches("~bq created", post)).isFalse();
    assertThat(matches("~bs '\"id\":42'", post)).isTrue();
    assertThat(matches("~bs item", post)).isFalse();
    assertThat(matches("~b anything", pending)).isFalse();
    assertThat(matches("~b Café", post)).as("non-ASCII regex against UTF-8 bytes").isTrue();
  }

  @Test
  void requestResponseAndErrorStates() {
    Flow failed = FlowBuilder.get().failed(FlowError.Kind.DNS).build();
    assertThat(matches("~q", pending)).isTrue();
    assertThat(matches("~q", post)).isFalse();
    assertThat(matches("~q", failed)).as("a failed flow without response still has only a request").isTrue();
    assertThat(matches("~q", FlowBuilder.empty().build())).isFalse();
    assertThat(matches("~s", post)).isTrue();
    assertThat(matches("~s", pending)).isFalse();
    assertThat(matches("~e", failed)).isTrue();
    assertThat(matches("~e", post)).isFalse();
  }

  @Test
  void assets() {
    for (String type : List.of("text/javascript", "application/javascript; charset=utf-8", "text/css",
        "image/png", "IMAGE/SVG+XML", "font/woff2", "application/font-woff", "application/x-font-ttf")) {
      assertThat(matches("~a", FlowBuilder.get().response(200, "Content-Type", type).build())).as(type).isTrue();
    }
    for (String type : List.of("text/html", "application/json", "application/x-shockwave-flash")) {
      assertThat(matches("~a", FlowBuilder.get().response(200, "Content-Type", type).build())).as(type).isFalse();
    }
    assertThat(matches("~a", FlowBuilder.get().response(200).build())).as("no Content-Type").isFalse();
    assertThat(matches("~a", pending)).as("judged on the response").isFalse();
  }

  @Test
  void webSocketFlowsAndTheirMessages() {
    Flow ws = FlowBuilder.get()
        .response(101, "Upgrade", "websocket")
        .webSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, "subscribe:prices")
        .webSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, "{\"price\":101}")
        .build();
    assertThat(matches("~websocket", ws)).isTrue();
    assertThat(matches("~websocket", post)).isFalse();
    assertThat(matches("~b subscribe", ws)).isTrue();
    assertThat(matches("~bq subscribe", ws)).isTrue();
    assertThat(matches("~bs subscribe", ws)).isFalse();
    assertThat(matches("~bs price", ws)).isTrue();
    assertThat(matches("~bq '\"price\"'", ws)).isFalse();
  }

  @Test
  void all() {
    assertThat(matches("~all", post)).isTrue();
    assertThat(matches("", FlowBuilder.empty().build())).isTrue();
  }

  @Test
  void booleanOperators() {
    assertThat(matches("~d api & ~m POST", post)).isTrue();
    assertThat(matches("~d api & ~m GET", post)).isFalse();
    assertThat(matches("~d api ~m GET", post)).isFalse();
    assertThat(matches("~m GET | ~c 201", post)).isTrue();
    assertThat(matches("~m GET | ~c 500", post)).isFalse();
    assertThat(matches("!~q", post)).isTrue();
    assertThat(matches("!~q", pending)).isFalse();
    assertThat(matches("!(~d cdn | ~m GET) & ~s", post)).isTrue();
  }
}
