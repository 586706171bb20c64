package dev.loupe.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.EngineConfig;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestOrigin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Request smuggling defence (RFC 9112 §6.1, §6.3, §5, §2.2): an ambiguous or malformed request gets
 * a 400 with a short reason, the client connection is closed, and the origin never sees the
 * request. Raw sockets, absolute-form targets, the parser limits set small
 * ({@code Limits(8192, 8192, 65536)}).
 */
@Timeout(120)
class SmugglingTest {
  static TestOrigin origin;
  ProxyFixture proxy;

  @BeforeAll
  static void startOrigin() throws Exception {
    origin = TestOrigin.http();
  }

  @AfterAll
  static void stopOrigin() {
    origin.close();
  }

  @BeforeEach
  void startProxy() throws Exception {
    proxy = ProxyFixture.start(b -> b.limits(new EngineConfig.Limits(8192, 8192, 65536)));
  }

  @AfterEach
  void stopProxy() {
    proxy.close();
  }

  /** Cases as (name, request); {O} is the origin's authority, {T} a tag unique to the case. */
  static Stream<Arguments> rejected() {
    String post = "POST http://{O}/sha256?case={T} HTTP/1.1\r\nHost: {O}\r\n";
    String get = "GET http://{O}/status/200?case={T} HTTP/1.1\r\nHost: {O}\r\n";
    return Stream.of(
        Arguments.of("Content-Length and Transfer-Encoding",
            post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        Arguments.of("Transfer-Encoding and Content-Length",
            post + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"),
        Arguments.of("Transfer-Encoding gzip (chunked not final)",
            post + "Transfer-Encoding: gzip\r\n\r\nhello"),
        Arguments.of("Transfer-Encoding chunked, gzip",
            post + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
        Arguments.of("Transfer-Encoding chunked, chunked",
            post + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"),
        Arguments.of("Transfer-Encoding chunked on two lines",
            post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        Arguments.of("Transfer-Encoding in HTTP/1.0",
            post.replace("HTTP/1.1", "HTTP/1.0") + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        Arguments.of("two different Content-Length values",
            post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
        Arguments.of("Content-Length list with different values",
            post + "Content-Length: 5, 6\r\n\r\nhello!"),
        Arguments.of("Content-Length with a sign",
            post + "Content-Length: +5\r\n\r\nhello"),
        Arguments.of("bare LF line endings",
            (get + "\r\n").replace("\r\n", "\n")),
        Arguments.of("bare LF ending one header line",
            get + "X-A: 1\nX-B: 2\r\n\r\n"),
        Arguments.of("space before the colon",
            get + "X-Foo : bar\r\n\r\n"),
        Arguments.of("header section larger than the limit (one 20 KB field)",
            get + "X-Big: " + "a".repeat(20_000) + "\r\n\r\n"),
        Arguments.of("header section larger than the limit (400 small fields)",
            get + "X-Many: 0123456789012345678901234567890123456789\r\n".repeat(400) + "\r\n"),
        Arguments.of("over-long request line",
            "GET http://{O}/status/200?case={T}&pad=" + "a".repeat(20_000) + " HTTP/1.1\r\nHost: {O}\r\n\r\n"),
        Arguments.of("NUL in a header value",
            get + "X-A: a\0b\r\n\r\n"),
        Arguments.of("bare CR in a header value",
            get + "X-A: a\rb\r\n\r\n"),
        Arguments.of("HTTP/1.1 without Host",
            "GET http://{O}/status/200?case={T} HTTP/1.1\r\n\r\n"),
        Arguments.of("two Host fields",
            get + "Host: other.example\r\n\r\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejected")
  void rejectedWith400AndCloseAndNeverForwarded(String name, String template) throws Exception {
    String tag = "t" + Integer.toHexString(name.hashCode());
    String raw = template.replace("{O}", authority()).replace("{T}", tag);
    try (Socket s = proxy.socket()) {
      s.setSoTimeout(5_000);
      WireHttp.send(s, raw);
      WireHttp.Response r = WireHttp.readResponse(s.getInputStream());
      assertBadRequest(r);
      assertThat(WireHttp.closedByPeer(s)).as("the proxy closes the connection after the 400").isTrue();
    }
    Flow flow = proxy.awaitFlows(1, f -> true).get(0);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_PROTOCOL);

    assertValidRequestWorks("after-" + tag);
    assertThat(origin.seen()).as("the origin saw nothing of the rejected request")
        .noneMatch(seen -> seen.uri().contains("case=" + tag));
  }

  /**
   * An invalid chunk size in a body that is already streaming: the head may already be at the
   * origin (Loupe streams), but the origin must never receive a complete request — the upstream
   * connection is closed before the chunk terminator — and the client gets a 400 and a close.
   */
  @Test
  void invalidChunkSizeSentAtOnce() throws Exception {
    try (RecordingOrigin rec = RecordingOrigin.start()) {
      String host = "127.0.0.1:" + rec.port();
      try (Socket s = proxy.socket()) {
        s.setSoTimeout(5_000);
        WireHttp.send(s, "POST http://" + host + "/sha256?case=zz-at-once HTTP/1.1\r\nHost: " + host
            + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\nworld\r\n0\r\n\r\n");
        assertBadRequest(WireHttp.readResponse(s.getInputStream()));
        assertThat(WireHttp.closedByPeer(s)).isTrue();
      }
      assertInvalidChunkFlow();
      // Nothing, an unused connection the proxy keeps in its pool, or an incomplete request that the
      // proxy then abandoned (closed before the chunk terminator).
      RecordingOrigin.Connection c = rec.connections.poll(1, TimeUnit.SECONDS);
      boolean headArrived = false;
      if (c != null) {
        try {
          c.headReceived.get(2, TimeUnit.SECONDS);
          headArrived = true;
        } catch (java.util.concurrent.TimeoutException unused) {
          // the connection opened for the exchange carried nothing: it went back to the pool
        }
      }
      if (headArrived) {
        String got = new String(c.bytes.get(10, TimeUnit.SECONDS), StandardCharsets.ISO_8859_1);
        int headEnd = got.indexOf("\r\n\r\n");
        String body = headEnd < 0 ? "" : got.substring(headEnd + 4);
        assertThat(body).as("body bytes the origin received").doesNotContain("zz").doesNotContain("world")
            .doesNotContain("0\r\n\r\n");
      }
    }
    assertValidRequestWorks("after-zz-at-once");
  }

  @Test
  void invalidChunkSizeAfterTheHeadReachedTheOrigin() throws Exception {
    try (RecordingOrigin rec = RecordingOrigin.start()) {
      String host = "127.0.0.1:" + rec.port();
      try (Socket s = proxy.socket()) {
        s.setSoTimeout(5_000);
        WireHttp.send(s, "POST http://" + host + "/sha256?case=zz-staged HTTP/1.1\r\nHost: " + host
            + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        RecordingOrigin.Connection c = rec.connections.poll(10, TimeUnit.SECONDS);
        assertThat(c).as("the proxy opened a connection to the origin").isNotNull();
        c.headReceived.get(10, TimeUnit.SECONDS);

        WireHttp.send(s, "zz\r\nworld\r\n0\r\n\r\n");
        assertBadRequest(WireHttp.readResponse(s.getInputStream()));
        assertThat(WireHttp.closedByPeer(s)).isTrue();

        // The proxy abandons the upstream connection: EOF at the origin, no chunk terminator.
        String got = new String(c.bytes.get(10, TimeUnit.SECONDS), StandardCharsets.ISO_8859_1);
        assertThat(got).startsWith("POST /sha256?case=zz-staged HTTP/1.1\r\n");
        assertThat(got.substring(got.indexOf("\r\n\r\n") + 4)).as("body bytes the origin received")
            .isEqualTo("5\r\nhello\r\n");
      }
      assertInvalidChunkFlow();
    }
    assertValidRequestWorks("after-zz-staged");
  }

  /** RFC 9112 §5.2 lets a proxy replace obs-fold with SP instead of rejecting: no CR/LF may reach the origin. */
  @Test
  void obsFoldIsRejectedOrUnfolded() throws Exception {
    String a = authority();
    try (Socket s = proxy.socket()) {
      s.setSoTimeout(5_000);
      WireHttp.send(s, "GET http://" + a + "/status/200?case=obs-fold HTTP/1.1\r\nHost: " + a
          + "\r\nX-Folded: one\r\n two\r\nConnection: close\r\n\r\n");
      WireHttp.Response r = WireHttp.readResponse(s.getInputStream());
      if (r.status() == 400) {
        assertBadRequest(r);
        return;
      }
      assertThat(r.status()).isEqualTo(200);
    }
    TestOrigin.Seen seen = origin.seen().stream().filter(x -> x.uri().contains("obs-fold")).findFirst().orElseThrow();
    assertThat(seen.headers().get("X-Folded")).doesNotContain("\r").doesNotContain("\n").startsWith("one").endsWith("two");
  }

  @Test
  void validRequestOnAFreshConnectionWorks() throws Exception {
    assertValidRequestWorks("plain");
  }

  // ---- helpers -----------------------------------------------------------------------------

  private static String authority() {
    return "127.0.0.1:" + origin.port();
  }

  private static void assertBadRequest(WireHttp.Response r) {
    assertThat(r.statusLine()).startsWith("HTTP/1.1 400 ");
    assertThat(r.reason()).as("a short reason phrase").isNotBlank().hasSizeLessThan(40);
    assertThat(r.header("connection")).isEqualToIgnoringCase("close");
    assertThat(r.header("x-loupe-error")).isEqualTo("client-protocol");
    String body = r.bodyText();
    assertThat(body).startsWith("400 ");
    String[] lines = body.strip().split("\n");
    assertThat(lines[lines.length - 1]).as("a one-line reason").startsWith("Loupe: ").hasSizeLessThan(250);
  }

  private void assertInvalidChunkFlow() {
    Flow flow = proxy.awaitFlows(1, f -> f.request() != null && f.request().url().contains("/sha256?case=zz")).get(0);
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error().kind()).as("%s", flow.error()).isEqualTo(FlowError.Kind.CLIENT_PROTOCOL);
  }

  /** A normal request on a fresh connection to the same proxy is answered. */
  private void assertValidRequestWorks(String tag) throws IOException {
    String a = authority();
    try (Socket s = proxy.socket()) {
      WireHttp.send(s, "GET http://" + a + "/status/200?case=" + tag + " HTTP/1.1\r\nHost: " + a + "\r\n\r\n");
      WireHttp.Response r = WireHttp.readResponse(s.getInputStream());
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("status 200");
    }
  }

  /** A TCP "origin" that never answers and records every byte each connection sends, until EOF. */
  static final class RecordingOrigin implements AutoCloseable {
    static final class Connection {
      final CompletableFuture<Void> headReceived = new CompletableFuture<>();
      final CompletableFuture<byte[]> bytes = new CompletableFuture<>();
    }

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    final LinkedBlockingQueue<Connection> connections = new LinkedBlockingQueue<>();

    private RecordingOrigin(ServerSocket server) {
      this.server = server;
    }

    static RecordingOrigin start() throws IOException {
      RecordingOrigin o = new RecordingOrigin(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()));
      Thread t = new Thread(o::acceptLoop, "recording-origin");
      t.setDaemon(true);
      t.start();
      return o;
    }

    int port() {
      return server.getLocalPort();
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          sockets.add(s);
          Connection c = new Connection();
          connections.add(c);
          Thread r = new Thread(() -> record(s, c), "recording-origin-conn");
          r.setDaemon(true);
          r.start();
        } catch (IOException closed) {
          return;
        }
      }
    }

    private static void record(Socket s, Connection c) {
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      try (s; InputStream in = s.getInputStream()) {
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) >= 0) {
          all.write(buf, 0, n);
          if (all.toString(StandardCharsets.ISO_8859_1).contains("\r\n\r\n")) {
            c.headReceived.complete(null);
          }
        }
      } catch (IOException reset) {
        // a reset ends the connection too
      }
      c.bytes.complete(all.toByteArray());
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
