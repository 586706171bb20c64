package dev.loupe.engine.api.session;

import static dev.loupe.testing.FlowsAssert.assertSameFlow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.session.model.FlowSummary;
import dev.loupe.engine.api.session.model.SortKey;
import dev.loupe.engine.filter.Filter;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import dev.loupe.testing.TestData;
import dev.loupe.testing.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flows with every field the model has (H1, H2, H3, WebSocket, tunnel, changed by rules, replayed,
 * failed, truncated, with a 3 MiB body) recorded from a live store into a session file, the file
 * closed and opened again: each flow reads back equal, field by field.
 */
@Timeout(120)
class SessionRoundTripTest {
  @TempDir Path dir;

  private CapturePolicy capture() {
    return new CapturePolicy(CapturePolicy.DEFAULT_MEMORY_CAP, true, dir.resolve("spill"));
  }

  private static final Instant T0 = Instant.parse("2026-12-01T10:11:12.123456789Z");

  /** An HTTPS flow over HTTP/2 with TLS facts, a certificate chain, 1xx, trailers and a 3 MiB body. */
  private RecordedFlow h2Flow(RecordingStore store) throws Exception {
    RecordedFlow f = new RecordedFlow(store.nextId(), T0, capture());
    f.clientProtocol("HTTP/2");
    f.serverProtocol("HTTP/2");
    f.clientStreamId(3);
    f.serverStreamId(5);
    f.http3Status("no Alt-Svc");
    List<java.security.cert.X509Certificate> chain = TestPki.shared().originCa().leafFor("api.example.com").chain();
    f.clientConnection(new ConnectionInfo(7, new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 40123),
        new InetSocketAddress(InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1}), 8080),
        new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2", List.of(), false), true));
    f.serverConnection(new ConnectionInfo(8, new InetSocketAddress(InetAddress.getByAddress("api.example.com",
        InetAddress.getByName("::1").getAddress()), 443), new InetSocketAddress(InetAddress.getByName("::1"), 51515),
        new TlsInfo("api.example.com", "TLSv1.3", "TLS_AES_256_GCM_SHA384", "h2", chain, true), false));
    long t = 5_000_000_000L;
    f.timings().requestStart(t);
    f.timings().dnsStart(t + 1_000);
    f.timings().dnsEnd(t + 2_000_123);
    f.timings().connectStart(t + 2_100_000);
    f.timings().connectEnd(t + 3_000_000);
    f.timings().tlsStart(t + 3_000_001);
    f.timings().tlsEnd(t + 9_000_000);
    f.timings().sendStart(t + 9_100_000);
    f.timings().sendEnd(t + 9_200_000);
    f.request(new RequestHead("POST", "https", "api.example.com", 443, "/v1/upload?x=1&y=%C3%A9", "HTTP/2",
        Headers.of("content-type", "application/json; charset=utf-8", "x-multi", "a", "X-Multi", "b",
            "x-unicode", "caf\u00e9 \u2603")));
    f.requestBody().append(ByteBuffer.wrap("{\"hello\":\"w\u00f6rld\"}".getBytes(StandardCharsets.UTF_8)));
    f.requestTrailers(Headers.of("x-checksum", "abc"));
    store.add(f);
    f.response(new ResponseHead(100, "", "HTTP/2", Headers.EMPTY));
    f.response(new ResponseHead(103, "", "HTTP/2", Headers.of("link", "</a.css>; rel=preload")));
    f.timings().responseStart(t + 20_000_000);
    f.response(new ResponseHead(200, "", "HTTP/2", Headers.of("content-type", "application/octet-stream",
        "set-cookie", "a=1; Path=/", "set-cookie", "b=2")));
    byte[] big = TestData.bytes(3 << 20);
    for (int i = 0; i < big.length; i += 65536) {
      f.responseBody().append(ByteBuffer.wrap(big, i, Math.min(65536, big.length - i)));
    }
    f.responseTrailers(Headers.of("grpc-status", "0", "grpc-message", ""));
    f.timings().responseEnd(t + 45_678_901);
    f.complete();
    store.completed(f);
    return f;
  }

  /** HTTP/3 on the server leg, changed by a rule and a breakpoint, originals kept, replaying #1. */
  private RecordedFlow modifiedH3Flow(RecordingStore store, long replayOf) {
    RecordedFlow f = new RecordedFlow(store.nextId(), T0.plusMillis(5), capture());
    f.tier(FlowTier.FULL);
    f.clientProtocol("HTTP/1.1");
    f.serverProtocol("HTTP/3");
    f.serverStreamId(0);
    f.serverQuicConnectionId("a1b2c3d4");
    f.clientQuicConnectionId("ffee");
    f.http3Status("Alt-Svc h3=\":443\"");
    f.replayOf(replayOf);
    f.timings().requestStart(77);
    f.request(new RequestHead("PUT", "https", "h3.example", 8443, "/item", "HTTP/1.1", Headers.of("a", "1")));
    f.requestBody().append(ByteBuffer.wrap(new byte[] {1, 2, 3}));
    store.add(f);
    f.requestModified(new RequestHead("PUT", "https", "h3.example", 8443, "/item", "HTTP/1.1", Headers.of("a", "2")),
        RecordedBody.of("changed".getBytes(StandardCharsets.UTF_8)));
    f.modifiedBy("rule \"set a\"");
    f.response(new ResponseHead(500, "", "HTTP/3", Headers.of("x", "origin")));
    f.responseBody().append(ByteBuffer.wrap("boom".getBytes(StandardCharsets.UTF_8)));
    f.responseModified(new ResponseHead(200, "OK", "HTTP/3", Headers.of("x", "edited")), RecordedBody.of(new byte[0]));
    f.modifiedBy("breakpoint (response): edited");
    f.note("plugin \"slow\": responseHeaders hook took longer than 5 s; the flow went on");
    f.client("Chromium");
    f.timings().responseEnd(77 + 1_234_567);
    f.complete();
    store.completed(f);
    return f;
  }

  private RecordedFlow webSocketFlow(RecordingStore store) {
    RecordedFlow f = new RecordedFlow(store.nextId(), T0.plusSeconds(1), capture());
    f.clientProtocol("HTTP/1.1");
    f.serverProtocol("HTTP/1.1");
    f.webSocket(true);
    f.timings().requestStart(9);
    f.request(new RequestHead("GET", "http", "ws.example", 80, "/chat", "HTTP/1.1",
        Headers.of("upgrade", "websocket", "connection", "Upgrade")));
    store.add(f);
    f.response(new ResponseHead(101, "Switching Protocols", "HTTP/1.1", Headers.of("upgrade", "websocket")));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, 1,
        "hi \u2603".getBytes(StandardCharsets.UTF_8), 7, T0.plusMillis(1001)));
    store.updated(f);
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, 2,
        new byte[] {0, (byte) 255, 7}, 3, T0.plusNanos(1_002_000_001)));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, 1,
        "cut".getBytes(StandardCharsets.UTF_8), 1000, T0.plusMillis(1003)));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, 8,
        new byte[] {3, (byte) 232}, 2, T0.plusMillis(1004)));
    f.webSocketClosed(1000, "bye");
    f.timings().responseEnd(9 + 5_000_000_000L);
    f.complete();
    store.completed(f);
    return f;
  }

  private RecordedFlow tunnel(RecordingStore store) throws Exception {
    RecordedFlow f = new RecordedFlow(store.nextId(), T0.plusSeconds(2), capture());
    f.tier(FlowTier.TUNNEL);
    f.clientProtocol("HTTP/1.1");
    f.timings().requestStart(1);
    f.request(new RequestHead("CONNECT", "https", "bank.example", 443, "bank.example:443", "HTTP/1.1", Headers.EMPTY));
    f.serverConnection(new ConnectionInfo(99, InetSocketAddress.createUnresolved("bank.example", 443), null, null, false));
    store.add(f);
    f.addTunnelBytes(1234, 567890);
    f.complete();
    store.completed(f);
    return f;
  }

  private RecordedFlow failed(RecordingStore store) {
    RecordedFlow f = new RecordedFlow(store.nextId(), T0.plusSeconds(3), capture());
    f.clientProtocol("HTTP/1.1");
    f.timings().requestStart(System.nanoTime());
    f.timings().dnsStart(System.nanoTime());
    f.request(new RequestHead("GET", "http", "nosuch.test", 80, "/", "HTTP/1.1", Headers.EMPTY));
    store.add(f);
    f.fail(new FlowError(FlowError.Kind.DNS, "DNS lookup failed for nosuch.test"));
    store.completed(f);
    return f;
  }

  /** A body cut at its capture cap (no spilling): 10 bytes kept of 100 seen. */
  private RecordedFlow truncated(RecordingStore store) {
    RecordedFlow f = new RecordedFlow(store.nextId(), T0.plusSeconds(4), new CapturePolicy(10, false, dir));
    f.clientProtocol("HTTP/1.1");
    f.timings().requestStart(1);
    f.request(new RequestHead("GET", "http", "big.example", 80, "/", "HTTP/1.1", Headers.EMPTY));
    store.add(f);
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("content-type", "text/plain")));
    f.responseBody().append(ByteBuffer.wrap(TestData.bytes(100)));
    f.timings().responseEnd(2);
    f.complete();
    store.completed(f);
    return f;
  }

  @Test
  void everyFieldOfEveryKindOfFlowReadsBackEqualAfterCloseAndReopen() throws Exception {
    Path file = dir.resolve("s.loupe");
    RecordingStore store = new RecordingStore();
    List<Flow> flows = new ArrayList<>();
    AtomicReference<String> problem = new AtomicReference<>();
    try (Session s = Session.open(file, dir)) {
      s.record(store, problem::set);
      RecordedFlow first = h2Flow(store);
      flows.add(first);
      flows.add(modifiedH3Flow(store, first.id()));
      flows.add(webSocketFlow(store));
      flows.add(tunnel(store));
      flows.add(failed(store));
      flows.add(truncated(store));
      s.flush();
      assertThat(Files.list(dir.resolve("s.loupe-bodies")).count()).as("the 3 MiB body waits in a side file").isEqualTo(1);
      for (Flow f : flows) { // the live flow while the store still holds it
        assertThat(s.load(f.id())).isSameAs(f);
      }
    }
    assertThat(problem.get()).isNull();
    assertThat(Files.exists(dir.resolve("s.loupe-bodies"))).as("folded into the file on close").isFalse();
    assertThat(Files.exists(dir.resolve("s.loupe-wal"))).isFalse();

    try (Session s = Session.open(file, dir)) {
      assertThat(s.count()).isEqualTo(flows.size());
      for (Flow f : flows) {
        assertSameFlow(s.load(f.id()), f);
      }
      List<Long> ids = new ArrayList<>();
      s.ids(Filter.ALL, SortKey.ID, false, ids::add, () -> false);
      assertThat(ids).containsExactlyElementsOf(flows.stream().map(Flow::id).toList());
    }
  }

  /**
   * A getter added to {@link Flow} is something a session must keep: this list (what
   * {@code FlowsAssert} compares and the store writes) must grow with it.
   */
  @Test
  void everyGetterOfTheFlowModelIsKeptBySessions() {
    java.util.Set<String> kept = java.util.Set.of("id", "startedAt", "timings", "requestBody", "responseBody",
        "informationalResponses", "webSocketMessages", "state", "tier", "clientProtocol", "serverProtocol",
        "clientConnection", "serverConnection", "request", "response", "requestTrailers", "responseTrailers", "error",
        "isWebSocket", "webSocketCloseCode", "webSocketCloseReason", "tunnelBytesClientToServer",
        "tunnelBytesServerToClient", "isTunnel", "clientStreamId", "serverStreamId", "clientQuicConnectionId",
        "serverQuicConnectionId", "http3Status", "modifiedBy", "notes", "originalRequest", "originalRequestBody",
        "originalResponse", "originalResponseBody", "replayOf", "client",
        // not history: where a live flow waits right now, and heap accounting
        "paused", "memoryFootprint");
    List<String> getters = java.util.Arrays.stream(Flow.class.getMethods())
        .filter(m -> m.getDeclaringClass() == Flow.class && m.getParameterCount() == 0
            && m.getReturnType() != void.class && !java.lang.reflect.Modifier.isStatic(m.getModifiers()))
        .map(java.lang.reflect.Method::getName).filter(n -> !n.equals("toString") && !n.equals("hashCode")).toList();
    assertThat(getters).as("RecordedFlow getters a session file does not keep yet (FlowCodec, FlowWriter, FlowBuilder,"
        + " FlowsAssert)").allMatch(kept::contains);
  }

  @Test
  void aFlowInFlightWhenWrittenComesBackFailedAsIncompleteAndItsIdsContinue() throws Exception {
    Path file = dir.resolve("s.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir)) {
      s.record(store, p -> { });
      RecordedFlow f = new RecordedFlow(store.nextId(), T0, capture());
      f.timings().requestStart(System.nanoTime());
      f.request(new RequestHead("GET", "http", "slow.example", 80, "/", "HTTP/1.1", Headers.EMPTY));
      store.add(f);
      s.flush();
      // a copy of the file as a kill would leave it: the flow written in flight
      Files.copy(file, dir.resolve("copy.loupe"));
      Files.copy(file.resolveSibling("s.loupe-wal"), dir.resolve("copy.loupe-wal"));
    }
    try (Session copy = Session.open(dir.resolve("copy.loupe"), dir)) {
      Flow back = copy.load(1);
      assertThat(back.state()).isEqualTo(FlowState.FAILED);
      assertThat(back.error().message()).contains("in flight");
      FlowSummary row = copy.summaries(new long[] {1}, 0, 1).get(1L);
      assertThat(row.state()).isEqualTo(FlowState.FAILED);
      RecordingStore next = new RecordingStore();
      copy.record(next, p -> { });
      assertThat(next.nextId()).as("new flows continue after the file's").isEqualTo(2);
    }
  }

  @Test
  void writtenEndedFlowsLeaveTheLiveStoreBeyondItsCacheAndReadBackFromTheFile() throws Exception {
    Path file = dir.resolve("s.loupe");
    RecordingStore store = new RecordingStore();
    try (Session s = Session.open(file, dir)) {
      s.record(store, p -> { });
      List<Flow> flows = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        RecordedFlow f = new RecordedFlow(store.nextId(), T0.plusMillis(i), capture());
        f.timings().requestStart(1);
        f.request(new RequestHead("GET", "http", "h" + (i % 7) + ".example", 80, "/" + i, "HTTP/1.1", Headers.EMPTY));
        if (i % 2 == 0) {
          f.client("firefox");
        }
        store.add(f);
        f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.EMPTY));
        f.responseBody().append(ByteBuffer.wrap(TestData.bytes(i)));
        f.timings().responseEnd(2);
        f.complete();
        store.completed(f);
        flows.add(f);
      }
      s.flush();
      assertThat(store.size()).as("the newest thousand stay in memory").isEqualTo(1000);
      assertThat(store.get(flows.get(0).id())).isNull();
      assertSameFlow(s.load(flows.get(5).id()), flows.get(5));
      assertThat(s.summaries(new long[] {flows.get(10).id()}, 0, 1).get(flows.get(10).id()).path()).isEqualTo("/10");
      // a stored row's columns are the live flow's, the client label too (the table shows it without loading the flow)
      long[] ids = {flows.get(10).id(), flows.get(11).id()};
      assertThat(s.summaries(ids, 0, 2)).containsEntry(ids[0], FlowSummary.of(flows.get(10)))
          .containsEntry(ids[1], FlowSummary.of(flows.get(11)));
      assertThat(s.summaries(ids, 0, 2).get(ids[0]).client()).isEqualTo("firefox");
      assertThat(s.summaries(ids, 0, 2).get(ids[1]).client()).isNull();
    }
  }
}
