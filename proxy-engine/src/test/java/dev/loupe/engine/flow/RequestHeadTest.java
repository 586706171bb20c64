package dev.loupe.engine.flow;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class RequestHeadTest {
  @Test
  void urlOmitsDefaultPortsOnly() {
    assertThat(head("https", "a.example", 443, "/x?y=1").url()).isEqualTo("https://a.example/x?y=1");
    assertThat(head("http", "a.example", 80, "/").url()).isEqualTo("http://a.example/");
    assertThat(head("http", "a.example", 443, "/").url()).isEqualTo("http://a.example:443/");
    assertThat(head("https", "a.example", 8443, "/").url()).isEqualTo("https://a.example:8443/");
  }

  @Test
  void ipv6HostsGetBrackets() {
    assertThat(head("https", "2001:db8::1", 443, "/").url()).isEqualTo("https://[2001:db8::1]/");
    assertThat(head("http", "::1", 8080, "/").authority()).isEqualTo("[::1]:8080");
  }

  @Test
  void connectUrlIsTheAuthority() {
    RequestHead connect = new RequestHead("CONNECT", "https", "a.example", 443, "a.example:443", "HTTP/1.1",
        Headers.EMPTY);
    assertThat(connect.url()).isEqualTo("a.example");
  }

  @Test
  void pathAndQuery() {
    RequestHead h = head("https", "a.example", 443, "/p/q?x=1&y=2");
    assertThat(h.path()).isEqualTo("/p/q");
    assertThat(h.query()).isEqualTo("x=1&y=2");
    assertThat(head("https", "a.example", 443, "/p").query()).isNull();
    assertThat(h.withHeaders(Headers.of("A", "1")).headers().get("a")).isEqualTo("1");
  }

  private static RequestHead head(String scheme, String host, int port, String target) {
    return new RequestHead("GET", scheme, host, port, target, "HTTP/1.1", Headers.EMPTY);
  }
}
