package dev.loupe.e2e;

import static dev.loupe.e2e.RawHttp2.CANCEL;
import static dev.loupe.e2e.RawHttp2.CONTINUATION;
import static dev.loupe.e2e.RawHttp2.END_HEADERS;
import static dev.loupe.e2e.RawHttp2.END_STREAM;
import static dev.loupe.e2e.RawHttp2.ENHANCE_YOUR_CALM;
import static dev.loupe.e2e.RawHttp2.FLOW_CONTROL_ERROR;
import static dev.loupe.e2e.RawHttp2.GOAWAY;
import static dev.loupe.e2e.RawHttp2.HEADERS;
import static dev.loupe.e2e.RawHttp2.PROTOCOL_ERROR;
import static dev.loupe.e2e.RawHttp2.RST_STREAM;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.e2e.RawHttp2.Frame;
import dev.loupe.e2e.RawHttp2.Hpack;
import dev.loupe.e2e.RawHttp2.Outcome;
import dev.loupe.testing.ProxyFixture;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/2 abuse on the client leg (issue 3, "Abuse limits"): a raw client ({@link RawHttp2})
 * tunnels to a TLS origin through the proxy, speaks h2 to Loupe and misbehaves one way per test.
 * Each time the offending stream or connection is refused with the error code RFC 9113 and
 * Netty's limits prescribe, after a bounded amount of input, and the same proxy then still serves
 * well-behaved HTTP/2 clients byte-exactly: one connected before any abuse and one new.
 *
 * <p>The limits themselves live in {@code Http2Codecs.forClientLeg}. No wall-clock assertions:
 * timeouts only guard against hangs.
 *
 * <p>Logs: no exception may reach the end of a pipeline (Netty's "reached at the tail of the
 * pipeline" warning); a connection Loupe ends for an abuse limit (ENHANCE_YOUR_CALM) is logged once
 * at INFO with the cause, one ended for another protocol error once at FINE.
 */
@Timeout(180)
class Http2AbuseTest {
  /** {@code Http2Codecs}: RST_STREAM frames a client may send per window before GOAWAY. */
  static final int MAX_RST_FRAMES_PER_WINDOW = 200;
  /** {@code Http2InboundFrameGuard}: SETTINGS frames a client may send per window before GOAWAY. */
  static final int MAX_SETTINGS_PER_WINDOW = 100;
  /** A CONTINUATION flood stops here; the proxy must have reacted to what it got. */
  static final long CONTINUATION_CAP = 2L << 20;
  /**
   * The guard for control-frame floods: the proxy must close before the client wrote this much
   * (it closes after a few hundred thousand frames; the rest of what the client writes meanwhile
   * sits in the proxy's receive buffer, which loopback autotuning grows to tens of MiB).
   */
  static final long FLOOD_CAP = 64L << 20;

  static ProxyFixture proxy;
  static TestOrigin origin;
  /** An HTTP/2 client that connects before any abuse; it reuses that connection while it stays open. */
  static HttpClient bystander;
  static CapturedLogs nettyWarnings;
  static CapturedLogs connectionErrors;

  @BeforeAll
  static void start() throws Exception {
    nettyWarnings = CapturedLogs.of("io.netty", Level.WARNING);
    connectionErrors = CapturedLogs.of("dev.loupe.engine.internal.relay.Http2ConnectionErrors", Level.FINE);
    proxy = ProxyFixture.start();
    origin = TestOrigin.https();
    bystander = proxy.clientBuilder().version(HttpClient.Version.HTTP_2).build();
    assertServed(bystander, "before");
  }

  @AfterAll
  static void stop() {
    proxy.close();
    origin.close();
    nettyWarnings.close();
    connectionErrors.close();
  }

  @AfterEach
  void nothingReachedTheEndOfAPipeline() {
    assertThat(nettyWarnings.records()).as("Netty warnings").noneMatch(r -> r.contains("tail of the pipeline"));
  }

  /** What Loupe logged about the client connection from local port {@code port} (waits a little for it). */
  private static List<String> loggedFor(int port) {
    String who = "HTTP/2 client /127.0.0.1:" + port + ":";
    java.util.function.Supplier<List<String>> lines = () -> connectionErrors.records().stream()
        .filter(r -> r.contains(who)).toList();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> !lines.get().isEmpty());
    return lines.get();
  }

  private static String authority() {
    return "localhost:" + origin.port();
  }

  private static RawHttp2 connect() throws IOException {
    return RawHttp2.open(proxy, "localhost", origin.port(), 0);
  }

  /**
   * Case 1, CVE-2023-44487: HEADERS immediately cancelled by RST_STREAM, thousands of times. The
   * proxy counts the resets, answers GOAWAY ENHANCE_YOUR_CALM and drops the rest; only the streams
   * it accepted before that became exchanges, and (cancelled at once) almost none reach the origin.
   */
  @Test
  void rapidResetEndsTheConnectionAndBoundsOriginRequests() throws Exception {
    int attempted = 5000;
    int sent = 0;
    int originConnectionsBefore = origin.connections();
    Outcome o;
    int port;
    try (RawHttp2 c = connect()) {
      port = c.localPort();
      c.startReading();
      try {
        while (sent < attempted && !c.stopped()) {
          for (int i = 0; i < 50 && sent < attempted; i++, sent++) {
            int id = 2 * sent + 1;
            c.headers(id, END_STREAM | END_HEADERS,
                Hpack.get(authority(), "/slow/1000?case=rapid-reset&i=" + sent).bytes());
            c.rstStream(id, CANCEL);
          }
          c.flush();
        }
      } catch (IOException closedUnderUs) {
        // The proxy closed while we were still writing: that is the point.
      }
      o = c.awaitEnd();
    }
    assertThat(o.goAway()).as("GOAWAY after a rapid reset flood: %s", o).isNotNull();
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(ENHANCE_YOUR_CALM);
    assertThat(loggedFor(port)).as("logged once, with the cause").singleElement().asString()
        .startsWith("INFO ").contains("GOAWAY ENHANCE_YOUR_CALM: Maximum number of RST frames reached");

    assertOthersServed("rapid-reset");
    long exchanges = proxy.store().snapshot().stream()
        .filter(f -> f.request() != null && f.request().url().contains("case=rapid-reset")).count();
    long reached = origin.seen().stream().filter(s -> s.uri().contains("case=rapid-reset")).count();
    long originConnections = origin.connections() - originConnectionsBefore;
    System.out.printf("Http2AbuseTest: rapid reset: %d HEADERS+RST_STREAM pairs written, %s; %d streams became"
        + " exchanges, %d requests reached the origin, %d connections opened to the origin%n",
        sent, o.goAway(), exchanges, reached, originConnections);
    assertThat(exchanges).as("streams the proxy accepted before GOAWAY")
        .isLessThanOrEqualTo(MAX_RST_FRAMES_PER_WINDOW + 1);
    assertThat(reached).as("cancelled requests that still reached the origin").isLessThanOrEqualTo(exchanges);
    // Two more for the well-behaved clients at most (the proxy pools its origin connections).
    assertThat(originConnections).as("connections the proxy opened to the origin")
        .isLessThanOrEqualTo(exchanges + 2);
  }

  /** Case 2a: one header block continued in tiny CONTINUATION frames, up to 2 MiB of them. */
  @Test
  void continuationFloodOfSmallFramesGetsEnhanceYourCalm() throws Exception {
    Outcome o = continuationFlood(new Hpack().literal("x-c", "v").bytes(), "small");
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(ENHANCE_YOUR_CALM);
  }

  /** Case 2b: the same with full-size CONTINUATION frames; the header block outgrows its limit. */
  @Test
  void continuationFloodOfLargeFramesGetsProtocolError() throws Exception {
    Outcome o = continuationFlood(new Hpack().literal("x-c", "v".repeat(16_000)).bytes(), "large");
    // Netty: an encoded header block beyond 1.25 x SETTINGS_MAX_HEADER_LIST_SIZE is a connection error.
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(PROTOCOL_ERROR);
  }

  /**
   * Writes HEADERS without END_HEADERS, then CONTINUATION frames until the proxy reacts or
   * {@link #CONTINUATION_CAP} bytes are written, then waits: the GOAWAY must come without more.
   */
  private Outcome continuationFlood(byte[] fragment, String label) throws Exception {
    String tag = "case=continuation-" + label;
    Outcome o;
    long written;
    try (RawHttp2 c = connect()) {
      c.startReading();
      c.headers(1, END_STREAM, Hpack.get(authority(), "/status/200?" + tag).bytes()); // no END_HEADERS
      try {
        while (c.bytesWritten() < CONTINUATION_CAP && !c.stopped()) {
          for (int i = 0; i < 16; i++) {
            c.frame(CONTINUATION, 0, 1, fragment);
          }
          c.flush();
        }
      } catch (IOException closedUnderUs) {
        // expected once the proxy gave up
      }
      written = c.bytesWritten();
      o = c.awaitEnd();
    }
    System.out.printf("Http2AbuseTest: CONTINUATION flood (%d-byte fragments): %s; %d bytes written by then%n",
        fragment.length, o.goAway(), written);
    assertThat(o.goAway()).as("GOAWAY within %d bytes of CONTINUATION: %s", CONTINUATION_CAP, o).isNotNull();
    assertOthersServed("continuation-" + label);
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains(tag));
    return o;
  }

  /**
   * Case 3: one 4,000-byte field enters the HPACK dynamic table and is then referenced ~12,000
   * times with one-byte indexed fields: a 16 KiB frame that decodes to ~48 MB. The stream is
   * refused (Netty answers 431), the decoder stays in sync, the connection stays usable, and the
   * origin never sees the request.
   */
  @Test
  void hpackBombIsRefusedWithoutReachingTheOrigin() throws Exception {
    try (RawHttp2 c = connect()) {
      long limit = c.serverSetting(RawHttp2.SETTINGS_MAX_HEADER_LIST_SIZE);
      assertThat(limit).as("advertised SETTINGS_MAX_HEADER_LIST_SIZE").isEqualTo(64 * 1024);
      Hpack bomb = Hpack.get(authority(), "/status/200?case=hpack-bomb")
          .literalIndexed("x-bomb", "b".repeat(4000));
      int references = 16_384 - bomb.size();
      bomb.indexed(Hpack.FIRST_DYNAMIC, references);
      long decoded = (references + 1L) * ("x-bomb".length() + 4000 + 32);
      c.startReading();
      c.headers(1, END_STREAM | END_HEADERS, bomb.bytes());
      c.flush();

      Frame refused = c.nextOn(1);
      assertThat(refused).as("answer to the bomb").isNotNull();
      assertThat(refused.type()).as("%s", refused).isEqualTo(HEADERS);
      assertThat(refused.headers().status().toString()).as("%s", refused).isEqualTo("431");
      assertThat(refused.has(END_STREAM)).as("%s", refused).isTrue();

      // Same connection, same dynamic table: one reference to the 4 KB entry is within limits.
      c.headers(3, END_STREAM | END_HEADERS,
          Hpack.get(authority(), "/status/200?case=hpack-after").indexed(Hpack.FIRST_DYNAMIC).bytes());
      c.flush();
      Frame next = c.nextOn(3);
      assertThat(next).isNotNull();
      assertThat(next.type()).as("%s", next).isEqualTo(HEADERS);
      assertThat(next.headers().status().toString()).as("%s", next).isEqualTo("200");
      System.out.printf("Http2AbuseTest: HPACK bomb: %d-byte header block decoding to %d bytes (limit %d):"
          + " %s; then %s%n", bomb.size(), decoded, limit, refused, next);
    }
    assertThat(origin.seen()).anyMatch(s -> s.uri().contains("case=hpack-after")
        && s.headers().get("x-bomb").length() == 4000);
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("case=hpack-bomb"));
    assertOthersServed("hpack-bomb");
  }

  /**
   * Case 4: control frames that each demand an acknowledgement, sent without ever reading (and
   * with a 4 KiB receive buffer), so the acknowledgements back up into the proxy until its limit of
   * queued control frames; the proxy then closes the connection (a GOAWAY cannot reach a client
   * that does not read). The loopback socket buffers take a few MiB of acknowledgements first, so
   * this needs a few hundred thousand frames; what the client wrote includes what the proxy never
   * read.
   */
  @ParameterizedTest(name = "{0} flood")
  @ValueSource(strings = {"PING", "SETTINGS"})
  @Timeout(300) // ~10 s each without leak detection, 40-80 s under the paranoid detector of the tests
  void controlFrameFloodWithoutReadingEndsTheConnection(String kind) throws Exception {
    long frames = 0;
    boolean writeFailed = false;
    Outcome o;
    try (RawHttp2 c = RawHttp2.open(proxy, "localhost", origin.port(), 4096)) {
      try {
        while (c.bytesWritten() < FLOOD_CAP) {
          for (int i = 0; i < 100; i++, frames++) {
            if (kind.equals("PING")) {
              c.ping(frames);
            } else {
              c.settings();
            }
          }
          c.flush();
        }
      } catch (IOException closedUnderUs) {
        writeFailed = true;
      }
      o = c.awaitEnd();
      System.out.printf("Http2AbuseTest: %s flood: %d frames (%d bytes) written until the write failed (%s);"
          + " read back: %s%n", kind, frames, c.bytesWritten(), writeFailed, o);
    }
    assertThat(writeFailed).as("the proxy closed the flooding connection within %d bytes", FLOOD_CAP).isTrue();
    long acks = kind.equals("PING") ? o.pingAcks() : o.settingsAcks();
    assertThat(acks).as("acknowledgements the proxy sent").isLessThan(frames);
    if (o.goAway() != null) {
      assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(ENHANCE_YOUR_CALM);
    }
    assertOthersServed(kind.toLowerCase() + "-flood");
  }

  /**
   * Case 4b (issue 13): a SETTINGS flood from a client that reads every acknowledgement. Each frame
   * costs a parse and an acknowledgement, and memory grew by hundreds of MiB before the limit:
   * after {@value #MAX_SETTINGS_PER_WINDOW} frames in a window, GOAWAY ENHANCE_YOUR_CALM.
   */
  @Test
  void settingsFloodWhileReadingGetsEnhanceYourCalm() throws Exception {
    int sent = 0;
    Outcome o;
    try (RawHttp2 c = connect()) {
      c.startReading();
      try {
        while (sent < 20_000 && !c.stopped()) {
          for (int i = 0; i < 50; i++, sent++) {
            // Each with a few hundred entries, as the attack sends them.
            int[] pairs = new int[2 * 300];
            for (int k = 0; k < 300; k++) {
              pairs[2 * k] = RawHttp2.SETTINGS_MAX_CONCURRENT_STREAMS;
              pairs[2 * k + 1] = 100 + k;
            }
            c.settings(pairs);
          }
          c.flush();
        }
      } catch (IOException closedUnderUs) {
        // expected once the proxy gave up
      }
      o = c.awaitEnd();
    }
    System.out.printf("Http2AbuseTest: SETTINGS flood while reading: %d frames sent; %s%n", sent, o);
    assertThat(o.goAway()).as("GOAWAY after a SETTINGS flood: %s", o).isNotNull();
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(ENHANCE_YOUR_CALM);
    assertThat(o.settingsAcks()).as("SETTINGS acknowledged before the GOAWAY")
        .isLessThanOrEqualTo(MAX_SETTINGS_PER_WINDOW + 1);
    assertOthersServed("settings-flood-reading");
  }

  /** Case 6a (issue 13): HEADERS on a stream id that already carried a finished request (RFC 9113 §5.1.1). */
  @Test
  void reusedStreamIdGetsGoAwayProtocolError() throws Exception {
    Outcome o;
    int port;
    try (RawHttp2 c = connect()) {
      port = c.localPort();
      c.startReading();
      c.headers(1, END_STREAM | END_HEADERS, Hpack.get(authority(), "/status/200?case=reuse-1").bytes());
      c.flush();
      Frame answer = c.nextOn(1);
      assertThat(answer.type()).as("%s", answer).isEqualTo(HEADERS);
      awaitStreamEnd(c, 1, answer);
      c.headers(1, END_STREAM | END_HEADERS, Hpack.get(authority(), "/status/200?case=reuse-2").bytes());
      c.flush();
      o = c.awaitEnd();
    }
    System.out.printf("Http2AbuseTest: reused stream id: %s%n", o);
    assertThat(o.goAway()).as("%s", o).isNotNull();
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(PROTOCOL_ERROR);
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("case=reuse-2"));
    assertThat(loggedFor(port)).as("logged once, with the cause").singleElement().asString()
        .startsWith("FINE ").contains("GOAWAY PROTOCOL_ERROR: HEADERS on stream 1");
    assertOthersServed("stream-reuse");
  }

  /** Case 6b (issue 13): a new stream with an id lower than one the client already opened. */
  @Test
  void lowerStreamIdGetsGoAwayProtocolError() throws Exception {
    Outcome o;
    try (RawHttp2 c = connect()) {
      c.startReading();
      c.headers(5, END_STREAM | END_HEADERS, Hpack.get(authority(), "/slow/2000?case=lower-5").bytes());
      c.headers(3, END_STREAM | END_HEADERS, Hpack.get(authority(), "/status/200?case=lower-3").bytes());
      c.flush();
      o = c.awaitEnd();
    }
    System.out.printf("Http2AbuseTest: lower stream id: %s%n", o);
    assertThat(o.goAway()).as("%s", o).isNotNull();
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(PROTOCOL_ERROR);
    assertThat(o.goAway().lastStreamId()).as("stream 5 was accepted before").isEqualTo(5);
    assertThat(origin.seen()).noneMatch(s -> s.uri().contains("case=lower-3"));
    assertOthersServed("stream-lower");
  }

  /** Trailers on an open stream are a HEADERS frame on a used id too: they must still pass. */
  @Test
  void requestTrailersOnAnOpenStreamStillWork() throws Exception {
    try (RawHttp2 c = connect()) {
      c.startReading();
      c.headers(1, END_HEADERS, new Hpack().literal(":method", "POST").literal(":scheme", "https")
          .literal(":authority", authority()).literal(":path", "/sha256?case=trailers-ok").bytes());
      c.frame(RawHttp2.DATA, 0, 1, "hello".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      c.headers(1, END_STREAM | END_HEADERS, new Hpack().literal("x-trailer", "t").bytes());
      c.flush();
      Frame answer = c.nextOn(1);
      assertThat(answer.type()).as("%s", answer).isEqualTo(HEADERS);
      assertThat(answer.headers().status().toString()).isEqualTo("200");
      c.headers(3, END_STREAM | END_HEADERS, Hpack.get(authority(), "/status/200?case=trailers-next").bytes());
      c.flush();
      Frame next = c.nextOn(3);
      assertThat(next.type()).as("the connection still serves: %s", next).isEqualTo(HEADERS);
    }
  }

  /** Reads frames of {@code streamId} until one carries END_STREAM ({@code first} is the first read). */
  private static void awaitStreamEnd(RawHttp2 c, int streamId, Frame first) throws InterruptedException {
    Frame f = first;
    while (f != null && !f.has(END_STREAM)) {
      f = c.nextOn(streamId);
    }
    assertThat(f).as("stream %d ended", streamId).isNotNull();
  }

  /** Case 5a: a connection-level WINDOW_UPDATE past 2^31-1 is a connection error (RFC 9113 §6.9.1). */
  @Test
  void connectionWindowOverflowGetsGoAwayFlowControlError() throws Exception {
    Outcome o;
    try (RawHttp2 c = connect()) {
      c.windowUpdate(0, Integer.MAX_VALUE);
      c.flush();
      o = c.awaitEnd();
    }
    System.out.printf("Http2AbuseTest: connection window overflow: %s%n", o.goAway());
    assertThat(o.goAway()).as("%s", o).isNotNull();
    assertThat(o.goAway().errorCode()).as("%s", o.goAway()).isEqualTo(FLOW_CONTROL_ERROR);
    assertOthersServed("connection-window");
  }

  /** Case 5b: a stream-level WINDOW_UPDATE past 2^31-1 resets that stream only (RFC 9113 §6.9.1). */
  @Test
  void streamWindowOverflowGetsRstStreamFlowControlError() throws Exception {
    try (RawHttp2 c = connect()) {
      c.startReading();
      c.headers(1, END_STREAM | END_HEADERS, Hpack.get(authority(), "/slow/3000?case=stream-window").bytes());
      c.windowUpdate(1, Integer.MAX_VALUE);
      c.flush();
      Frame reset = c.nextOn(1);
      assertThat(reset).as("answer to the overflow").isNotNull();
      assertThat(reset.type()).as("%s", reset).isEqualTo(RST_STREAM);
      assertThat(reset.errorCode()).as("%s", reset).isEqualTo(FLOW_CONTROL_ERROR);

      c.headers(3, END_STREAM | END_HEADERS, Hpack.get(authority(), "/status/200?case=stream-window-after").bytes());
      c.flush();
      Frame next = c.nextOn(3);
      assertThat(next).isNotNull();
      assertThat(next.type()).as("the connection still serves: %s", next).isEqualTo(HEADERS);
      assertThat(next.headers().status().toString()).isEqualTo("200");
      System.out.printf("Http2AbuseTest: stream window overflow: %s; then %s%n", reset, next);
    }
    assertOthersServed("stream-window");
  }

  /**
   * Case 5c: SETTINGS_INITIAL_WINDOW_SIZE growing an open stream's window past 2^31-1 is a
   * FLOW_CONTROL_ERROR (RFC 9113 §6.9.2 says a connection error; Netty resets the stream instead,
   * which is accepted here as long as the code is right).
   */
  @Test
  void initialWindowSizeOverflowGetsFlowControlError() throws Exception {
    Frame answer;
    try (RawHttp2 c = connect()) {
      c.startReading();
      c.headers(1, END_STREAM | END_HEADERS, Hpack.get(authority(), "/slow/3000?case=settings-window").bytes());
      c.windowUpdate(1, Integer.MAX_VALUE - 65_535); // exactly 2^31-1 now
      c.settings(RawHttp2.SETTINGS_INITIAL_WINDOW_SIZE, 65_536); // +1
      c.flush();
      answer = c.nextOn(1);
      System.out.printf("Http2AbuseTest: SETTINGS_INITIAL_WINDOW_SIZE overflow: %s%n", answer);
    }
    assertThat(answer).as("answer to the overflow").isNotNull();
    assertThat(answer.type()).as("%s", answer).isIn(RST_STREAM, GOAWAY);
    assertThat(answer.errorCode()).as("%s", answer).isEqualTo(FLOW_CONTROL_ERROR);
    assertOthersServed("settings-window");
  }

  /** Case 6: after the abuse, HTTP/2 clients (the old connection and a new one) are served byte-exactly. */
  private static void assertOthersServed(String after) throws Exception {
    assertServed(bystander, after);
    assertServed(proxy.clientBuilder().version(HttpClient.Version.HTTP_2).build(), after);
  }

  private static void assertServed(HttpClient client, String after) throws Exception {
    int size = 100_001;
    String url = origin.url("localhost") + "/bytes/" + size + "?after=" + after;
    // A bounded wait: once (1 run in ~7, not reproduced since) this request got no answer after the
    // stream-window case and the JDK client's send does not yield to the JUnit timeout's interrupt.
    HttpResponse<InputStream> r = client.send(HttpRequest.newBuilder(URI.create(url))
            .timeout(java.time.Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.version()).as("client leg protocol").isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(TestData.sha256(r.body())).as("body after %s", after).isEqualTo(TestData.sha256(size));
  }
}
