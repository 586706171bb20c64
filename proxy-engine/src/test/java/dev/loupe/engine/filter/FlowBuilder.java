package dev.loupe.engine.filter;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** Builds {@link Flow}s through the flow model's public API, as the engine records them. */
final class FlowBuilder {
  private static final AtomicLong IDS = new AtomicLong();

  private final RecordedFlow flow;

  private FlowBuilder(CapturePolicy capture) {
    flow = new RecordedFlow(IDS.incrementAndGet(), Instant.parse("2026-01-02T03:04:05Z"), capture);
  }

  /** A flow with no request yet. */
  static FlowBuilder empty() {
    return new FlowBuilder(CapturePolicy.defaults());
  }

  static FlowBuilder empty(CapturePolicy capture) {
    return new FlowBuilder(capture);
  }

  /** {@code GET https://api.example.com/v1/users?id=7}, HTTP/1.1, with a browser-ish header or two. */
  static FlowBuilder get() {
    return empty().request("GET", "https", "api.example.com", 443, "/v1/users?id=7",
        "Accept", "application/json", "User-Agent", "Mozilla/5.0");
  }

  FlowBuilder request(String method, String scheme, String host, int port, String target, String... headers) {
    flow.request(new RequestHead(method, scheme, host, port, target, "HTTP/1.1", Headers.of(headers)));
    flow.clientProtocol("HTTP/1.1");
    flow.timings().requestStart(1_000_000_000L);
    return this;
  }

  FlowBuilder requestBody(String text) {
    return requestBody(text.getBytes(StandardCharsets.UTF_8));
  }

  FlowBuilder requestBody(byte[] bytes) {
    flow.requestBody().append(ByteBuffer.wrap(bytes));
    return this;
  }

  FlowBuilder response(int status, String... headers) {
    flow.serverProtocol(flow.serverProtocol() == null ? "HTTP/1.1" : flow.serverProtocol());
    flow.response(new ResponseHead(status, "", "HTTP/1.1", Headers.of(headers)));
    return this;
  }

  FlowBuilder responseBody(String text) {
    return responseBody(text.getBytes(StandardCharsets.UTF_8));
  }

  FlowBuilder responseBody(byte[] bytes) {
    flow.responseBody().append(ByteBuffer.wrap(bytes));
    return this;
  }

  /** Ends the response {@code millis} after the request started. */
  FlowBuilder tookMillis(double millis) {
    flow.timings().responseEnd(flow.timings().requestStartNanos() + (long) (millis * 1_000_000));
    return this;
  }

  FlowBuilder protocols(String client, String server) {
    flow.clientProtocol(client);
    flow.serverProtocol(server);
    return this;
  }

  FlowBuilder tier(FlowTier tier) {
    flow.tier(tier);
    return this;
  }

  FlowBuilder failed(FlowError.Kind kind) {
    flow.fail(new FlowError(kind, "it failed"));
    return this;
  }

  FlowBuilder webSocketMessage(WebSocketMessage.Direction direction, String text) {
    byte[] payload = text.getBytes(StandardCharsets.UTF_8);
    flow.webSocket(true);
    flow.addWebSocketMessage(new WebSocketMessage(direction, WebSocketMessage.TEXT, payload, payload.length,
        Instant.parse("2026-01-02T03:04:06Z")));
    return this;
  }

  RecordedFlow complete() {
    flow.complete();
    return flow;
  }

  /** The flow as it is, possibly still in flight. */
  RecordedFlow build() {
    return flow;
  }
}
