package dev.loupe.engine.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.protocol.http1.RequestTargets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a client's request goes, by the side it arrived on ({@link RequestHeads}); no sockets. */
class RequestHeadsTest {
  private static final ClientSide EXPLICIT = ClientSide.explicitProxy();
  private static final ClientSide TUNNEL = new ClientSide("https", "origin.test", 8443, null, "HTTP/1.1", false);
  private static final Headers HOST = Headers.of(List.of(new Headers.Field("Host", "a.test")));

  private static ClientRequest request(String method, String target) {
    return new ClientRequest(method, target, "HTTP/1.1", false, HOST, true, false, true, false, false, false, 0, null);
  }

  private static RequestHead forwarded(ClientSide side, ClientRequest req) {
    RequestHeads.Decision d = RequestHeads.decide(side, req, "127.0.0.1:8080");
    assertThat(d).isInstanceOf(RequestHeads.Forward.class);
    return ((RequestHeads.Forward) d).head();
  }

  @Test
  void theExplicitProxySendsAnAbsoluteFormRequestWhereItNames() {
    RequestHead head = forwarded(EXPLICIT, request("GET", "http://a.test:81/p?q=1"));
    assertThat(head.scheme()).isEqualTo("http");
    assertThat(head.host()).isEqualTo("a.test");
    assertThat(head.port()).isEqualTo(81);
    assertThat(head.target()).isEqualTo("/p?q=1");
    assertThat(head.httpVersion()).isEqualTo("HTTP/1.1");
    assertThat(head.headers()).isEqualTo(HOST);
  }

  @Test
  void theExplicitProxyRefusesOriginFormNamingWhereItListens() {
    RequestHeads.Decision d = RequestHeads.decide(EXPLICIT, request("GET", "/p"), "127.0.0.1:8080");
    assertThat(d).isInstanceOfSatisfying(RequestHeads.Refuse.class, r -> {
      assertThat(r.status()).isEqualTo(400);
      assertThat(r.reason()).contains("absolute-form").contains("127.0.0.1:8080");
    });
  }

  @Test
  void insideATunnelTheTunnelDecidesWhereTheRequestGoes() {
    RequestHead origin = forwarded(TUNNEL, request("POST", "/a/./b"));
    assertThat(List.of(origin.scheme(), origin.host(), origin.port())).containsExactly("https", "origin.test", 8443);
    assertThat(origin.target()).isEqualTo(RequestTargets.normalize("/a/./b"));
    RequestHead absolute = forwarded(TUNNEL, request("GET", "http://elsewhere.test/x"));
    assertThat(List.of(absolute.scheme(), absolute.host(), absolute.port())).containsExactly("https", "origin.test", 8443);
    assertThat(absolute.target()).isEqualTo("/x");
  }

  @Test
  void connectOpensATunnelOnTheExplicitProxyOnly() {
    assertThat(RequestHeads.decide(EXPLICIT, request("CONNECT", "a.test:443"), null))
        .isEqualTo(new RequestHeads.Connect(new RequestTargets.Authority("a.test", 443)));
    assertThat(RequestHeads.decide(TUNNEL, request("CONNECT", "a.test:443"), null))
        .isEqualTo(new RequestHeads.Refuse(400, "CONNECT inside an intercepted tunnel is not supported"));
    assertThat(RequestHeads.decide(EXPLICIT, request("CONNECT", "a.test"), null))
        .isInstanceOfSatisfying(RequestHeads.Refuse.class, r -> assertThat(r.status()).isEqualTo(400));
  }

  @Test
  void whatTheCodecRefusedStaysRefused() {
    ClientRequest bad = new ClientRequest("GET", "http://a.test/", "HTTP/2.0", false, HOST, true, false, false, false,
        false, false, 505, "HTTP version HTTP/2.0 is not spoken on an HTTP/1 connection");
    assertThat(RequestHeads.decide(EXPLICIT, bad, null))
        .isEqualTo(new RequestHeads.Refuse(505, "HTTP version HTTP/2.0 is not spoken on an HTTP/1 connection"));
  }

  @Test
  void aRefusedRequestIsRecordedWithItsRealTargetWhenItHasOne() {
    RequestHead real = RequestHeads.refused(EXPLICIT, request("GET", "http://a.test/p"));
    assertThat(List.of(real.host(), real.target())).containsExactly("a.test", "/p");
    RequestHead originForm = RequestHeads.refused(EXPLICIT, request("GET", "/p"));
    assertThat(List.of(originForm.scheme(), originForm.host(), originForm.port(), originForm.target()))
        .containsExactly("http", "unknown", 0, "/p");
    ClientRequest malformed = new ClientRequest("GET", "garbage", "HTTP/1.1", false, Headers.EMPTY, true, false,
        false, false, false, true, 400, "malformed request");
    RequestHead inTunnel = RequestHeads.refused(TUNNEL, malformed);
    assertThat(List.of(inTunnel.scheme(), inTunnel.host(), inTunnel.port(), inTunnel.target()))
        .containsExactly("https", "origin.test", 8443, "/");
    RequestHead connect = RequestHeads.refused(TUNNEL, request("CONNECT", "a.test:443"));
    assertThat(List.of(connect.method(), connect.scheme(), connect.host(), connect.target()))
        .containsExactly("CONNECT", "https", "origin.test", "a.test:443");
  }

  @Test
  void anIpv6AuthorityIsBracketed() {
    assertThat(RequestHeads.authority("::1", 443)).isEqualTo("[::1]:443");
    assertThat(RequestHeads.authority("a.test", 80)).isEqualTo("a.test:80");
  }
}
