package dev.loupe.engine.internal.store;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowState;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.Timings;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordedTimings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything a stored (or imported) flow holds, turned back into a {@link Flow}. This is the one
 * place that builds flows from saved data, so a change to how flows are recorded touches only it.
 *
 * <h3>Timings</h3>
 * {@link #timings} holds the raw {@code System.nanoTime()} readings of the process that recorded the
 * flow, in {@link #TIMING_NAMES} order (0 = did not happen). Only their differences mean anything,
 * so they are shifted as a whole to end at the moment of rebuilding; every duration stays exact.
 *
 * <h3>Flows saved in flight</h3>
 * A flow still in flight when it was last written (Loupe was killed, or the session closed with a
 * WebSocket open) comes back failed, with {@link #INCOMPLETE} as the reason: it never ended.
 *
 * <p>Not thread-safe; one builder per flow.
 */
final class FlowBuilder {
  static final List<String> TIMING_NAMES = List.of("requestStart", "dnsStart", "dnsEnd", "connectStart",
      "connectEnd", "tlsStart", "tlsEnd", "sendStart", "sendEnd", "responseStart", "responseEnd", "failedAt");
  static final String INCOMPLETE = "the flow was still in flight when the session was last saved";
  private static final ByteBuffer FILLER = ByteBuffer.allocate(64 * 1024).asReadOnlyBuffer();

  long id;
  Instant startedAt = Instant.EPOCH;
  FlowState state = FlowState.COMPLETE;
  FlowTier tier = FlowTier.RELAY;
  String clientProtocol;
  String serverProtocol;
  int clientStreamId = -1;
  int serverStreamId = -1;
  String clientQuicConnectionId;
  String serverQuicConnectionId;
  String http3Status;
  ConnectionInfo clientConnection;
  ConnectionInfo serverConnection;
  RequestHead request;
  RequestHead originalRequest;
  ResponseHead response;
  ResponseHead originalResponse;
  final List<ResponseHead> informational = new ArrayList<>();
  Headers requestTrailers = Headers.EMPTY;
  Headers responseTrailers = Headers.EMPTY;
  FlowError error;
  boolean webSocket;
  int webSocketCloseCode = -1;
  String webSocketCloseReason;
  long tunnelUp;
  long tunnelDown;
  final List<String> modifiedBy = new ArrayList<>();
  long replayOf = -1;
  String client;
  final List<String> notes = new ArrayList<>();
  final long[] timings = new long[TIMING_NAMES.size()];
  final List<WebSocketMessage> messages = new ArrayList<>();
  StoredBody requestBody;
  StoredBody responseBody;
  StoredBody originalRequestBody;
  StoredBody originalResponseBody;

  /** The raw timing readings of {@code t}, in {@link #TIMING_NAMES} order. */
  static long[] readings(Timings t) {
    return new long[] {t.requestStartNanos(), t.dnsStartNanos(), t.dnsEndNanos(), t.connectStartNanos(),
        t.connectEndNanos(), t.tlsStartNanos(), t.tlsEndNanos(), t.sendStartNanos(), t.sendEndNanos(),
        t.responseStartNanos(), t.responseEndNanos(), t.failedAtNanos()};
  }

  /**
   * The flow. Bodies with content go to memory up to 1 MiB each and to spill files in
   * {@code spillDir} beyond; bodies without content (sizes only) keep their sizes and no bytes.
   */
  RecordedFlow build(Path spillDir) throws IOException {
    // each body under its own policy: a shared one would keep a cut body's unkept tail as filler
    // bytes whenever the other body kept more
    RecordedFlow f = new RecordedFlow(id, startedAt, policy(spillDir, primary(requestBody, originalRequestBody)),
        policy(spillDir, primary(responseBody, originalResponseBody)));
    f.tier(tier);
    f.clientProtocol(clientProtocol);
    f.serverProtocol(serverProtocol);
    f.clientStreamId(clientStreamId);
    f.serverStreamId(serverStreamId);
    f.clientQuicConnectionId(clientQuicConnectionId);
    f.serverQuicConnectionId(serverQuicConnectionId);
    f.http3Status(http3Status);
    f.clientConnection(clientConnection);
    f.client(client); // after the connection, which may have guessed a label from the listening address
    f.serverConnection(serverConnection);
    if (originalRequest != null && request != null) {
      f.request(originalRequest);
      fill(f.requestBody(), originalRequestBody);
      f.requestModified(request, standalone(requestBody, spillDir));
    } else {
      f.request(request);
      fill(f.requestBody(), requestBody);
    }
    for (ResponseHead r : informational) {
      f.response(r);
    }
    if (originalResponse != null && response != null) {
      f.response(originalResponse);
      fill(f.responseBody(), originalResponseBody);
      f.responseModified(response, standalone(responseBody, spillDir));
    } else {
      if (response != null) {
        f.response(response);
      }
      fill(f.responseBody(), responseBody);
    }
    f.requestTrailers(requestTrailers);
    f.responseTrailers(responseTrailers);
    f.webSocket(webSocket);
    messages.forEach(f::addWebSocketMessage);
    if (webSocketCloseCode >= 0) {
      f.webSocketClosed(webSocketCloseCode, webSocketCloseReason);
    }
    if (tunnelUp != 0 || tunnelDown != 0) {
      f.addTunnelBytes(tunnelUp, tunnelDown);
    }
    modifiedBy.forEach(f::modifiedBy);
    notes.forEach(f::note);
    f.replayOf(replayOf);
    if (state == FlowState.COMPLETE) {
      f.complete();
      restoreTimings(f.timings(), System.nanoTime(), latestReading());
    } else {
      f.fail(error != null ? error : new FlowError(FlowError.Kind.INTERNAL, INCOMPLETE));
      long failedAt = timings[11];
      restoreTimings(f.timings(), f.timings().failedAtNanos(), failedAt != 0 ? failedAt : latestReading());
    }
    return f;
  }

  /** The body that lands in the flow's own body (the original, when the message was changed). */
  private static StoredBody primary(StoredBody current, StoredBody original) {
    return original != null ? original : current;
  }

  private long latestReading() {
    long latest = 0;
    boolean any = false;
    for (long t : timings) {
      if (t != 0 && (!any || t - latest > 0)) {
        latest = t;
        any = true;
      }
    }
    return latest;
  }

  /** Sets every non-zero reading shifted so that {@code anchor} lands on {@code now}. */
  private void restoreTimings(RecordedTimings t, long now, long anchor) {
    long[] r = new long[timings.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = timings[i] == 0 ? 0 : now + (timings[i] - anchor);
    }
    t.requestStart(r[0]);
    t.dnsStart(r[1]);
    t.dnsEnd(r[2]);
    t.connectStart(r[3]);
    t.connectEnd(r[4]);
    t.tlsStart(r[5]);
    t.tlsEnd(r[6]);
    t.sendStart(r[7]);
    t.sendEnd(r[8]);
    t.responseStart(r[9]);
    t.responseEnd(r[10]);
    // r[11], failedAt: set by fail() to now, which is where the anchor went
  }

  /**
   * The capture policy a body needs to come back as it was: 1 MiB in memory and a spill file for the
   * rest when it was kept whole; exactly its kept bytes and no spill when it was truncated (the
   * remaining size is then only counted); nothing when only sizes are read.
   */
  private static CapturePolicy policy(Path spillDir, StoredBody... bodies) {
    long cap = 0;
    boolean truncated = false;
    boolean content = false;
    for (StoredBody b : bodies) {
      if (b == null) {
        continue;
      }
      content |= b.content() != null;
      if (b.truncated()) {
        truncated = true;
        cap = Math.max(cap, b.captured());
      }
    }
    if (!content) {
      return new CapturePolicy(0, false, spillDir);
    }
    if (truncated) {
      for (StoredBody b : bodies) {
        cap = Math.max(cap, b == null ? 0 : b.captured());
      }
      return new CapturePolicy((int) Math.min(cap, Integer.MAX_VALUE - 16), false, spillDir);
    }
    return new CapturePolicy(CapturePolicy.DEFAULT_MEMORY_CAP, true, spillDir);
  }

  private static RecordedBody standalone(StoredBody b, Path spillDir) throws IOException {
    RecordedBody body = new RecordedBody(policy(spillDir, b));
    fill(body, b);
    body.complete();
    return body;
  }

  /** Appends the kept bytes, then counts what was seen and not kept (only counted, never held). */
  private static void fill(RecordedBody body, StoredBody b) throws IOException {
    if (b == null) {
      return;
    }
    long appended = 0;
    if (b.content() != null) {
      byte[] chunk = new byte[64 * 1024];
      try (InputStream in = b.content().open()) {
        int n;
        while (appended < b.captured() && (n = in.read(chunk, 0, (int) Math.min(chunk.length, b.captured() - appended))) > 0) {
          body.append(ByteBuffer.wrap(chunk, 0, n));
          appended += n;
        }
      }
      if (appended != b.captured()) {
        throw new IOException("a stored body holds " + appended + " bytes, " + b.captured() + " expected");
      }
    }
    long rest = b.size() - appended;
    while (rest > 0) {
      int n = (int) Math.min(rest, FILLER.capacity());
      body.append(FILLER.duplicate().limit(n));
      rest -= n;
    }
  }
}
