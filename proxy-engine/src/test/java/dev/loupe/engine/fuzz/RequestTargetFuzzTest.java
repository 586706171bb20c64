package dev.loupe.engine.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.internal.relay.Http1Harness;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Request targets (absolute-form on the explicit proxy, origin-form inside a tunnel) as Loupe parses
 * them today, through the real decoder and client leg ({@link Http1Harness}).
 *
 * <p>Each request is either refused (400, recorded as a client protocol error) or recorded with a
 * head that is self-consistent: scheme http/https, a host, a port in 1..65535, a target starting
 * with {@code /} (or {@code *}), and a URL that a standard URI parser reads back with the same host
 * and port Loupe will connect to — so Loupe never records one origin and sends the request to
 * another.
 */
class RequestTargetFuzzTest {
  @DictionaryEntries({"http://", "https://", "a.test", ":8080", "[::1]", "@", "#", "?", "%2F", "%00", "\\", "//",
      "..", "*", "127.0.0.1", "user:pass@", ":0", ":65536", "HTTP://", "%", "\u00e9"})
  @FuzzTest(maxDuration = FuzzBudget.IN_BUILD)
  void anyTarget(FuzzedDataProvider data) {
    boolean inTunnel = data.consumeBoolean();
    String method = data.pickValue(new String[] {"GET", "POST", "HEAD", "OPTIONS", "DELETE"});
    byte[] target = data.consumeRemainingAsBytes();
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes((method + " ").getBytes(StandardCharsets.US_ASCII));
    request.writeBytes(target);
    request.writeBytes(" HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    byte[] bytes = request.toByteArray();

    for (Flow f : Http1PipelineFuzzTest.exchange(
        inTunnel ? Http1Harness.Side.IN_TUNNEL : Http1Harness.Side.EXPLICIT_PROXY, false, bytes)) {
      if (f.error() != null && f.error().kind() == FlowError.Kind.CLIENT_PROTOCOL) {
        continue; // refused with a 400
      }
      checkHead(f.request(), inTunnel);
    }
  }

  static void checkHead(RequestHead head, boolean inTunnel) {
    assertThat(head).isNotNull();
    assertThat(head.scheme()).isIn("http", "https");
    assertThat(head.host()).as("host of %s", head).isNotEmpty();
    assertThat(head.port()).as("port of %s", head).isBetween(1, 65535);
    assertThat(head.target()).as("target of %s", head).matches("(?s)[/*].*");
    if (inTunnel) {
      assertThat(head.host()).isEqualTo("origin.test");
    }
    // The authority of the recorded URL, read back by a standard parser, names the host and port
    // Loupe connects to. (The path and query are kept as the client sent them, which may hold
    // characters java.net.URI refuses there, such as "a[]=1": real traffic has them.)
    String url = head.url();
    String prefix = head.scheme() + "://";
    assertThat(url).as("recorded URL").startsWith(prefix).endsWith(head.target());
    String authority = url.substring(prefix.length(), url.length() - head.target().length());
    URI u;
    try {
      u = new URI(prefix + authority + "/");
    } catch (URISyntaxException e) {
      throw new AssertionError("authority of the recorded URL does not parse: " + url + " (" + e.getMessage() + ")", e);
    }
    if (u.getHost() == null) {
      // java.net.URI takes only RFC 2396 host names; "under_score.test" is a registry authority to
      // it. Then the name must hold nothing that could be read as a port, userinfo or another host.
      assertThat(HostChars.isHost(head.host()) && head.host().indexOf(':') < 0)
          .as("host of the recorded URL %s", url).isTrue();
      assertThat(authority).isEqualTo(head.authority());
      return;
    }
    String uriHost = u.getHost().replace("[", "").replace("]", "").toLowerCase(Locale.ROOT);
    assertThat(uriHost).as("host of the recorded URL %s", url).isEqualTo(head.host());
    int uriPort = u.getPort() > 0 ? u.getPort() : head.scheme().equals("https") ? 443 : 80;
    assertThat(uriPort).as("port of the recorded URL %s", url).isEqualTo(head.port());
  }
}
