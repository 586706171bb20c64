package dev.loupe.engine.fuzz;

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
import java.util.List;

/** A few flows of every shape (completed, failed, WebSocket, tunnel, bare) for fuzz targets to match against. */
final class FuzzFlows {
  private static final Instant T = Instant.parse("2026-12-01T10:00:00Z");

  private FuzzFlows() {}

  static List<Flow> sample() {
    RecordedFlow json = flow(1, new RequestHead("GET", "https", "api.example.com", 443, "/v1/users?id=7", "HTTP/2",
        Headers.of("accept", "application/json", "cookie", "a=b")));
    json.clientProtocol("HTTP/2");
    json.serverProtocol("HTTP/1.1");
    json.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "application/json",
        "Set-Cookie", "s=1; Path=/")));
    json.responseBody().append(ByteBuffer.wrap("{\"id\":7,\"name\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8)));
    json.timings().responseEnd(json.timings().requestStartNanos() + 42_000_000L);
    json.complete();

    RecordedFlow form = flow(2, new RequestHead("POST", "http", "127.0.0.1", 8080, "/form", "HTTP/1.1",
        Headers.of("Content-Type", "application/x-www-form-urlencoded")));
    form.requestBody().append(ByteBuffer.wrap("a=1&b=%20".getBytes(StandardCharsets.US_ASCII)));
    form.response(new ResponseHead(500, "", "HTTP/1.1", Headers.of("content-type", "text/html")));
    form.tier(FlowTier.FULL);
    form.complete();

    RecordedFlow failed = flow(3, new RequestHead("GET", "https", "::1", 8443, "/", "HTTP/1.1", Headers.EMPTY));
    failed.fail(new FlowError(FlowError.Kind.CONNECT_REFUSED, "refused"));

    RecordedFlow ws = flow(4, new RequestHead("GET", "https", "ws.example", 443, "/chat", "HTTP/1.1",
        Headers.of("Upgrade", "websocket", "Connection", "Upgrade")));
    ws.response(new ResponseHead(101, "Switching Protocols", "HTTP/1.1", Headers.EMPTY));
    ws.webSocket(true);
    byte[] text = "{\"hi\":1}".getBytes(StandardCharsets.UTF_8);
    ws.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, WebSocketMessage.TEXT,
        text, text.length, T));

    RecordedFlow tunnel = flow(5, new RequestHead("CONNECT", "https", "bank.example", 443, "bank.example:443", "HTTP/1.1",
        Headers.EMPTY));
    tunnel.tier(FlowTier.TUNNEL);
    tunnel.complete();

    RecordedFlow bare = new RecordedFlow(6, T, CapturePolicy.defaults());
    return List.of(json, form, failed, ws, tunnel, bare);
  }

  private static RecordedFlow flow(long id, RequestHead request) {
    RecordedFlow f = new RecordedFlow(id, T, CapturePolicy.defaults());
    f.clientProtocol(request.httpVersion());
    f.request(request);
    f.timings().requestStart(1_000_000_000L);
    return f;
  }
}
