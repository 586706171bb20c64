package dev.loupe.engine.api.session;

import dev.loupe.engine.api.session.model.FlowDigest;
import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.internal.record.RecordedFlow;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.zip.GZIPOutputStream;

/** Flows for the diff tests, built as a fluent description ({@code get("http://h/a").status(500)}). */
final class DiffFlows {
  private static long nextId = 1;

  private DiffFlows() {}

  static Spec get(String url) {
    return new Spec("GET", url);
  }

  static Spec request(String method, String url) {
    return new Spec(method, url);
  }

  static byte[] gzip(byte[] b) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (GZIPOutputStream z = new GZIPOutputStream(out)) {
        z.write(b);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** One flow to build. */
  static final class Spec {
    final String method;
    final String url;
    long id = -1;
    int status = 200;
    Headers requestHeaders = Headers.of("Accept", "*/*");
    Headers responseHeaders = Headers.of("Content-Type", "text/plain");
    byte[] requestBody = new byte[0];
    byte[] responseBody = utf8("hello");
    double durationMs = 10;
    FlowError error;
    int memoryCap = CapturePolicy.DEFAULT_MEMORY_CAP;
    final java.util.List<dev.loupe.engine.flow.WebSocketMessage> messages = new java.util.ArrayList<>();

    Spec(String method, String url) {
      this.method = method;
      this.url = url;
    }

    Spec id(long v) {
      id = v;
      return this;
    }

    Spec status(int v) {
      status = v;
      return this;
    }

    Spec requestHeaders(String... pairs) {
      requestHeaders = Headers.of(pairs);
      return this;
    }

    Spec responseHeaders(String... pairs) {
      responseHeaders = Headers.of(pairs);
      return this;
    }

    Spec requestBody(byte[] b) {
      requestBody = b;
      return this;
    }

    Spec responseBody(byte[] b) {
      responseBody = b;
      return this;
    }

    Spec responseBody(String s) {
      return responseBody(utf8(s));
    }

    Spec duration(double ms) {
      durationMs = ms;
      return this;
    }

    Spec error(FlowError.Kind kind, String message) {
      error = new FlowError(kind, message);
      return this;
    }

    /** A WebSocket message (the flow becomes a WebSocket, answered 101); {@code length} beyond the payload: cut. */
    Spec message(boolean fromClient, int opcode, byte[] payload, long length) {
      messages.add(new dev.loupe.engine.flow.WebSocketMessage(fromClient
          ? dev.loupe.engine.flow.WebSocketMessage.Direction.CLIENT_TO_SERVER
          : dev.loupe.engine.flow.WebSocketMessage.Direction.SERVER_TO_CLIENT, opcode, payload, length,
          Instant.parse("2026-03-01T10:00:01Z").plusMillis(messages.size())));
      status = 101;
      responseBody = new byte[0];
      return this;
    }

    Spec text(boolean fromClient, String payload) {
      byte[] b = utf8(payload);
      return message(fromClient, 1, b, b.length);
    }

    /** Bodies beyond this are counted, not kept. */
    Spec keep(int bytes) {
      memoryCap = bytes;
      return this;
    }

    /** The flow, ended (complete, or failed with {@link #error}). */
    RecordedFlow flow(Path spill) {
      RecordedFlow f = new RecordedFlow(id >= 0 ? id : nextId++, Instant.parse("2026-03-01T10:00:00Z"),
          new CapturePolicy(memoryCap, memoryCap >= CapturePolicy.DEFAULT_MEMORY_CAP, spill));
      // scheme://host[:port][target], taken apart by hand: targets may hold what URI refuses ('|')
      String scheme = url.substring(0, url.indexOf("://"));
      String rest = url.substring(scheme.length() + 3);
      int cut = rest.length();
      for (char c : new char[] {'/', '?'}) {
        int i = rest.indexOf(c);
        cut = i >= 0 ? Math.min(cut, i) : cut;
      }
      String authority = rest.substring(0, cut);
      String target = cut == rest.length() ? "/" : rest.charAt(cut) == '?' ? "/" + rest.substring(cut) : rest.substring(cut);
      int colon = authority.lastIndexOf(':');
      String host = colon >= 0 ? authority.substring(0, colon) : authority;
      int port = colon >= 0 ? Integer.parseInt(authority.substring(colon + 1)) : scheme.equals("https") ? 443 : 80;
      f.timings().requestStart(1_000_000_000L);
      f.request(new RequestHead(method, scheme, host, port, target, "HTTP/1.1", requestHeaders));
      f.requestBody().append(ByteBuffer.wrap(requestBody));
      f.requestBody().complete();
      if (error != null && status == 0) {
        f.fail(error);
        return f;
      }
      f.response(new ResponseHead(status, "", "HTTP/1.1", responseHeaders));
      f.responseBody().append(ByteBuffer.wrap(responseBody));
      f.responseBody().complete();
      if (!messages.isEmpty()) {
        f.webSocket(true);
        messages.forEach(f::addWebSocketMessage);
      }
      f.timings().responseEnd(1_000_000_000L + (long) (durationMs * 1_000_000));
      if (error != null) {
        f.fail(error);
      } else {
        f.complete();
      }
      return f;
    }

    FlowDigest digest() {
      try {
        return FlowDigest.of(flow(Path.of(System.getProperty("java.io.tmpdir"))));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
