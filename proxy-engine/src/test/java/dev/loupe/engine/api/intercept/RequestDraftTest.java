package dev.loupe.engine.api.intercept;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import org.junit.jupiter.api.Test;

class RequestDraftTest {
  private static RequestHead head(String url) {
    return new RequestDraft("GET", url, "HTTP/1.1", Headers.of(), null).toHead();
  }

  @Test
  void pathAndQueryAreKeptAsCapturedEvenWhereRfc3986WouldRefuseThem() {
    RequestHead h = head("http://Shop.Test/search?a[]=1&b={x}|y^z&c=%7B");
    assertThat(h.host()).isEqualTo("shop.test");
    assertThat(h.port()).isEqualTo(80);
    assertThat(h.target()).isEqualTo("/search?a[]=1&b={x}|y^z&c=%7B");
  }

  @Test
  void authorityForms() {
    assertThat(head("https://[::1]:8443?q").host()).isEqualTo("::1");
    assertThat(head("https://[::1]:8443?q").port()).isEqualTo(8443);
    assertThat(head("https://[::1]:8443?q").target()).isEqualTo("/?q");
    assertThat(head("https://h.test").target()).isEqualTo("/");
    assertThat(head("https://h.test").port()).isEqualTo(443);
    assertThat(head("HTTP://h.test/p#frag").scheme()).isEqualTo("http");
    assertThat(head("HTTP://h.test/p#frag").target()).isEqualTo("/p");
    assertThat(head("https://me:pw@H.test:8443/a@b?c=@").host()).as("user information left out").isEqualTo("h.test");
    assertThat(head("https://me:pw@H.test:8443/a@b?c=@").port()).isEqualTo(8443);
    assertThat(head("https://me:pw@H.test:8443/a@b?c=@").target()).isEqualTo("/a@b?c=@");
  }

  @Test
  void nonAsciiIsSentAsUtf8PercentEncoding() {
    assertThat(head("http://h.test/caf\u00e9?q=\ud83d\ude00").target()).isEqualTo("/caf%C3%A9?q=%F0%9F%98%80");
  }

  @Test
  void badUrlsAreRefusedWithTheReason() {
    assertThatThrownBy(() -> head("ftp://h.test/")).hasMessageContaining("http:// or https://");
    assertThatThrownBy(() -> head("h.test/x")).hasMessageContaining("http:// or https://");
    assertThatThrownBy(() -> head("http:///x")).hasMessageContaining("no host");
    assertThatThrownBy(() -> head("http://h.test:99999/")).hasMessageContaining("host or port");
    assertThatThrownBy(() -> head("http://h test/")).hasMessageContaining("host or port");
    assertThatThrownBy(() -> head("http://h.test/a b")).hasMessageContaining("space");
    assertThatThrownBy(() -> head("http://h.test/a\r\nX: y")).hasMessageContaining("control character");
    assertThatThrownBy(() -> new RequestDraft("GE T", "http://h.test/", "HTTP/1.1", Headers.of(), null).toHead())
        .hasMessageContaining("invalid method");
  }
}
