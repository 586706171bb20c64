package dev.loupe.ui.compose;

import dev.loupe.engine.flow.Body;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;

/** Recorded flows built through the engine's setters, for headless tests. */
final class Flows {
  private Flows() {}

  static RecordedFlow get(long id, String url, String serverProtocol) {
    return flow(id, "GET", url, Headers.of("Accept", "*/*"), new byte[0], serverProtocol);
  }

  static RecordedFlow flow(long id, String method, String url, Headers headers, byte[] body, String serverProtocol) {
    RecordedFlow f = new RecordedFlow(id, Instant.parse("2026-12-01T10:00:00Z"),
        new dev.loupe.engine.flow.CapturePolicy(1 << 20, false, Path.of(".")));
    java.net.URI u = java.net.URI.create(url);
    int port = u.getPort() > 0 ? u.getPort() : u.getScheme().equals("https") ? 443 : 80;
    String target = u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery());
    f.request(new RequestHead(method, u.getScheme(), u.getHost(), port, target, "HTTP/1.1", headers));
    f.requestBody().append(ByteBuffer.wrap(body));
    f.clientProtocol("HTTP/1.1");
    f.serverProtocol(serverProtocol);
    return f;
  }

  /** A finished flow answering {@code status} with {@code text}. */
  static RecordedFlow answered(RecordedFlow f, int status, Headers headers, String text) {
    f.response(new ResponseHead(status, status == 200 ? "OK" : "", "HTTP/1.1", headers));
    f.responseBody().append(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
    f.complete();
    return f;
  }

  static Body body(String s) {
    return Body.of(s.getBytes(StandardCharsets.UTF_8));
  }
}
