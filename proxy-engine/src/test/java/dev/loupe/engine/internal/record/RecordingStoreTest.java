package dev.loupe.engine.internal.record;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowEvent;
import dev.loupe.engine.flow.FlowListener;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowStore;
import dev.loupe.engine.flow.WebSocketMessage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class RecordingStoreTest {
  @TempDir Path spillDir;

  private final List<FlowStore.Subscription> subscriptions = new ArrayList<>();

  @AfterEach
  void closeSubscriptions() {
    subscriptions.forEach(FlowStore.Subscription::close);
  }

  // ---- delivery --------------------------------------------------------------------------------

  @Test
  void anInlineListenerHasEveryEventBeforeThePublisherGoesOnAndNoneOnceClosed() {
    RecordingStore store = new RecordingStore();
    List<String> seen = new ArrayList<>();
    Thread publisher = Thread.currentThread();
    FlowStore.Subscription s = store.subscribeInline(e -> {
      assertThat(Thread.currentThread()).isSameAs(publisher);
      seen.add(e.type() + " " + e.flow().id());
    });
    RecordedFlow f = flow(store);
    store.add(f);
    assertThat(seen).containsExactly("ADDED " + f.id());
    store.updated(f);
    store.updated(f); // not coalesced: the listener keeps the newest state itself
    store.completed(f);
    assertThat(seen).containsExactly("ADDED " + f.id(), "UPDATED " + f.id(), "UPDATED " + f.id(),
        "COMPLETED " + f.id());
    assertThat(s.awaitIdle(0, TimeUnit.MILLISECONDS)).isTrue();
    s.close();
    store.add(flow(store));
    assertThat(seen).hasSize(4);
  }

  @Test
  void aThrowingInlineListenerDoesNotStopThePublisherNorTheOtherListeners() {
    RecordingStore store = new RecordingStore();
    RecordingListener queued = new RecordingListener();
    subscribe(store, queued, 100);
    subscriptions.add(store.subscribeInline(e -> {
      throw new IllegalStateException("boom");
    }));
    RecordedFlow f = flow(store);
    store.add(f);
    store.completed(f);
    assertThat(subscriptions.get(0).awaitIdle(30, TimeUnit.SECONDS)).isTrue();
    assertThat(queued.events()).containsExactly("ADDED " + f.id(), "COMPLETED " + f.id());
  }

  @Test
  void eachListenerGetsTheEventsInPublishOrder() {
    RecordingStore store = new RecordingStore();
    RecordingListener a = new RecordingListener();
    RecordingListener b = new RecordingListener();
    FlowStore.Subscription sa = subscribe(store, a, 10_000);
    FlowStore.Subscription sb = subscribe(store, b, 10_000);
    List<String> published = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      RecordedFlow f = flow(store);
      store.add(f);
      published.add("ADDED " + f.id());
      if (i % 2 == 0) {
        store.updated(f);
        published.add("UPDATED " + f.id());
      }
      store.completed(f);
      published.add("COMPLETED " + f.id());
    }
    assertThat(sa.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
    assertThat(sb.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
    // One UPDATED per flow and a roomy queue: nothing to coalesce or drop, so the order is exact.
    assertThat(a.events()).isEqualTo(published);
    assertThat(b.events()).isEqualTo(published);
    assertThat(sa.droppedUpdates()).isZero();
  }

  @Test
  void aListenerOfSomeEventTypesGetsOnlyThoseInPublishOrder() {
    RecordingStore store = new RecordingStore();
    RecordingListener all = new RecordingListener();
    RecordingListener ends = new RecordingListener();
    FlowStore.Subscription sAll = subscribe(store, all, 10_000);
    FlowStore.Subscription sEnds = store.subscribe(ends, 10_000, EnumSet.of(FlowEvent.Type.ADDED, FlowEvent.Type.COMPLETED));
    subscriptions.add(sEnds);
    for (int i = 0; i < 300; i++) {
      RecordedFlow f = flow(store);
      store.add(f);
      store.updated(f);
      store.completed(f);
      if (i % 50 == 0) {
        // Both delivery threads drained their queues, so they park: publishing must wake them again.
        assertThat(sAll.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
        assertThat(sEnds.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
      }
    }
    assertThat(sAll.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
    assertThat(sEnds.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
    assertThat(ends.events()).hasSize(600).isEqualTo(withoutUpdates(all.events()));
    assertThat(all.events()).hasSize(900);
  }

  @Test
  void aBlockedListenerNeverBlocksThePublishers() throws InterruptedException {
    RecordingStore store = new RecordingStore();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch firstEventSeen = new CountDownLatch(1);
    AtomicInteger added = new AtomicInteger();
    AtomicInteger updated = new AtomicInteger();
    AtomicInteger completed = new AtomicInteger();
    AtomicInteger seen = new AtomicInteger();
    FlowStore.Subscription slow = subscribe(store, e -> {
      seen.incrementAndGet();
      firstEventSeen.countDown();
      awaitQuietly(release);
      switch (e.type()) {
        case ADDED -> added.incrementAndGet();
        case UPDATED -> updated.incrementAndGet();
        case COMPLETED -> completed.incrementAndGet();
      }
    }, 100);
    RecordingListener fast = new RecordingListener();
    FlowStore.Subscription quick = subscribe(store, fast, 1_000_000);

    int flows = 25_000; // 4 events each: 100,000 events
    for (int i = 0; i < flows; i++) {
      RecordedFlow f = flow(store);
      store.add(f);
      store.updated(f);
      store.updated(f);
      store.completed(f);
    }
    // Publishing returned while the slow listener is still stuck in its first event: it did not wait.
    assertThat(firstEventSeen.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(seen.get()).isEqualTo(1);
    assertThat(quick.awaitIdle(60, TimeUnit.SECONDS)).as("other listeners are not held up").isTrue();
    assertThat(withoutUpdates(fast.events())).hasSize(2 * flows);

    release.countDown();
    assertThat(slow.awaitIdle(60, TimeUnit.SECONDS)).isTrue();
    assertThat(added.get()).isEqualTo(flows);
    assertThat(completed.get()).isEqualTo(flows);
    assertThat(updated.get()).as("UPDATED coalesced and dropped").isLessThan(2 * flows);
    assertThat(slow.droppedUpdates()).isPositive();
  }

  @Test
  void aThrowingListenerKeepsReceiving() {
    RecordingStore store = new RecordingStore();
    AtomicInteger calls = new AtomicInteger();
    FlowStore.Subscription s = subscribe(store, e -> {
      calls.incrementAndGet();
      throw new IllegalStateException("listener bug");
    }, 100);
    RecordedFlow f = flow(store);
    store.add(f);
    store.completed(f);
    assertThat(s.awaitIdle(30, TimeUnit.SECONDS)).isTrue();
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void aListenerCanCloseItsOwnSubscription() throws InterruptedException {
    RecordingStore store = new RecordingStore();
    AtomicReference<FlowStore.Subscription> self = new AtomicReference<>();
    CountDownLatch closed = new CountDownLatch(1);
    CountDownLatch subscribed = new CountDownLatch(1);
    FlowStore.Subscription s = store.subscribe(e -> {
      awaitQuietly(subscribed);
      self.get().close();
      closed.countDown();
    });
    self.set(s);
    subscribed.countDown();
    store.add(flow(store));
    // close() from the delivery thread must not join that thread (which would wait its full 5 s).
    assertThat(closed.await(4, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void flowsAreKeptInArrivalOrder() {
    RecordingStore store = new RecordingStore();
    List<Flow> added = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      RecordedFlow f = flow(store);
      added.add(f);
      store.add(f);
    }
    assertThat(store.snapshot()).containsExactlyElementsOf(added);
    assertThat(store.size()).isEqualTo(5);
    assertThat(store.get(added.get(2).id())).isSameAs(added.get(2));
    assertThat(added).extracting(Flow::id).isSorted();
  }

  @Test
  void aRollingStoreKeepsTheNewestCompletedFlowsAndEveryFlowInFlight() {
    RecordingStore store = RecordingStore.rolling(3, FlowStore.DEFAULT_MEMORY_BUDGET);
    RecordedFlow longRunning = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
    store.add(longRunning); // oldest, still in flight: never dropped, and eviction stops at it
    List<Flow> done = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
      f.responseBody().append(ByteBuffer.wrap(new byte[1000]));
      store.add(f);
      f.complete();
      store.completed(f);
      done.add(f);
    }
    assertThat(store.size()).as("the in-flight head blocks eviction").isEqualTo(6);

    longRunning.complete();
    store.completed(longRunning);
    assertThat(store.snapshot()).containsExactly(done.get(2), done.get(3), done.get(4));
    assertThat(store.get(longRunning.id())).isNull();
    assertThat(store.heapBytes()).as("evicted bodies no longer count").isEqualTo(3 * 1000);
    assertThat(store.snapshot()).allSatisfy(f -> assertThat(f.state()).isEqualTo(FlowState.COMPLETE));
  }

  @Test
  void aRollingStoreRecyclesTheChunksOfForgottenFlowsForNewBodies() {
    RecordingStore store = RecordingStore.rolling(1, FlowStore.DEFAULT_MEMORY_BUDGET);
    Random r = new Random(3);
    RecordedFlow kept = null;
    byte[] keptBody = null;
    for (int i = 0; i < 6; i++) {
      RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
      byte[] body = new byte[300_000];
      r.nextBytes(body);
      int at = 0;
      while (at < body.length) { // arrives in network-sized pieces
        int n = Math.min(16_384, body.length - at);
        f.responseBody().append(ByteBuffer.wrap(body, at, n));
        at += n;
      }
      int pooledBefore = ChunkPool.SHARED.pooled();
      store.add(f);
      f.complete();
      store.completed(f);
      if (i > 0) {
        assertThat(ChunkPool.SHARED.pooled()).as("the forgotten flow's chunks are back in the pool")
            .isGreaterThan(pooledBefore);
      }
      kept = f;
      keptBody = body;
    }
    // The newest body was captured into recycled chunks: every byte is its own.
    assertThat(store.snapshot()).containsExactly(kept);
    assertThat(kept.responseBody().bytes()).isEqualTo(keptBody);
  }

  @Test
  void aRollingStoreForgetsTheOldestFlowsOverItsBodyBudgetInsteadOfSpilling() {
    RecordingStore store = RecordingStore.rolling(1000, 10_000);
    List<Flow> done = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
      f.responseBody().append(ByteBuffer.wrap(new byte[4096]));
      store.add(f);
      f.complete();
      store.completed(f);
      done.add(f);
    }
    assertThat(store.heapBytes()).isLessThanOrEqualTo(10_000);
    assertThat(store.snapshot()).containsExactly(done.get(8), done.get(9));
    assertThat(done).allSatisfy(f -> assertThat(f.responseBody().spilled()).as("nothing written to disk").isFalse());
  }

  @Test
  void whileCaptureIsPausedNewFlowsAreNeitherKeptNorPublished() {
    RecordingStore store = new RecordingStore();
    AtomicInteger events = new AtomicInteger();
    FlowStore.Subscription s = subscribe(store, e -> events.incrementAndGet(), 100);
    RecordedFlow before = flow(store);
    store.add(before); // recorded, still in flight when capture pauses
    store.capturing(false);
    RecordedFlow during = flow(store);
    store.add(during);
    store.updated(during);
    during.complete();
    store.completed(during);
    before.complete();
    store.completed(before); // a flow recorded before the pause still completes
    store.capturing(true);
    assertThat(s.awaitIdle(10, TimeUnit.SECONDS)).isTrue();
    assertThat(store.snapshot()).containsExactly(before);
    assertThat(events.get()).as("ADDED and COMPLETED of the flow recorded before").isEqualTo(2);
  }

  // ---- memory budget ---------------------------------------------------------------------------

  @Test
  void overTheBudgetTheOldestCompletedFlowsSpill() throws IOException {
    RecordingStore store = new RecordingStore(10_000);
    List<Flow> flows = new ArrayList<>();
    List<byte[]> bodies = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      RecordedFlow f = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
      byte[] body = new byte[4096];
      new Random(i).nextBytes(body);
      f.responseBody().append(ByteBuffer.wrap(body));
      store.add(f);
      f.complete();
      store.completed(f);
      flows.add(f);
      bodies.add(body);
    }
    assertThat(store.heapBytes()).isLessThanOrEqualTo(10_000);
    assertThat(flows).extracting(f -> f.responseBody().spilled()).containsExactly(true, true, true, false, false);
    for (int i = 0; i < 5; i++) {
      assertThat(flows.get(i).responseBody().bytes()).as("flow %d keeps its bytes", i).isEqualTo(bodies.get(i));
    }
    assertThat(spillFiles()).hasSize(3);

    store.clear();
    assertThat(spillFiles()).isEmpty();
    assertThat(store.size()).isZero();
    assertThat(store.heapBytes()).isZero();
  }

  @Test
  void inFlightFlowsAreNotSpilled() {
    RecordingStore store = new RecordingStore(1_000);
    RecordedFlow inFlight = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
    inFlight.responseBody().append(ByteBuffer.wrap(new byte[4096]));
    store.add(inFlight);
    RecordedFlow done = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
    done.responseBody().append(ByteBuffer.wrap(new byte[4096]));
    store.add(done);
    done.complete();
    store.completed(done);
    assertThat(done.responseBody().spilled()).isTrue();
    assertThat(inFlight.responseBody().spilled()).isFalse();
  }

  @Test
  void theBudgetCountsBodiesOnlyWhichIsWhatSpillingFrees() {
    RecordingStore store = new RecordingStore(1_000);
    RecordedFlow ws = new RecordedFlow(store.nextId(), Instant.now(), new CapturePolicy(1 << 20, true, spillDir));
    for (int i = 0; i < 10; i++) {
      ws.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT,
          WebSocketMessage.BINARY, new byte[1000], 1000, Instant.now()));
    }
    store.add(ws);
    ws.complete();
    store.completed(ws);
    assertThat(store.heapBytes()).isZero();
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private FlowStore.Subscription subscribe(RecordingStore store, FlowListener l, int capacity) {
    FlowStore.Subscription s = store.subscribe(l, capacity);
    subscriptions.add(s);
    return s;
  }

  private static RecordedFlow flow(RecordingStore store) {
    return new RecordedFlow(store.nextId(), Instant.now(), CapturePolicy.defaults());
  }

  private static List<String> withoutUpdates(List<String> events) {
    return events.stream().filter(e -> !e.startsWith("UPDATED")).toList();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private List<Path> spillFiles() throws IOException {
    try (Stream<Path> s = Files.list(spillDir)) {
      return s.toList();
    }
  }

  /** Records "TYPE id" for every event, on the delivery thread. */
  private static final class RecordingListener implements FlowListener {
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onFlowEvent(FlowEvent event) {
      events.add(event.type() + " " + event.flow().id());
    }

    List<String> events() {
      synchronized (events) {
        return new ArrayList<>(events);
      }
    }
  }
}
