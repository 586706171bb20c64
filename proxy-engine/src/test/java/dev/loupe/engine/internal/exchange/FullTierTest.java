package dev.loupe.engine.internal.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.api.intercept.RequestDraft;
import dev.loupe.engine.api.intercept.ResponseDraft;
import dev.loupe.engine.api.intercept.RuleAction;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.intercept.RequestOutcome;
import dev.loupe.engine.internal.intercept.ResponseOutcome;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The full tier in fake time: collecting, the cap, outcomes, latency and pacing. No sockets, no buffers. */
@Timeout(30)
class FullTierTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final RequestHead POST = new RequestHead("POST", "http", "example.test", 80, "/up", "HTTP/1.1",
      Headers.of("Host", "example.test", "Content-Length", "300"));
  private static final ResponseHead OK = new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Length", "5"));

  private final AtomicLong clock = new AtomicLong(1_000 * MS);
  private RecordedFlow flow;

  @BeforeEach
  void setUp() {
    flow = new RecordedFlow(1, Instant.now(), CapturePolicy.defaults());
    flow.request(POST);
    flow.timings().requestStart(clock.get());
  }

  private FullTier tier(int limit) {
    return new FullTier(flow, clock::get, limit);
  }

  private static ByteBuffer bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) i;
    }
    return ByteBuffer.wrap(b);
  }

  /** Feeds the collected request and returns the draft interception is asked about. */
  private RequestDraft collect(FullTier t, int n) {
    assertThat(t.on(new FullTier.RequestData(bytes(n)))).isEmpty();
    List<FullTier.Command> out = t.on(new FullTier.RequestEnd(Headers.EMPTY));
    assertThat(out).hasSize(1).first().isInstanceOf(FullTier.AskRequest.class);
    return ((FullTier.AskRequest) out.get(0)).original();
  }

  @Test
  void unchangedRequestGoesOutWholeAndUntouched() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    RequestDraft original = collect(t, 300);
    assertThat(original.body()).hasSize(300);
    List<FullTier.Command> out = t.on(new FullTier.RequestDecided(new RequestOutcome.Forward(original), null, null));
    assertThat(out).extracting(c -> c.getClass().getSimpleName())
        .containsExactly("SendRequestHead", "SendRequestData", "SendRequestEnd");
    FullTier.SendRequestData data = (FullTier.SendRequestData) out.get(1);
    assertThat(data.length()).isEqualTo(300);
    assertThat(((FullTier.SendRequestHead) out.get(0)).head().headers().get("content-length")).isEqualTo("300");
    assertThat(flow.originalRequest()).as("not recorded as modified").isNull();
  }

  @Test
  void bodyOverTheCapFailsWith413() {
    FullTier t = tier(100);
    assertThat(t.on(new FullTier.RequestData(bytes(60)))).isEmpty();
    List<FullTier.Command> out = t.on(new FullTier.RequestData(bytes(60)));
    assertThat(out).singleElement().isInstanceOfSatisfying(FullTier.Fail.class, f -> {
      assertThat(f.status()).isEqualTo(413);
      assertThat(f.detail()).contains("request body is larger than");
    });
    assertThat(t.done()).isTrue();
    assertThat(t.on(new FullTier.RequestEnd(Headers.EMPTY))).as("nothing after a failure").isEmpty();
  }

  @Test
  void editedRequestGetsAnExactLengthAndIsRecorded() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    RequestDraft original = collect(t, 300);
    RequestDraft edited = original.withBody("short".getBytes(StandardCharsets.UTF_8))
        .withHeaders(original.headers().plus("Expect", "100-continue"));
    List<FullTier.Command> out = t.on(new FullTier.RequestDecided(new RequestOutcome.Forward(edited), null, null));
    RequestHead sent = ((FullTier.SendRequestHead) out.get(0)).head();
    assertThat(sent.headers().get("content-length")).isEqualTo("5");
    assertThat(sent.headers().contains("expect")).isFalse();
    assertThat(flow.originalRequest()).as("the original is kept").isNotNull();
  }

  /** 300 bytes at 1,000 B/s: 50-byte slices every 50 ms, the end exactly 300 ms after the start. */
  @Test
  void throttlePacesTheRequestInFakeTime() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    RequestDraft original = collect(t, 300);
    long start = clock.get();
    List<FullTier.Command> out = new ArrayList<>(t.on(new FullTier.RequestDecided(
        new RequestOutcome.Forward(original), new RuleAction.Throttle(1_000, 0), null)));
    List<Long> sliceTimes = new ArrayList<>();
    int sent = 0;
    while (true) {
      FullTier.Command last = null;
      for (FullTier.Command c : out) {
        if (c instanceof FullTier.SendRequestData d) {
          assertThat(d.offset()).isEqualTo(sent);
          sent += d.length();
          sliceTimes.add((clock.get() - start) / MS);
        }
        last = c;
      }
      if (last instanceof FullTier.SendRequestEnd) {
        break;
      }
      assertThat(last).isInstanceOf(FullTier.Wake.class);
      clock.addAndGet(((FullTier.Wake) last).delayNanos());
      out = t.on(new FullTier.Tick());
    }
    assertThat(sent).isEqualTo(300);
    assertThat(sliceTimes).containsExactly(0L, 50L, 100L, 150L, 200L, 250L);
    assertThat((clock.get() - start) / MS).as("the body takes length / rate in all").isEqualTo(300);
  }

  /** Time spent collecting counts as already spent: a slow upload is not throttled twice. */
  @Test
  void collectionTimeCountsAgainstTheThrottle() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    t.on(new FullTier.RequestData(bytes(300)));
    clock.addAndGet(200 * MS); // the client took 200 ms to send it
    RequestDraft original = ((FullTier.AskRequest) t.on(new FullTier.RequestEnd(Headers.EMPTY)).get(0)).original();
    long decided = clock.get();
    List<FullTier.Command> out = t.on(new FullTier.RequestDecided(new RequestOutcome.Forward(original),
        new RuleAction.Throttle(1_000, 0), null));
    long total = 0;
    while (!(out.get(out.size() - 1) instanceof FullTier.SendRequestEnd)) {
      FullTier.Wake w = (FullTier.Wake) out.get(out.size() - 1);
      clock.addAndGet(w.delayNanos());
      total += w.delayNanos();
      out = t.on(new FullTier.Tick());
    }
    assertThat(total / MS).as("what is left of 300 ms after 200 ms of collecting").isEqualTo(100);
    assertThat(clock.get() - decided).isEqualTo(100 * MS);
  }

  @Test
  void latencyWaitsBeforeTheHead() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    RequestDraft original = collect(t, 10);
    List<FullTier.Command> out = t.on(new FullTier.RequestDecided(new RequestOutcome.Forward(original),
        new RuleAction.Throttle(0, 250), null));
    assertThat(out).singleElement().isEqualTo(new FullTier.Wake(250 * MS));
    clock.addAndGet(250 * MS);
    assertThat(t.on(new FullTier.Tick())).extracting(c -> c.getClass().getSimpleName())
        .containsExactly("SendRequestHead", "SendRequestData", "SendRequestEnd");
  }

  @Test
  void responseIsCollectedAskedAboutAndDeliveredWithItsEdits() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    RequestDraft original = collect(t, 3);
    t.on(new FullTier.RequestDecided(new RequestOutcome.Forward(original), null, null));
    flow.response(OK); // recorded by the exchange, which hands the head on to the tier
    assertThat(t.on(new FullTier.ResponseHeadArrived(OK))).isEmpty();
    assertThat(t.collectingResponse()).isTrue();
    t.on(new FullTier.ResponseData(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8))));
    List<FullTier.Command> out = t.on(new FullTier.ResponseEnd(Headers.EMPTY));
    assertThat(out.get(0)).isInstanceOf(FullTier.ReleaseUpstream.class);
    FullTier.AskResponse ask = (FullTier.AskResponse) out.get(1);
    assertThat(ask.draft().bodyText()).isEqualTo("hello");
    assertThat(ask.sent()).isEqualTo(original);

    ResponseDraft edited = ask.draft().withBody("hello, edited".getBytes(StandardCharsets.UTF_8)).withStatus(201);
    out = t.on(new FullTier.ResponseDecided(new ResponseOutcome.Deliver(edited), null));
    assertThat(out).extracting(c -> c.getClass().getSimpleName())
        .containsExactly("DeliverHead", "DeliverData", "DeliverEnd");
    ResponseHead head = ((FullTier.DeliverHead) out.get(0)).head();
    assertThat(head.status()).isEqualTo(201);
    assertThat(head.headers().get("content-length")).isEqualTo("13");
    assertThat(flow.originalResponse()).isNotNull();
    assertThat(t.done()).isTrue();
  }

  @Test
  void localAnswerSkipsTheOrigin() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    collect(t, 3);
    List<FullTier.Command> out = t.on(new FullTier.RequestDecided(
        new RequestOutcome.Respond(ResponseDraft.text(404, "mapped\n")), null, null));
    FullTier.AskResponse ask = (FullTier.AskResponse) out.get(0);
    out = t.on(new FullTier.ResponseDecided(new ResponseOutcome.Deliver(ask.draft()), null));
    assertThat(out).extracting(c -> c.getClass().getSimpleName())
        .containsExactly("AnswerLocally", "DeliverData", "DeliverEnd");
    assertThat(((FullTier.AnswerLocally) out.get(0)).head().status()).isEqualTo(404);
  }

  @Test
  void abortsAndFailuresEndTheTier() {
    FullTier t = tier(FullTier.BODY_LIMIT);
    collect(t, 1);
    assertThat(t.on(new FullTier.RequestDecided(new RequestOutcome.Abort(true, "blocked"), null, null)))
        .containsExactly(new FullTier.Abort(true, "blocked"));
    assertThat(t.done()).isTrue();

    FullTier u = tier(FullTier.BODY_LIMIT);
    collect(u, 1);
    assertThat(u.on(new FullTier.RequestDecided(null, null, "boom")))
        .singleElement().isInstanceOfSatisfying(FullTier.Fail.class, f -> assertThat(f.status()).isEqualTo(500));

    FullTier v = tier(4);
    RequestDraft original = collect(v, 1);
    v.on(new FullTier.RequestDecided(new RequestOutcome.Forward(original), null, null));
    v.on(new FullTier.ResponseHeadArrived(OK));
    assertThat(v.on(new FullTier.ResponseData(bytes(5))))
        .singleElement().isInstanceOfSatisfying(FullTier.Fail.class, f -> assertThat(f.status()).isEqualTo(502));
  }
}
