package dev.loupe.engine.internal.exchange;

import static dev.loupe.engine.internal.exchange.ExchangeCommand.*;
import static dev.loupe.engine.internal.exchange.ExchangeEvent.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordingStore;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The exchange state machine driven by scripted events: no sockets, no buffers. */
@Timeout(30)
class ExchangeTest {
  private final AtomicLong clock = new AtomicLong(1_000);
  private final List<FlowEvent> events = new CopyOnWriteArrayList<>();
  private RecordingStore store;
  private FlowStore.Subscription subscription;
  private RecordedFlow flow;
  private Exchange exchange;

  private static final RequestHead GET = new RequestHead("GET", "https", "example.test", 443, "/a?b=c", "HTTP/1.1",
      Headers.of("Host", "example.test"));
  private static final ConnectionInfo SERVER = new ConnectionInfo(7, null, null, null, false);
  private static final ResponseHead OK = new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Length", "2"));

  @BeforeEach
  void setUp() {
    store = new RecordingStore();
    subscription = store.subscribe(events::add);
    flow = new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
    exchange = new Exchange(flow, store, () -> clock.addAndGet(1_000_000));
  }

  @AfterEach
  void tearDown() {
    subscription.close();
  }

  private List<ExchangeCommand> on(ExchangeEvent e) {
    return exchange.on(e);
  }

  @Test
  void aRecycledCommandListCarriesTheNextEventsCommandsButNotWhileItIsCarriedOut() {
    List<ExchangeCommand> first = on(new RequestHeadersReceived(GET, false));
    assertThat(first).containsExactly(new OpenUpstream("https", "example.test", 443));
    // An event while the first list is being carried out (not given back yet) gets its own list.
    List<ExchangeCommand> nested = on(new RequestEnded(Headers.EMPTY));
    assertThat(nested).isNotSameAs(first).isEmpty();
    assertThat(first).containsExactly(new OpenUpstream("https", "example.test", 443));
    exchange.recycle(nested);
    exchange.recycle(first); // two spares at most: this is the second
    exchange.recycle(first); // the same list twice is kept once
    List<ExchangeCommand> next = on(new UpstreamReady(SERVER, "HTTP/1.1"));
    assertThat(next).isSameAs(nested).containsExactly(new SendRequestHead(GET), new SendRequestEnd(Headers.EMPTY));
    exchange.recycle(next);
    assertThat(next).isEmpty();
    List<ExchangeCommand> head = on(new ResponseHeadersReceived(OK));
    assertThat(head).isSameAs(next).containsExactly(new SendResponseHead(OK));
    Object payload = new Object();
    List<ExchangeCommand> data = on(new ResponseDataReceived(payload, 2));
    assertThat(data).isSameAs(first).containsExactly(new SendResponseData(payload));
    assertThat(on(new ResponseDataReceived(payload, 2))).isNotSameAs(head).isNotSameAs(first);

    // A leg takes the spares back for its next exchange: empty lists, each once, then null.
    exchange.recycle(head);
    exchange.recycle(data);
    exchange.recycle(new java.util.ArrayList<>(List.of(new Finished()))); // a third is dropped
    List<ExchangeCommand> a = exchange.takeSpare();
    List<ExchangeCommand> b = exchange.takeSpare();
    assertThat(a == head && b == data || a == data && b == head).as("the two spares, by identity").isTrue();
    assertThat(a).isEmpty();
    assertThat(b).isEmpty();
    assertThat(exchange.takeSpare()).isNull();
  }

  @Test
  void simpleGetRelaysInOrderAndCompletes() {
    assertThat(on(new RequestHeadersReceived(GET, false)))
        .containsExactly(new OpenUpstream("https", "example.test", 443));
    assertThat(on(new RequestEnded(Headers.EMPTY))).isEmpty(); // held while connecting
    assertThat(on(new UpstreamReady(SERVER, "HTTP/1.1")))
        .containsExactly(new SendRequestHead(GET), new SendRequestEnd(Headers.EMPTY));
    assertThat(on(new ResponseHeadersReceived(OK))).containsExactly(new SendResponseHead(OK));
    Object payload = new Object();
    assertThat(on(new ResponseDataReceived(payload, 2))).containsExactly(new SendResponseData(payload));
    assertThat(on(new ResponseEnded(Headers.EMPTY))).containsExactly(
        new SendResponseEnd(Headers.EMPTY), new ReleaseUpstream(true), new Finished());

    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
    assertThat(flow.serverConnection()).isEqualTo(SERVER);
    assertThat(flow.response()).isEqualTo(OK);
    assertThat(flow.timings().waitMs()).isGreaterThan(0);
    assertThat(subscription.awaitIdle(5, TimeUnit.SECONDS)).isTrue();
    assertThat(events).extracting(FlowEvent::type).startsWith(FlowEvent.Type.ADDED).endsWith(FlowEvent.Type.COMPLETED);
  }

  @Test
  void requestBodyHeldWhileConnectingIsReplayedInOrder() {
    on(new RequestHeadersReceived(GET, false));
    Object a = "a";
    Object b = "b";
    on(new RequestDataReceived(a, 1));
    on(new RequestDataReceived(b, 1));
    assertThat(exchange.wantsRequestData()).isFalse();
    assertThat(on(new UpstreamReady(SERVER, "HTTP/1.1")))
        .containsExactly(new SendRequestHead(GET), new SendRequestData(a), new SendRequestData(b));
    assertThat(exchange.wantsRequestData()).isTrue();
    assertThat(on(new RequestEnded(Headers.of("x-t", "1")))).containsExactly(new SendRequestEnd(Headers.of("x-t", "1")));
    assertThat(flow.requestTrailers().get("x-t")).isEqualTo("1");
  }

  @Test
  void upstreamFailureAnswers502AndDiscardsHeldBody() {
    on(new RequestHeadersReceived(GET, false));
    Object held = "held";
    on(new RequestDataReceived(held, 4));
    FlowError dns = new FlowError(FlowError.Kind.DNS, "DNS lookup failed for example.test");
    assertThat(on(new UpstreamFailed(dns))).containsExactly(
        new ReleaseUpstream(false), new Discard(held),
        new SendErrorResponse(502, "Bad Gateway", "DNS lookup failed for example.test"),
        new CloseClient(false), new Finished());
    assertThat(flow.state()).isEqualTo(FlowState.FAILED);
    assertThat(flow.error()).isEqualTo(dns);
    Object late = "late";
    assertThat(on(new RequestDataReceived(late, 4))).containsExactly(new Discard(late));
  }

  @Test
  void resetMidBodyAbortsClientInsteadOfFakingCompletion() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    on(new ResponseHeadersReceived(OK));
    FlowError reset = new FlowError(FlowError.Kind.SERVER_RESET, "example.test:443 closed the connection");
    assertThat(on(new UpstreamBroken(reset))).containsExactly(
        new ReleaseUpstream(false), new CloseClient(true), new Finished());
    assertThat(flow.error()).isEqualTo(reset);
  }

  @Test
  void brokenBeforeResponseIs502() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    FlowError closed = new FlowError(FlowError.Kind.SERVER_RESET, "closed before sending a response");
    assertThat(on(new UpstreamBroken(closed))).containsExactly(
        new ReleaseUpstream(false), new SendErrorResponse(502, "Bad Gateway", closed.message()), new Finished());
  }

  @Test
  void responseTimeoutIs504() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    List<ExchangeCommand> out = on(new ResponseTimedOut());
    assertThat(out).hasSize(3);
    assertThat(out.get(1)).isInstanceOf(SendErrorResponse.class);
    assertThat(((SendErrorResponse) out.get(1)).status()).isEqualTo(504);
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.TIMEOUT);
  }

  @Test
  void earlyResponseBeforeRequestEndClosesClientAndDropsUpstream() {
    on(new RequestHeadersReceived(GET, false));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    ResponseHead tooLarge = new ResponseHead(413, "Payload Too Large", "HTTP/1.1", Headers.EMPTY);
    on(new ResponseHeadersReceived(tooLarge));
    assertThat(on(new ResponseEnded(Headers.EMPTY))).containsExactly(
        new SendResponseEnd(Headers.EMPTY), new ReleaseUpstream(false), new CloseClient(false), new Finished());
  }

  @Test
  void informationalResponsesAreRelayedAndRecorded() {
    on(new RequestHeadersReceived(GET, false));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    ResponseHead cont = new ResponseHead(100, "Continue", "HTTP/1.1", Headers.EMPTY);
    assertThat(on(new ResponseHeadersReceived(cont))).containsExactly(new SendResponseHead(cont));
    assertThat(flow.informationalResponses()).containsExactly(cont);
    assertThat(flow.response()).isNull();
  }

  @Test
  void webSocketUpgradeSwitchesAndEndsWhenTunnelCloses() {
    on(new RequestHeadersReceived(GET, true));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    ResponseHead switching = new ResponseHead(101, "Switching Protocols", "HTTP/1.1", Headers.of("Upgrade", "websocket"));
    assertThat(on(new ResponseHeadersReceived(switching)))
        .containsExactly(new SendResponseHead(switching), new SwitchToWebSocket());
    assertThat(flow.isWebSocket()).isTrue();
    assertThat(flow.state()).isEqualTo(FlowState.IN_FLIGHT);
    assertThat(on(new TunnelClosed())).containsExactly(new Finished());
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
  }

  @Test
  void unaskedSwitchIsAProtocolError() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    on(new ResponseHeadersReceived(new ResponseHead(101, "Switching Protocols", "HTTP/1.1", Headers.EMPTY)));
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.SERVER_PROTOCOL);
  }

  @Test
  void clientGoneMidResponseFailsFlowAndDropsUpstream() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    on(new ResponseHeadersReceived(OK));
    assertThat(on(new ClientGone())).containsExactly(new ReleaseUpstream(false), new Finished());
    assertThat(flow.error().kind()).isEqualTo(FlowError.Kind.CLIENT_ABORT);
    Object late = "late";
    assertThat(on(new ResponseDataReceived(late, 1))).containsExactly(new Discard(late));
  }

  @Test
  void retryableBreakReopensOnceThenFails() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    FlowError dead = new FlowError(FlowError.Kind.SERVER_RESET, "closed before sending a response");
    assertThat(on(new UpstreamBroken(dead, true)))
        .containsExactly(new ReleaseUpstream(false), new OpenUpstream("https", "example.test", 443));
    assertThat(flow.state()).isEqualTo(FlowState.IN_FLIGHT);
    assertThat(on(new UpstreamReady(SERVER, "HTTP/1.1")))
        .containsExactly(new SendRequestHead(GET), new SendRequestEnd(Headers.EMPTY));
    assertThat(on(new UpstreamBroken(dead, true))).containsExactly(
        new ReleaseUpstream(false), new SendErrorResponse(502, "Bad Gateway", dead.message()), new Finished());
  }

  // ---- rules the replay leg shares with the client leg ---------------------------------------------

  private static final RequestHead PUT = new RequestHead("PUT", "http", "example.test", 80, "/doc", "HTTP/1.1",
      Headers.of("Host", "example.test", "Content-Length", "3"));

  /** A new flow and exchange (a second case in one test). */
  private void fresh() {
    subscription.close();
    events.clear();
    setUp();
  }

  /** Runs {@code head}'s exchange to the end of {@code response} and returns the last event's commands. */
  private List<ExchangeCommand> exchangeEndingWith(ResponseHead response) {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    on(new ResponseHeadersReceived(response));
    return on(new ResponseEnded(Headers.EMPTY));
  }

  @Test
  void anOriginThatClosesItsConnectionIsNotPooled() {
    ResponseHead close = new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Connection", "close"));
    assertThat(exchangeEndingWith(close)).containsExactly(
        new SendResponseEnd(Headers.EMPTY), new ReleaseUpstream(false), new Finished());
    assertThat(exchange.upstreamReusable()).isFalse();
    assertThat(flow.state()).isEqualTo(FlowState.COMPLETE);
  }

  @Test
  void http10KeepsItsConnectionOnlyWhenItSaysKeepAlive() {
    ResponseHead old = new ResponseHead(200, "OK", "HTTP/1.0", Headers.EMPTY);
    assertThat(exchangeEndingWith(old)).contains(new ReleaseUpstream(false));

    fresh();
    ResponseHead kept = new ResponseHead(200, "OK", "HTTP/1.0", Headers.of("Connection", "Keep-Alive"));
    assertThat(exchangeEndingWith(kept)).contains(new ReleaseUpstream(true));
    assertThat(exchange.upstreamReusable()).isTrue();

    fresh();
    ResponseHead h2 = new ResponseHead(200, "", "HTTP/2", Headers.EMPTY);
    assertThat(exchangeEndingWith(h2)).as("a stream: no Connection field").contains(new ReleaseUpstream(true));
  }

  @Test
  void altSvcOfAFinalResponseIsHandedOnBeforeItsHead() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    ResponseHead early = new ResponseHead(103, "Early Hints", "HTTP/1.1", Headers.of("Alt-Svc", "h3=\":443\""));
    assertThat(on(new ResponseHeadersReceived(early))).as("not from an interim response")
        .containsExactly(new SendResponseHead(early));
    ResponseHead advertised = new ResponseHead(200, "OK", "HTTP/1.1",
        Headers.of("Alt-Svc", "h3=\":443\"; ma=60", "Age", "5", "Alt-Svc", "h2=\":8443\""));
    assertThat(on(new ResponseHeadersReceived(advertised))).containsExactly(
        new AdvertiseAltSvc(List.of("h3=\":443\"; ma=60", "h2=\":8443\""), "5"), new SendResponseHead(advertised));
  }

  @Test
  void aRequestWithABodyIsRetriedOnlyWhenTheLegCanSendItAgain() {
    FlowError dead = new FlowError(FlowError.Kind.SERVER_RESET, "closed before sending a response");
    Object body = new byte[] {1, 2, 3};

    // Streamed payloads (the client leg): the body is gone once written, so no retry.
    on(new RequestHeadersReceived(PUT, false));
    on(new RequestDataReceived(body, 3));
    on(new RequestEnded(Headers.EMPTY));
    flow.requestBody().append(java.nio.ByteBuffer.wrap((byte[]) body));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    assertThat(on(new UpstreamBroken(dead, true))).containsExactly(
        new ReleaseUpstream(false), new SendErrorResponse(502, "Bad Gateway", dead.message()), new Finished());

    // Kept payloads (the replay leg): the same body goes once more on a fresh connection.
    fresh();
    exchange.keepRequestPayloads();
    on(new RequestHeadersReceived(PUT, false));
    on(new RequestDataReceived(body, 3));
    on(new RequestEnded(Headers.EMPTY));
    flow.requestBody().append(java.nio.ByteBuffer.wrap((byte[]) body));
    assertThat(on(new UpstreamReady(SERVER, "HTTP/1.1"))).containsExactly(
        new SendRequestHead(PUT), new SendRequestData(body), new SendRequestEnd(Headers.EMPTY));
    assertThat(on(new UpstreamBroken(dead, true)))
        .containsExactly(new ReleaseUpstream(false), new OpenUpstream("http", "example.test", 80));
    assertThat(on(new UpstreamReady(SERVER, "HTTP/1.1"))).containsExactly(
        new SendRequestHead(PUT), new SendRequestData(body), new SendRequestEnd(Headers.EMPTY));
    assertThat(on(new UpstreamBroken(dead, true))).as("once only").containsExactly(
        new ReleaseUpstream(false), new SendErrorResponse(502, "Bad Gateway", dead.message()), new Finished());
  }

  @Test
  void aTimeoutMayNameItsOwnDetailAndComesTooLateOnceTheResponseStarted() {
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    on(new ResponseHeadersReceived(OK));
    assertThat(on(new ResponseTimedOut("ignored"))).as("the head came: not a head timeout").isEmpty();

    fresh();
    on(new RequestHeadersReceived(GET, false));
    on(new RequestEnded(Headers.EMPTY));
    on(new UpstreamReady(SERVER, "HTTP/1.1"));
    on(new ResponseTimedOut("no response from example.test:443 within the response timeout (1 s)"));
    assertThat(flow.error()).isEqualTo(new FlowError(FlowError.Kind.TIMEOUT,
        "no response from example.test:443 within the response timeout (1 s)"));
  }
}
