package dev.loupe.engine.flow.har;

import dev.loupe.engine.flow.CapturePolicy;
import dev.loupe.engine.flow.ConnectionInfo;
import dev.loupe.engine.flow.Flow;
import dev.loupe.engine.flow.FlowError;
import dev.loupe.engine.flow.FlowTier;
import dev.loupe.engine.flow.Headers;
import dev.loupe.engine.flow.RequestHead;
import dev.loupe.engine.flow.ResponseHead;
import dev.loupe.engine.flow.TlsInfo;
import dev.loupe.engine.flow.WebSocketMessage;
import dev.loupe.engine.internal.record.RecordedBody;
import dev.loupe.engine.internal.record.RecordedFlow;
import dev.loupe.engine.internal.record.RecordedTimings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Realistic flows built the way the engine builds them (heads, appended body chunks, nanoTime
 * timings, connections), each with the bytes a HAR reader should get back. Deterministic: fixed
 * start times, fixed nanoTime readings and seeded random bodies, so the HAR text is stable.
 */
final class HarFixtures {
  /** A flow and what its HAR entry must decode to (null: no body expected). */
  record Case(String name, Flow flow, byte[] requestBody, byte[] responseContent) {}

  static final Instant T0 = Instant.parse("2026-11-30T02:10:18.123Z");
  private static final long NANO0 = 5_000_000_000L;
  private static final CapturePolicy MEMORY = new CapturePolicy(CapturePolicy.DEFAULT_MEMORY_CAP, false, Path.of("."));

  private long nextId = 1;
  private final Path spillDir;

  HarFixtures(Path spillDir) {
    this.spillDir = spillDir;
  }

  /** Everything: small cases plus a body spilled past a small memory cap. */
  List<Case> all() {
    List<Case> out = new ArrayList<>(small());
    out.add(spilledBinary());
    out.add(truncatedText());
    return out;
  }

  /** The cases whose HAR stays small enough for a golden file. */
  List<Case> small() {
    return List.of(
        getWithQueryAndCookies(),
        postJson(),
        postBinary(),
        postForm(),
        gzipResponse(),
        deflateResponse(),
        brotliResponse(),
        corruptGzipResponse(),
        failedBeforeResponse(),
        serverResetMidBody(),
        tunnel(),
        tunnelRefused(),
        webSocket(),
        ipv6Server(),
        awkwardUrl());
  }

  // ---- cases -----------------------------------------------------------------------------------

  Case getWithQueryAndCookies() {
    RecordedFlow f = flow(0, CapturePolicy.defaults());
    f.clientProtocol("HTTP/2");
    f.serverProtocol("HTTP/2");
    f.request(new RequestHead("GET", "https", "shop.example", 443,
        "/search?q=red+shoes&size=42&lang=en%2DGB&flag&tick=%E2%9C%93", "HTTP/2",
        Headers.of("user-agent", "curl/7.88.1", "accept", "*/*", "cookie", "session=abc123; theme=dark",
            "cookie", "consent=yes")));
    byte[] html = "<!doctype html><p>Red shoes \u2713</p>\n".getBytes(StandardCharsets.UTF_8);
    f.response(new ResponseHead(200, "", "HTTP/2", Headers.of(
        "content-type", "text/html; charset=utf-8",
        "content-length", Integer.toString(html.length),
        "set-cookie", "sid=xyz; Path=/; Domain=shop.example; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly; Secure",
        "set-cookie", "pref=compact; Max-Age=3600; SameSite=Lax")));
    append(f.responseBody(), html, 7);
    fullTimings(f.timings(), true);
    connect(f, 11, "192.0.2.10", 443, true);
    f.complete();
    return new Case("get-query-cookies", f, null, html);
  }

  Case postJson() {
    RecordedFlow f = flow(1, CapturePolicy.defaults());
    f.clientProtocol("HTTP/1.1");
    f.serverProtocol("HTTP/1.1");
    byte[] json = "{\"name\":\"Zo\u00eb\",\"tags\":[\"a\",\"b\"],\"n\":1}".getBytes(StandardCharsets.UTF_8);
    f.request(new RequestHead("POST", "http", "api.example", 8080, "/v1/items", "HTTP/1.1",
        Headers.of("Host", "api.example:8080", "Content-Type", "application/json",
            "Content-Length", Integer.toString(json.length))));
    append(f.requestBody(), json, 5);
    byte[] created = "{\"id\":17}".getBytes(StandardCharsets.UTF_8);
    f.response(new ResponseHead(201, "Created", "HTTP/1.1", Headers.of(
        "Content-Type", "application/json", "Location", "/v1/items/17", "Content-Length", "9")));
    append(f.responseBody(), created, 100);
    pooledTimings(f.timings());
    connect(f, 12, "198.51.100.7", 8080, false);
    f.complete();
    return new Case("post-json", f, json, created);
  }

  Case postBinary() {
    RecordedFlow f = flow(2, CapturePolicy.defaults());
    byte[] blob = random(4096, 2);
    f.request(new RequestHead("POST", "https", "upload.example", 443, "/blob", "HTTP/1.1",
        Headers.of("Host", "upload.example", "Content-Type", "application/octet-stream",
            "Content-Length", "4096")));
    append(f.requestBody(), blob, 1000);
    f.response(new ResponseHead(204, "No Content", "HTTP/1.1", Headers.EMPTY));
    pooledTimings(f.timings());
    connect(f, 13, "203.0.113.5", 443, true);
    f.complete();
    return new Case("post-binary", f, blob, null);
  }

  Case postForm() {
    RecordedFlow f = flow(3, CapturePolicy.defaults());
    byte[] form = "user=ann+lee&note=50%25+off%26more&empty=".getBytes(StandardCharsets.US_ASCII);
    f.request(new RequestHead("POST", "https", "login.example", 443, "/login", "HTTP/1.1",
        Headers.of("Host", "login.example", "Content-Type", "application/x-www-form-urlencoded")));
    append(f.requestBody(), form, 64);
    f.response(new ResponseHead(302, "Found", "HTTP/1.1",
        Headers.of("Location", "https://login.example/home", "Content-Length", "0")));
    pooledTimings(f.timings());
    connect(f, 14, "203.0.113.6", 443, true);
    f.complete();
    return new Case("post-form", f, form, null);
  }

  Case gzipResponse() {
    RecordedFlow f = flow(4, CapturePolicy.defaults());
    byte[] json = repeat("{\"item\":\"caf\u00e9\",\"ok\":true},", 200).getBytes(StandardCharsets.UTF_8);
    byte[] gz = gzip(json);
    f.request(get("cdn.example", "/data.json"));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of(
        "Content-Type", "application/json; charset=UTF-8", "Content-Encoding", "gzip",
        "Content-Length", Integer.toString(gz.length))));
    append(f.responseBody(), gz, 333);
    fullTimings(f.timings(), true);
    connect(f, 15, "192.0.2.20", 443, true);
    f.complete();
    return new Case("gzip", f, null, json);
  }

  Case deflateResponse() {
    RecordedFlow f = flow(5, CapturePolicy.defaults());
    byte[] text = repeat("deflated line\n", 50).getBytes(StandardCharsets.US_ASCII);
    f.request(get("old.example", "/notes.txt"));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of(
        "Content-Type", "text/plain", "Content-Encoding", "deflate")));
    append(f.responseBody(), deflate(text), 50);
    pooledTimings(f.timings());
    connect(f, 16, "192.0.2.21", 443, true);
    f.complete();
    return new Case("deflate", f, null, text);
  }

  Case brotliResponse() {
    RecordedFlow f = flow(6, CapturePolicy.defaults());
    // Not real brotli: Loupe cannot decode br, so any bytes must come back raw and unchanged.
    byte[] br = random(300, 6);
    f.request(get("br.example", "/app.js"));
    f.response(new ResponseHead(200, "", "HTTP/2", Headers.of(
        "content-type", "text/javascript", "content-encoding", "br")));
    append(f.responseBody(), br, 128);
    pooledTimings(f.timings());
    connect(f, 17, "192.0.2.22", 443, true);
    f.complete();
    return new Case("brotli", f, null, br);
  }

  Case corruptGzipResponse() {
    RecordedFlow f = flow(7, CapturePolicy.defaults());
    byte[] bad = gzip("this will be cut".getBytes(StandardCharsets.US_ASCII));
    bad[bad.length / 2] ^= 0x5A;
    bad[bad.length / 2 + 1] ^= 0x33;
    f.request(get("broken.example", "/x"));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of(
        "Content-Type", "text/plain", "Content-Encoding", "gzip")));
    append(f.responseBody(), bad, 1000);
    pooledTimings(f.timings());
    connect(f, 18, "192.0.2.23", 443, true);
    f.complete();
    return new Case("corrupt-gzip", f, null, bad);
  }

  Case failedBeforeResponse() {
    RecordedFlow f = flow(8, CapturePolicy.defaults());
    f.clientProtocol("HTTP/1.1");
    f.request(new RequestHead("GET", "http", "nosuch.test", 80, "/", "HTTP/1.1", Headers.of("Host", "nosuch.test")));
    f.clientConnection(new ConnectionInfo(40, addr("127.0.0.1", 51514), addr("127.0.0.1", 8080), null, false));
    RecordedTimings t = f.timings();
    t.requestStart(NANO0);
    t.dnsStart(NANO0 + 200_000);
    f.fail(new FlowError(FlowError.Kind.DNS, "DNS lookup failed for nosuch.test"));
    return new Case("failed-dns", f, null, null);
  }

  Case serverResetMidBody() {
    RecordedFlow f = flow(9, CapturePolicy.defaults());
    byte[] part = "partial body".getBytes(StandardCharsets.US_ASCII);
    f.request(get("flaky.example", "/big.txt"));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1",
        Headers.of("Content-Type", "text/plain", "Content-Length", "100000")));
    append(f.responseBody(), part, 5);
    RecordedTimings t = f.timings();
    t.requestStart(NANO0);
    t.sendStart(NANO0 + 10_000);
    t.sendEnd(NANO0 + 20_000);
    t.responseStart(NANO0 + 5_020_000);
    connect(f, 19, "192.0.2.24", 443, true);
    f.fail(new FlowError(FlowError.Kind.SERVER_RESET, "flaky.example reset the connection"));
    return new Case("reset-mid-body", f, null, part);
  }

  Case tunnel() {
    RecordedFlow f = flow(10, CapturePolicy.defaults());
    f.tier(FlowTier.TUNNEL);
    f.clientProtocol("HTTP/1.1");
    f.request(new RequestHead("CONNECT", "https", "pinned.example", 443, "pinned.example:443", "HTTP/1.1",
        Headers.of("Host", "pinned.example:443", "Proxy-Connection", "keep-alive")));
    RecordedTimings t = f.timings();
    t.requestStart(NANO0);
    t.dnsStart(NANO0 + 100_000);
    t.dnsEnd(NANO0 + 1_100_000);
    t.connectStart(NANO0 + 1_200_000);
    t.connectEnd(NANO0 + 11_200_000);
    f.addTunnelBytes(517, 4242);
    f.addTunnelBytes(100, 1000);
    connect(f, 20, "192.0.2.30", 443, false);
    f.complete();
    return new Case("tunnel", f, null, null);
  }

  Case tunnelRefused() {
    RecordedFlow f = flow(11, CapturePolicy.defaults());
    f.tier(FlowTier.TUNNEL);
    f.request(new RequestHead("CONNECT", "https", "down.example", 8443, "down.example:8443", "HTTP/1.1",
        Headers.of("Host", "down.example:8443")));
    RecordedTimings t = f.timings();
    t.requestStart(NANO0);
    t.connectStart(NANO0 + 50_000);
    f.fail(new FlowError(FlowError.Kind.CONNECT_REFUSED, "down.example:8443 refused the connection"));
    return new Case("tunnel-refused", f, null, null);
  }

  Case webSocket() {
    RecordedFlow f = flow(12, CapturePolicy.defaults());
    f.tier(FlowTier.FULL);
    f.request(new RequestHead("GET", "https", "chat.example", 443, "/socket", "HTTP/1.1", Headers.of(
        "Host", "chat.example", "Upgrade", "websocket", "Connection", "Upgrade",
        "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version", "13")));
    f.response(new ResponseHead(101, "Switching Protocols", "HTTP/1.1", Headers.of(
        "Upgrade", "websocket", "Connection", "Upgrade", "Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")));
    f.webSocket(true);
    Instant t1 = T0.plusMillis(250);
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, WebSocketMessage.TEXT,
        "hello \u00fcber".getBytes(StandardCharsets.UTF_8), 11, t1));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, WebSocketMessage.BINARY,
        new byte[] {0, 1, 2, (byte) 0xFF, (byte) 0x80, 0x7F}, 6, t1.plusNanos(1_234_567)));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.SERVER_TO_CLIENT, WebSocketMessage.TEXT,
        "cut".getBytes(StandardCharsets.UTF_8), 1000, t1.plusSeconds(1)));
    f.addWebSocketMessage(new WebSocketMessage(WebSocketMessage.Direction.CLIENT_TO_SERVER, WebSocketMessage.CLOSE,
        new byte[] {0x03, (byte) 0xE8}, 2, t1.plusSeconds(2)));
    f.webSocketClosed(1000, "");
    fullTimings(f.timings(), true);
    connect(f, 21, "192.0.2.40", 443, true);
    f.complete();
    return new Case("websocket", f, null, null);
  }

  Case ipv6Server() {
    RecordedFlow f = flow(13, CapturePolicy.defaults());
    f.request(new RequestHead("GET", "https", "2001:db8::1", 443, "/v6", "HTTP/1.1", Headers.of("Host", "[2001:db8::1]")));
    byte[] body = "six".getBytes(StandardCharsets.US_ASCII);
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain")));
    append(f.responseBody(), body, 10);
    fullTimings(f.timings(), true);
    connect(f, 22, "2001:db8::1", 443, true);
    f.complete();
    return new Case("ipv6", f, null, body);
  }

  Case awkwardUrl() {
    RecordedFlow f = flow(14, CapturePolicy.defaults());
    // What some clients really send: raw spaces, braces, pipes and UTF-8 in the target.
    f.request(new RequestHead("GET", "http", "legacy.example", 80, "/a b/{x}|y?q=caf\u00e9&r=100%", "HTTP/1.1",
        Headers.of("Host", "legacy.example")));
    f.response(new ResponseHead(404, "Not Found", "HTTP/1.1", Headers.of("Content-Length", "0")));
    pooledTimings(f.timings());
    connect(f, 23, "192.0.2.50", 80, false);
    f.complete();
    return new Case("awkward-url", f, null, null);
  }

  /** A 300 KiB PNG-typed body, of which 4 KiB stay in memory and the rest spills to a file. */
  Case spilledBinary() {
    RecordedFlow f = flow(15, new CapturePolicy(4096, true, spillDir));
    byte[] png = random(300 * 1024, 15);
    f.request(get("img.example", "/large.png"));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of(
        "Content-Type", "image/png", "Content-Length", Integer.toString(png.length))));
    append(f.responseBody(), png, 16 * 1024 + 3);
    fullTimings(f.timings(), false);
    connect(f, 24, "192.0.2.60", 443, true);
    f.complete();
    if (!f.responseBody().spilled()) {
      throw new AssertionError("fixture should have spilled");
    }
    return new Case("spilled-binary", f, null, png);
  }

  /** Spilling off, 1 KiB cap: 10 KiB of text arrive, 1 KiB is kept and the body is truncated. */
  Case truncatedText() {
    RecordedFlow f = flow(16, new CapturePolicy(1024, false, spillDir));
    byte[] text = repeat("0123456789abcdef", 640).getBytes(StandardCharsets.US_ASCII);
    f.request(get("logs.example", "/tail"));
    f.response(new ResponseHead(200, "OK", "HTTP/1.1", Headers.of("Content-Type", "text/plain")));
    append(f.responseBody(), text, 700);
    pooledTimings(f.timings());
    connect(f, 25, "192.0.2.61", 443, true);
    f.complete();
    return new Case("truncated-text", f, null, java.util.Arrays.copyOf(text, 1024));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private RecordedFlow flow(int offsetSeconds, CapturePolicy capture) {
    return new RecordedFlow(nextId++, T0.plusSeconds(offsetSeconds), capture);
  }

  static RequestHead get(String host, String target) {
    return new RequestHead("GET", "https", host, 443, target, "HTTP/1.1", Headers.of("Host", host, "Accept", "*/*"));
  }

  /** Appends {@code bytes} in chunks of {@code chunk}, as a leg's reads would. */
  static void append(RecordedBody body, byte[] bytes, int chunk) {
    for (int off = 0; off < bytes.length; off += chunk) {
      body.append(ByteBuffer.wrap(bytes, off, Math.min(chunk, bytes.length - off)));
    }
  }

  /** A fresh connection: DNS, TCP connect, TLS (if {@code tls}), send, wait, receive. */
  static void fullTimings(RecordedTimings t, boolean tls) {
    long n = NANO0;
    t.requestStart(n);
    t.dnsStart(n + 120_000);
    t.dnsEnd(n + 2_620_123);
    t.connectStart(n + 2_700_000);
    t.connectEnd(n + 14_700_456);
    long afterConnect = n + 14_700_456;
    if (tls) {
      t.tlsStart(n + 14_750_000);
      t.tlsEnd(n + 40_750_789);
      afterConnect = n + 40_750_789;
    }
    t.sendStart(afterConnect + 30_000);
    t.sendEnd(afterConnect + 530_000);
    t.responseStart(afterConnect + 45_530_000);
    t.responseEnd(afterConnect + 52_030_001);
  }

  /** A pooled connection: no DNS, connect or TLS. */
  static void pooledTimings(RecordedTimings t) {
    long n = NANO0;
    t.requestStart(n);
    t.sendStart(n + 80_000);
    t.sendEnd(n + 180_000);
    t.responseStart(n + 20_180_000);
    t.responseEnd(n + 21_000_000);
  }

  private static void connect(RecordedFlow f, long id, String ip, int port, boolean tls) {
    TlsInfo tlsInfo = tls ? new TlsInfo(null, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "h2", List.of(), true) : null;
    f.serverConnection(new ConnectionInfo(id, addr(ip, port), addr("127.0.0.1", 40000 + (int) id), tlsInfo, false));
    f.clientConnection(new ConnectionInfo(1000 + id, addr("127.0.0.1", 50000 + (int) id), addr("127.0.0.1", 8080),
        null, false));
  }

  static InetSocketAddress addr(String ip, int port) {
    try {
      return new InetSocketAddress(InetAddress.getByName(ip), port); // literals only: no lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(ip, e);
    }
  }

  static byte[] random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static String repeat(String s, int n) {
    return s.repeat(n);
  }

  static byte[] gzip(byte[] data) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
        gz.write(data);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] deflate(byte[] data) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (DeflaterOutputStream z = new DeflaterOutputStream(out)) {
        z.write(data);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
